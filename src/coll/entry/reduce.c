/* Entry points of the reducing collectives: MPI_Reduce, MPI_Allreduce,
 * MPI_Reduce_scatter, MPI_Reduce_scatter_block, MPI_Scan, MPI_Exscan and
 * their large-count twins.  Checks here, data movement in src/coll/. */
#include <mpi.h>

#include "coll/entry/entry.h"

int coll_reduce(const char *F, const void *sbuf, void *rbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *t;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_reduce(F, sbuf, rbuf, count, datatype, op, root, comm, c, req);
    COLL_CHECK_ROOT(F, comm, c, root);
    int is_root = c->rank == root;
    if (rbuf == MPI_IN_PLACE && is_root)
        return COLL_IN_PLACE_ERR(F, comm, "recvbuf");
    if (sbuf == MPI_IN_PLACE && !is_root)
        return COLL_IN_PLACE_ERR(F, comm, "sendbuf on a non-root rank");
    COLL_CHECK_BUF(F, comm, sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, datatype, t);
    if (is_root) {
        COLL_CHECK_BUF(F, comm, rbuf, count, datatype, t);
        COLL_CHECK_ALIAS(F, comm, sbuf, rbuf, count > 0);
    }
    COLL_CHECK_OP(F, comm, op, t, datatype);
    return COLL_RUN(F, comm, req, smap_coll_reduce(sbuf, rbuf, count, t, datatype, op, root, c),
                    smap_coll_ireduce(sbuf, rbuf, count, t, datatype, op, root, c, req));
}

int coll_allred(const char *F, int kind, const void *sbuf, void *rbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *t;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_allreduce(F, kind != K_ALLREDUCE, sbuf, rbuf, count, datatype, op, comm,
                               c, req);
    if (rbuf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, "recvbuf");
    COLL_CHECK_BUF(F, comm, rbuf, count, datatype, t);
    if (sbuf != MPI_IN_PLACE)
        COLL_CHECK_BUF(F, comm, sbuf, count, datatype, t);
    COLL_CHECK_ALIAS(F, comm, sbuf, rbuf, count > 0);
    COLL_CHECK_OP(F, comm, op, t, datatype);
    if (kind == K_ALLREDUCE) {
        return COLL_RUN(F, comm, req, smap_coll_allreduce(sbuf, rbuf, count, t, datatype, op, c),
                        smap_coll_iallreduce(sbuf, rbuf, count, t, datatype, op, c, req));
    }
    int ex = kind == K_EXSCAN;
    return COLL_RUN(F, comm, req, smap_coll_scan(sbuf, rbuf, count, t, datatype, op, ex, c),
                    smap_coll_iscan(sbuf, rbuf, count, t, datatype, op, ex, c, req));
}

/* (shared with inter.c: see entry.h) */
int coll_redscat_counts(const char *F, MPI_Comm comm, struct smap_cvec rcounts, MPI_Count block,
                        int n, int rank, MPI_Count *total, MPI_Count *mine)
{
    if (rcounts.p == NULL && block < 0)
        return smap_err_raise(comm, MPI_ERR_COUNT, F, "recvcount %lld is negative",
                              (long long)block);
    *total = 0;
    for (int j = 0; j < n; j++) {
        MPI_Count nj = rcounts.p ? smap_cvec_at(rcounts, j) : block;
        if (nj < 0)
            return smap_err_raise(comm, MPI_ERR_COUNT, F, "recvcounts[%d] = %lld is negative",
                                  j, (long long)nj);
        *total += nj;
    }
    *mine = rcounts.p ? smap_cvec_at(rcounts, rank) : block;
    return MPI_SUCCESS;
}

int coll_redscat(const char *F, const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                 MPI_Count block, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *t;
    COLL_ENTER_REQ(F, comm, c, req);
    if (smap_comm_is_inter(c))
        return inter_reduce_scatter(F, sbuf, rbuf, rcounts, block, datatype, op, comm, c, req);
    MPI_Count total, mine;
    int rc = coll_redscat_counts(F, comm, rcounts, block, c->size, c->rank, &total, &mine);
    if (rc != MPI_SUCCESS)
        return rc;
    if (rbuf == MPI_IN_PLACE)
        return COLL_IN_PLACE_ERR(F, comm, "recvbuf");
    COLL_CHECK_BUF(F, comm, rbuf, sbuf == MPI_IN_PLACE ? total : mine, datatype, t);
    if (sbuf != MPI_IN_PLACE)
        COLL_CHECK_BUF(F, comm, sbuf, total, datatype, t);
    COLL_CHECK_ALIAS(F, comm, sbuf, rbuf, total > 0);
    COLL_CHECK_OP(F, comm, op, t, datatype);
    return COLL_RUN(F, comm, req,
                    smap_coll_reduce_scatter(sbuf, rbuf, rcounts, block, t, datatype, op, c),
                    smap_coll_ireduce_scatter(sbuf, rbuf, rcounts, block, t, datatype, op, c,
                                              req));
}

