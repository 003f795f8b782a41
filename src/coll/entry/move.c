/* The arguments of the barrier and the data-moving collectives: MPI_Barrier,
 * MPI_Bcast, MPI_Gather(v), MPI_Scatter(v), MPI_Allgather(v),
 * MPI_Alltoall(v,w), their large-count twins and their non-blocking and
 * persistent forms (req non-NULL), whose generated entry points
 * (src/binding/gen/coll.c) call these with the arguments as given: the
 * checks, then one call through the communicator's table. */
#include <mpi.h>

#include "coll/entry/entry.h"

/* MPI_Barrier: through the communicator's table (src/coll/dispatch.c):
 * WORLD of a job on one node takes the SMARTMAP node barrier
 * (src/coll/smap/world_barrier.c), a communicator spanning nodes the
 * hierarchy, others their control blocks or a schedule (which keeps
 * point-to-point moving; the launcher's barrier would not). */
int coll_barrier(const char *F, MPI_Comm comm, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_barrier(F, comm, c, req);
    if (req)
        return COLL_DONE(F, comm, smap_coll_ibarrier(c, req));
    if (c->size <= 1)
        return MPI_SUCCESS;
    return COLL_DONE(F, comm, smap_coll_barrier(c));
}

int coll_bcast(const char *F, void *buf, MPI_Count count, MPI_Datatype datatype, int root,
               MPI_Comm comm, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *t;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_bcast(F, buf, count, datatype, root, comm, c, req);
    COLL_CHECK_ROOT(F, comm, c, root);
    if (buf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, "buffer");
    COLL_CHECK_BUF(F, comm, buf, count, datatype, t);
    return COLL_RUN(F, comm, req, smap_coll_bcast(buf, count, t, root, c),
                    smap_coll_ibcast(buf, count, t, root, c, req));
}

/* (shared with inter.c and coll/nbc/neighbor.c: see entry.h) */
int coll_check_vside(const char *F, MPI_Comm comm, int n, const char *what,
                     struct smap_cvec counts, struct smap_cvec displs, MPI_Datatype type,
                     const MPI_Datatype *types, int w, smap_dtype_t **t)
{
    if (n > 0 && (!counts.p || !displs.p))
        return smap_err_raise(comm, MPI_ERR_ARG, F, "%s counts or displacements are NULL", what);
    for (int i = 0; i < n; i++)
        if (smap_cvec_at(counts, i) < 0)
            return smap_err_raise(comm, MPI_ERR_COUNT, F, "%scounts[%d] = %lld is negative",
                                  what, i, (long long)smap_cvec_at(counts, i));
    if (!w) {
        SMAP_CHECK_DTYPE_COMMITTED(F, comm, type, *t);
        return MPI_SUCCESS;
    }
    if (n > 0 && !types)
        return smap_err_raise(comm, MPI_ERR_ARG, F, "%stypes is NULL", what);
    for (int j = 0; j < n; j++) {
        smap_dtype_t *tj;
        SMAP_CHECK_DTYPE_COMMITTED(F, comm, types[j], tj);
    }
    return MPI_SUCCESS;
}

/* ---- gather and scatter ------------------------------------------------ */

/* One side of a rooted collective: every rank's single block (`one`:
 * gather's send, scatter's receive) or the root's blocks for all (`all`). */
struct rooted_side {
    const char *name, *bufname;        /* "send", "sendbuf" or "recv", "recvbuf" */
    const void *buf;
    MPI_Count count;
    struct smap_cvec counts, displs;   /* `all` of a v variant */
    MPI_Datatype type;
    smap_dtype_t **t;
};

/* The checks gather and scatter share, mirrored: MPI_IN_PLACE is allowed
 * only as the root's `one`, the root's `all` is a single block or (vec)
 * one per rank, and the two may not alias. */
static int rooted_checks(const char *F, MPI_Comm comm, struct MPI_ABI_Comm *c, int root, int vec,
                         struct rooted_side one, struct rooted_side all, int *root_only)
{
    *root_only = 0;
    COLL_CHECK_ROOT(F, comm, c, root);
    int is_root = c->rank == root;
    if (one.buf == MPI_IN_PLACE && !is_root)
        return smap_err_raise(comm, MPI_ERR_BUFFER, F,
                              "MPI_IN_PLACE is not allowed as %s on a non-root rank", one.bufname);
    if (one.buf != MPI_IN_PLACE)
        COLL_CHECK_BUF_AS(F, comm, one.bufname, one.buf, one.count, one.type, *one.t);
    if (!is_root)
        return MPI_SUCCESS;
    *root_only = 1;   /* from here on, errors the other ranks cannot see */
    if (all.buf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, all.bufname);
    if (vec)
        return coll_check_vside(F, comm, c->size, all.name, all.counts, all.displs, all.type,
                                NULL, 0, all.t);
    COLL_CHECK_BUF_AS(F, comm, all.bufname, all.buf, all.count, all.type, *all.t);
    COLL_CHECK_ALIAS(F, comm, one.buf, all.buf, one.count > 0 && all.count > 0);
    return MPI_SUCCESS;
}

/* ---- gather ------------------------------------------------------------- */

/* A root that failed a check of its own arguments (the v-variants'
 * counts, the receive side of a gather, the send side of a scatter) still
 * takes the control blocks' steps, so that the others return an error too
 * instead of waiting for it (D18, issue 36); a schedule or a hierarchy
 * call has no partner waiting yet.  Its own error is rc. */
static int rooted_fail(int rc, int root_only, struct MPI_ABI_Comm *c, int root, MPI_Request *req,
                       int (*fail)(int, smap_comm_t *))
{
    if (rc && root_only && !req && c->slot >= 0)
        (void)fail(root, c);
    return rc;
}

int coll_gather(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                void *rbuf, MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                MPI_Datatype rtype, int root, MPI_Comm comm, int vec, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *st = NULL, *rt = NULL;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_gather(F, sbuf, scount, stype, rbuf, rcount, rcounts, displs, rtype, root,
                            comm, c, vec, req);
    int root_only;
    int rc = rooted_checks(F, comm, c, root, vec,
                           (struct rooted_side){ "send", "sendbuf", sbuf, scount, { 0 }, { 0 },
                                                 stype, &st },
                           (struct rooted_side){ "recv", "recvbuf", rbuf, rcount, rcounts, displs,
                                                 rtype, &rt },
                           &root_only);
    if (rc)
        return rooted_fail(rc, root_only, c, root, req, smap_coll_gatherv_fail);
    return COLL_RUN(F, comm, req,
                    smap_coll_gather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root,
                                     vec, c),
                    smap_coll_igather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root,
                                      vec, c, req));
}

/* ---- scatter ------------------------------------------------------------ */

int coll_scatter(const char *F, const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                 struct smap_cvec displs, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm, int vec, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *st = NULL, *rt = NULL;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_scatter(F, sbuf, scount, scounts, displs, stype, rbuf, rcount, rtype, root,
                             comm, c, vec, req);
    int root_only;
    int rc = rooted_checks(F, comm, c, root, vec,
                           (struct rooted_side){ "recv", "recvbuf", rbuf, rcount, { 0 }, { 0 },
                                                 rtype, &rt },
                           (struct rooted_side){ "send", "sendbuf", sbuf, scount, scounts, displs,
                                                 stype, &st },
                           &root_only);
    if (rc)
        return rooted_fail(rc, root_only, c, root, req, smap_coll_scatterv_fail);
    return COLL_RUN(F, comm, req,
                    smap_coll_scatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root,
                                      vec, c),
                    smap_coll_iscatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root,
                                       vec, c, req));
}

/* ---- allgather ---------------------------------------------------------- */

int coll_allgather(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                   void *rbuf, MPI_Count rcount, struct smap_cvec rcounts,
                   struct smap_cvec displs, MPI_Datatype rtype, MPI_Comm comm, int vec,
                   MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *st = NULL, *rt = NULL;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_allgather(F, sbuf, scount, stype, rbuf, rcount, rcounts, displs, rtype,
                               comm, c, vec, req);
    if (rbuf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, "recvbuf");
    if (sbuf != MPI_IN_PLACE)
        COLL_CHECK_BUF(F, comm, sbuf, scount, stype, st);
    if (vec) {
        int rc = coll_check_vside(F, comm, c->size, "recv", rcounts, displs, rtype, NULL, 0,
                                  &rt);
        if (rc)
            return rc;
    } else {
        COLL_CHECK_BUF(F, comm, rbuf, rcount, rtype, rt);
        COLL_CHECK_ALIAS(F, comm, sbuf, rbuf, rcount > 0 && scount > 0);
    }
    return COLL_RUN(F, comm, req,
                    smap_coll_allgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c),
                    smap_coll_iallgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c,
                                         req));
}

/* ---- alltoall ----------------------------------------------------------- */

int coll_a2a_side(const char *F, MPI_Comm comm, int n, const char *what, const void *buf,
                  MPI_Count count, struct smap_cvec counts, struct smap_cvec displs,
                  MPI_Datatype type, const MPI_Datatype *types, int kind, smap_dtype_t **t)
{
    if (kind == 0) {
        COLL_CHECK_BUF(F, comm, buf, count, type, *t);
        return MPI_SUCCESS;
    }
    return coll_check_vside(F, comm, n, what, counts, displs, type, types, kind == 2, t);
}

int coll_alltoall(const char *F, struct smap_a2a *a, MPI_Datatype stype, MPI_Datatype rtype,
                  MPI_Comm comm, int kind, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_alltoall(F, a, stype, rtype, comm, c, kind, req);
    if (a->rbuf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, "recvbuf");
    int rc = coll_a2a_side(F, comm, c->size, "recv", a->rbuf, a->rcount, a->rcounts, a->rdispls,
                      rtype, a->rtypes, kind, &a->rt);
    if (rc)
        return rc;
    if (a->sbuf != MPI_IN_PLACE) {
        rc = coll_a2a_side(F, comm, c->size, "send", a->sbuf, a->scount, a->scounts, a->sdispls,
                      stype, a->stypes, kind, &a->st);
        if (rc)
            return rc;
        if (kind == 0)
            COLL_CHECK_ALIAS(F, comm, a->sbuf, a->rbuf, a->scount > 0 && a->rcount > 0);
    }
    return COLL_RUN(F, comm, req, smap_coll_alltoall(a, c), smap_coll_ialltoall(a, c, req));
}

