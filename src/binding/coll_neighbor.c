/* Neighborhood collectives (MPI 5.0 §8.6): MPI_Neighbor_allgather(v),
 * MPI_Neighbor_alltoall(v,w), their non-blocking MPI_Ineighbor_* forms and
 * the large-count twins.  Each is one round of a schedule
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
#include "coll/sched/sched.h"
#include "mpi/info.h"
#include "topo/topo.h"

enum nbr_kind { NB_ALLGATHER, NB_ALLGATHERV, NB_ALLTOALL, NB_ALLTOALLV, NB_ALLTOALLW };

/* One call's arguments as given by any of the bindings. */
struct nbr {
    const void *sbuf;
    MPI_Count scount;
    struct smap_cvec scounts, sdispls;
    MPI_Datatype stype;
    const MPI_Datatype *stypes;
    void *rbuf;
    MPI_Count rcount;
    struct smap_cvec rcounts, rdispls;
    MPI_Datatype rtype;
    const MPI_Datatype *rtypes;
    smap_dtype_t *st, *rt;   /* resolved by the checks (not for w) */
};

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
        char *buf;
        MPI_Count n;
        smap_dtype_t *t;
        recv_block(a, k, i, &buf, &n, &t);
        smap_sched_recv(s, buf, n, t, in[i]);
    }
    for (int m = 0; m < outdeg; m++) {
        int j = cart ? m ^ 1 : m;   /* cart: outdeg = 2 * ndims, pairs (-1, +1) */
        const char *buf;
        MPI_Count n;
        smap_dtype_t *t;
        send_block(a, k, j, &buf, &n, &t);
        smap_sched_send(s, buf, n, t, out[j]);
    }
    return smap_sched_barrier(s);
}

/* Checks, builds and runs (req NULL) or starts one neighborhood
 * collective (nonblocking 1), or makes it a persistent request (2). */
static int neighbor(const char *F, MPI_Comm comm, struct nbr *a, enum nbr_kind k,
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

/* ---- allgather(v) ---------------------------------------------------------- */

#define NB_ALLGATHER_ARGS(sb, sc, stp, rb, rc, rtp)                                       \
    { .sbuf = (sb), .scount = (sc), .stype = (stp), .rbuf = (rb), .rcount = (rc), .rtype = (rtp) }

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    struct nbr a = NB_ALLGATHER_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor("MPI_Neighbor_allgather", comm, &a, NB_ALLGATHER, NULL, 0);
}

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    struct nbr a = NB_ALLGATHER_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor("MPI_Neighbor_allgather_c", comm, &a, NB_ALLGATHER, NULL, 0);
}

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    struct nbr a = NB_ALLGATHER_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor("MPI_Ineighbor_allgather", comm, &a, NB_ALLGATHER, request, 1);
}

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request)
{
    struct nbr a = NB_ALLGATHER_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor("MPI_Ineighbor_allgather_c", comm, &a, NB_ALLGATHER, request, 1);
}

#define NB_ALLGATHERV_ARGS(sb, sc, stp, rb, rcs, ds, rtp, CV)                                \
    { .sbuf = (sb), .scount = (sc), .stype = (stp), .rbuf = (rb), .rcounts = CV(rcs),       \
      .rdispls = CV(ds), .rtype = (rtp) }

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    struct nbr a = NB_ALLGATHERV_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                      recvtype, CV_INT);
    return neighbor("MPI_Neighbor_allgatherv", comm, &a, NB_ALLGATHERV, NULL, 0);
}

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    struct nbr a = NB_ALLGATHERV_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                      recvtype, CV_BIG);
    return neighbor("MPI_Neighbor_allgatherv_c", comm, &a, NB_ALLGATHERV, NULL, 0);
}

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct nbr a = NB_ALLGATHERV_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                      recvtype, CV_INT);
    return neighbor("MPI_Ineighbor_allgatherv", comm, &a, NB_ALLGATHERV, request, 1);
}

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request)
{
    struct nbr a = NB_ALLGATHERV_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                      recvtype, CV_BIG);
    return neighbor("MPI_Ineighbor_allgatherv_c", comm, &a, NB_ALLGATHERV, request, 1);
}

/* ---- alltoall(v,w) --------------------------------------------------------- */

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    struct nbr a = NB_ALLGATHER_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor("MPI_Neighbor_alltoall", comm, &a, NB_ALLTOALL, NULL, 0);
}

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    struct nbr a = NB_ALLGATHER_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor("MPI_Neighbor_alltoall_c", comm, &a, NB_ALLTOALL, NULL, 0);
}

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    struct nbr a = NB_ALLGATHER_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor("MPI_Ineighbor_alltoall", comm, &a, NB_ALLTOALL, request, 1);
}

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    struct nbr a = NB_ALLGATHER_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor("MPI_Ineighbor_alltoall_c", comm, &a, NB_ALLTOALL, request, 1);
}

#define NB_ALLTOALLV_ARGS(sb, scs, sds, stp, rb, rcs, rds, rtp, CV)                          \
    { .sbuf = (sb), .scounts = CV(scs), .sdispls = CV(sds), .stype = (stp), .rbuf = (rb),   \
      .rcounts = CV(rcs), .rdispls = CV(rds), .rtype = (rtp) }

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    struct nbr a = NB_ALLTOALLV_ARGS(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                     rdispls, recvtype, CV_INT);
    return neighbor("MPI_Neighbor_alltoallv", comm, &a, NB_ALLTOALLV, NULL, 0);
}

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    struct nbr a = NB_ALLTOALLV_ARGS(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                     rdispls, recvtype, CV_BIG);
    return neighbor("MPI_Neighbor_alltoallv_c", comm, &a, NB_ALLTOALLV, NULL, 0);
}

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    struct nbr a = NB_ALLTOALLV_ARGS(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                     rdispls, recvtype, CV_INT);
    return neighbor("MPI_Ineighbor_alltoallv", comm, &a, NB_ALLTOALLV, request, 1);
}

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct nbr a = NB_ALLTOALLV_ARGS(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                     rdispls, recvtype, CV_BIG);
    return neighbor("MPI_Ineighbor_alltoallv_c", comm, &a, NB_ALLTOALLV, request, 1);
}

/* Alltoallw's displacements are MPI_Aint (bytes) in both bindings. */
#define NB_ALLTOALLW_ARGS(sb, scs, sds, stps, rb, rcs, rds, rtps, CV)                        \
    { .sbuf = (sb), .scounts = CV(scs), .sdispls = CV_BIG(sds), .stypes = (stps),           \
      .rbuf = (rb), .rcounts = CV(rcs), .rdispls = CV_BIG(rds), .rtypes = (rtps) }

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                            MPI_Comm comm)
{
    struct nbr a = NB_ALLTOALLW_ARGS(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                     recvcounts, rdispls, recvtypes, CV_INT);
    return neighbor("MPI_Neighbor_alltoallw", comm, &a, NB_ALLTOALLW, NULL, 0);
}

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                              MPI_Comm comm)
{
    struct nbr a = NB_ALLTOALLW_ARGS(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                     recvcounts, rdispls, recvtypes, CV_BIG);
    return neighbor("MPI_Neighbor_alltoallw_c", comm, &a, NB_ALLTOALLW, NULL, 0);
}

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    struct nbr a = NB_ALLTOALLW_ARGS(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                     recvcounts, rdispls, recvtypes, CV_INT);
    return neighbor("MPI_Ineighbor_alltoallw", comm, &a, NB_ALLTOALLW, request, 1);
}

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request *request)
{
    struct nbr a = NB_ALLTOALLW_ARGS(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                     recvcounts, rdispls, recvtypes, CV_BIG);
    return neighbor("MPI_Ineighbor_alltoallw_c", comm, &a, NB_ALLTOALLW, request, 1);
}

/* ---- persistent (MPI 4.0) ------------------------------------------------ */

/* The schedule is built once, handed back as an inactive persistent request
 * (src/coll/sched: persistent schedules) and run again at each MPI_Start. */
static int neighbor_init(const char *F, MPI_Comm comm, struct nbr *a, enum nbr_kind k,
                         MPI_Info info, MPI_Request *req)
{
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_ARG(F, comm, req, "request");
    *req = MPI_REQUEST_NULL;
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_err_raise(comm, MPI_ERR_INFO, F, "%s", "info is not a valid info object");
    return neighbor(F, comm, a, k, req, 2);
}

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct nbr a = NB_ALLGATHER_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor_init("MPI_Neighbor_allgather_init", comm, &a, NB_ALLGATHER, info, request);
}

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct nbr a = NB_ALLGATHER_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor_init("MPI_Neighbor_allgather_init_c", comm, &a, NB_ALLGATHER, info, request);
}

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    struct nbr a = NB_ALLGATHERV_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                      recvtype, CV_INT);
    return neighbor_init("MPI_Neighbor_allgatherv_init", comm, &a, NB_ALLGATHERV, info, request);
}

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void *recvbuf,
                                    const MPI_Count recvcounts[], const MPI_Aint displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request)
{
    struct nbr a = NB_ALLGATHERV_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                      recvtype, CV_BIG);
    return neighbor_init("MPI_Neighbor_allgatherv_init_c", comm, &a, NB_ALLGATHERV, info, request);
}

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    struct nbr a = NB_ALLGATHER_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor_init("MPI_Neighbor_alltoall_init", comm, &a, NB_ALLTOALL, info, request);
}

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct nbr a = NB_ALLGATHER_ARGS(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return neighbor_init("MPI_Neighbor_alltoall_init_c", comm, &a, NB_ALLTOALL, info, request);
}

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    struct nbr a = NB_ALLTOALLV_ARGS(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                     rdispls, recvtype, CV_INT);
    return neighbor_init("MPI_Neighbor_alltoallv_init", comm, &a, NB_ALLTOALLV, info, request);
}

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    struct nbr a = NB_ALLTOALLV_ARGS(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                     rdispls, recvtype, CV_BIG);
    return neighbor_init("MPI_Neighbor_alltoallv_init_c", comm, &a, NB_ALLTOALLV, info, request);
}

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    struct nbr a = NB_ALLTOALLW_ARGS(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                     recvcounts, rdispls, recvtypes, CV_INT);
    return neighbor_init("MPI_Neighbor_alltoallw_init", comm, &a, NB_ALLTOALLW, info, request);
}

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct nbr a = NB_ALLTOALLW_ARGS(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                     recvcounts, rdispls, recvtypes, CV_BIG);
    return neighbor_init("MPI_Neighbor_alltoallw_init_c", comm, &a, NB_ALLTOALLW, info, request);
}
