/* Neighborhood collectives (MPI 5.0 §8.6): MPI_Neighbor_allgather(v),
 * MPI_Neighbor_alltoall(v,w), their non-blocking MPI_Ineighbor_* and
 * persistent forms and the large-count twins, whose generated entry points
 * (src/binding/gen/coll.c) call coll_neighbor / coll_neighbor_init with the
 * arguments as given: the checks here, then the schedule.  Each is one round of a schedule
 * (src/coll/sched): a receive from every source and a send to every
 * destination of the communicator's topology (src/topo), in the order the
 * standard defines; MPI_PROC_NULL neighbours move nothing, so their
 * receive blocks stay untouched.  Blocking forms run the schedule,
 * non-blocking ones start it and return its request.
 *
 * Matching: all messages of one schedule share one tag, and messages
 * between two processes pair in the order both sides add them.  That only
 * matters where one process is a neighbour twice: in a periodic Cartesian
 * dimension of extent 1 or 2 it is both the -1 and the +1 neighbour.  The
 * block a process receives from its -1 side is the one that neighbour
 * sent in its +1 direction, so sends are added per dimension +1 first,
 * then -1, while receives go -1 then +1: the k-th send pairs with the
 * k-th receive and each block lands where a larger grid would put it. */
#include <mpi.h>

#include "coll/entry/entry.h"
#include "coll/nbc/neighbor.h"
#include "coll/sched/sched.h"
#include "mpi/info.h"
#include "topo/topo.h"


/* ---- checks -------------------------------------------------------------- */

/* The send side of kind k toward outdeg destinations: one block for
 * everyone (allgather(v)) or per destination (alltoall), or vectors. */
static int check_send(const char *F, MPI_Comm comm, struct nbr *a, enum nbr_kind k, int outdeg)
{
    if (a->sbuf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, "sendbuf of a neighborhood collective");
    if (k == NB_ALLTOALLV || k == NB_ALLTOALLW)
        return coll_check_vside(F, comm, outdeg, "send", a->scounts, a->sdispls, a->stype,
                                a->stypes, k == NB_ALLTOALLW, &a->st);
    COLL_CHECK_BUF(F, comm, a->sbuf, a->scount, a->stype, a->st);
    return MPI_SUCCESS;
}

/* The receive side of kind k from indeg sources. */
static int check_recv(const char *F, MPI_Comm comm, struct nbr *a, enum nbr_kind k, int indeg)
{
    if (a->rbuf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, "recvbuf of a neighborhood collective");
    if (k != NB_ALLGATHER && k != NB_ALLTOALL)
        return coll_check_vside(F, comm, indeg, "recv", a->rcounts, a->rdispls, a->rtype,
                                a->rtypes, k == NB_ALLTOALLW, &a->rt);
    COLL_CHECK_BUF(F, comm, a->rbuf, a->rcount, a->rtype, a->rt);
    return MPI_SUCCESS;
}

/* ---- the schedule ---------------------------------------------------------- */

/* Where block i of a side starts, its count and type. */
static void recv_block(const struct nbr *a, enum nbr_kind k, int i, char **buf, MPI_Count *n,
                       smap_dtype_t **t)
{
    char *base = a->rbuf;
    switch (k) {
    case NB_ALLGATHER:
    case NB_ALLTOALL:
        *n = a->rcount;
        *t = a->rt;
        *buf = base + (MPI_Aint)i * a->rcount * a->rt->extent;
        break;
    case NB_ALLGATHERV:
    case NB_ALLTOALLV:
        *n = smap_cvec_at(a->rcounts, i);
        *t = a->rt;
        *buf = base + smap_cvec_at(a->rdispls, i) * a->rt->extent;
        break;
    case NB_ALLTOALLW:
        *n = smap_cvec_at(a->rcounts, i);
        *t = smap_dtype_get(a->rtypes[i]);
        *buf = base + smap_cvec_at(a->rdispls, i);   /* bytes */
        break;
    }
}

static void send_block(const struct nbr *a, enum nbr_kind k, int j, const char **buf,
                       MPI_Count *n, smap_dtype_t **t)
{
    const char *base = a->sbuf;
    switch (k) {
    case NB_ALLGATHER:
    case NB_ALLGATHERV:   /* the same block to everyone */
        *n = a->scount;
        *t = a->st;
        *buf = base;
        break;
    case NB_ALLTOALL:
        *n = a->scount;
        *t = a->st;
        *buf = base + (MPI_Aint)j * a->scount * a->st->extent;
        break;
    case NB_ALLTOALLV:
        *n = smap_cvec_at(a->scounts, j);
        *t = a->st;
        *buf = base + smap_cvec_at(a->sdispls, j) * a->st->extent;
        break;
    case NB_ALLTOALLW:
        *n = smap_cvec_at(a->scounts, j);
        *t = smap_dtype_get(a->stypes[j]);
        *buf = base + smap_cvec_at(a->sdispls, j);   /* bytes */
        break;
    }
}

/* The one round: receives in source order, sends in destination order
 * (Cartesian: +1 before -1 per dimension, see the top of the file). */
static int build(struct smap_sched *s, const struct nbr *a, enum nbr_kind k, int cart,
                 int indeg, const int *in, int outdeg, const int *out)
{
    for (int i = 0; i < indeg; i++) {
        char *buf = NULL;
        MPI_Count n = 0;
        smap_dtype_t *t = NULL;
        recv_block(a, k, i, &buf, &n, &t);
        smap_sched_recv(s, buf, n, t, in[i]);
    }
    for (int m = 0; m < outdeg; m++) {
        int j = cart ? m ^ 1 : m;   /* cart: outdeg = 2 * ndims, pairs (-1, +1) */
        const char *buf = NULL;
        MPI_Count n = 0;
        smap_dtype_t *t = NULL;
        send_block(a, k, j, &buf, &n, &t);
        smap_sched_send(s, buf, n, t, out[j]);
    }
    return smap_sched_barrier(s);
}

/* Checks, builds and runs (req NULL) or starts one neighborhood
 * collective (nonblocking 1), or makes it a persistent request (2). */
int coll_neighbor(const char *F, MPI_Comm comm, struct nbr *a, enum nbr_kind k,
                  MPI_Request *req, int nonblocking)
{
    struct MPI_ABI_Comm *c;
    COLL_ENTER(F, comm, c);
    if (SMAP_UNLIKELY(c->remote_group))
        return smap_err_raise(comm, MPI_ERR_COMM, F, "%s", "comm is an intercommunicator");
    int indeg, outdeg;
    const int *in, *out;
    if (smap_topo_neighbors(c->topo, &indeg, &in, &outdeg, &out) != MPI_SUCCESS)
        return smap_err_raise(comm, MPI_ERR_TOPOLOGY, F, "%s",
                              "comm has no process topology (MPI_Cart_create, "
                              "MPI_Graph_create, MPI_Dist_graph_create...)");
    if (nonblocking)
        SMAP_CHECK_ARG(F, comm, req, "request");
    int rc = check_send(F, comm, a, k, outdeg);
    if (rc == MPI_SUCCESS)
        rc = check_recv(F, comm, a, k, indeg);
    if (rc != MPI_SUCCESS)
        return rc;
    struct smap_sched *s = smap_sched_new(c);
    if (!s)
        return smap_err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory");
    rc = build(s, a, k, c->topo->kind == MPI_CART, indeg, in, outdeg, out);
    if (rc != MPI_SUCCESS) {
        smap_sched_free(s);
        return smap_err_raise(comm, rc, F, "%s", "building the schedule failed (out of memory)");
    }
    /* nonblocking 2: persistent (neighbor_init) */
    smap_sched_persistent(nonblocking == 2 ? req : NULL);
    rc = nonblocking ? smap_sched_start(s, req) : smap_sched_run(s);   /* both consume s */
    smap_sched_persistent(NULL);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(comm, rc, F, "%s", "a neighbour message failed");
    return MPI_SUCCESS;
}

/* ---- persistent (MPI 4.0) ------------------------------------------------ */

/* The schedule is built once, handed back as an inactive persistent request
 * (src/coll/sched: persistent schedules) and run again at each MPI_Start. */
int coll_neighbor_init(const char *F, MPI_Comm comm, struct nbr *a, enum nbr_kind k,
                       MPI_Info info, MPI_Request *req)
{
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_ARG(F, comm, req, "request");
    *req = MPI_REQUEST_NULL;
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_err_raise(comm, MPI_ERR_INFO, F, "%s", "info is not a valid info object");
    return coll_neighbor(F, comm, a, k, req, 2);
}

