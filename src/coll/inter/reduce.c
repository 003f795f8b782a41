/* Reductions on intercommunicators: each group folds its inputs at its
 * local rank 0 (in rank order, so non-commutative and user ops get
 * in[0] op (in[1] op (... in[n-1])) as MPI wants), then the result crosses
 * to the other group: to the root (reduce), to the other rank 0 which
 * broadcasts it (allreduce) or scatters it (reduce_scatter). */
#include <stdlib.h>

#include "coll/inter/internal.h"
#include "mpi/op.h"

/* At local rank 0: acc = the fold of every local member's sbuf (count
 * elements); the others send theirs. */
static int local_fold(smap_comm_t *c, const void *sbuf, void *acc, MPI_Count count,
                      smap_dtype_t *t, MPI_Datatype type, MPI_Op op)
{
    int n = c->size;
    if (c->rank != 0)
        return inter_send(c, 0, 0, sbuf, count, t);
    if (n == 1) {
        smap_dtype_copy(acc, count, t, sbuf, count, t);
        return MPI_SUCCESS;
    }
    int rc = inter_recv(c, 0, n - 1, acc, count, t);
    if (rc != MPI_SUCCESS)
        return rc;
    void *base = NULL, *tmp = n > 2 ? inter_tmp(count, t, &base) : NULL;
    if (n > 2 && !tmp)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for a reduction buffer");
    /* acc = in[i] op acc, from the top down */
    for (int i = n - 2; i >= 1 && rc == MPI_SUCCESS; i--) {
        rc = inter_recv(c, 0, i, tmp, count, t);
        if (rc == MPI_SUCCESS)
            rc = smap_op_apply(op, tmp, acc, count, type);
    }
    free(base);
    if (rc == MPI_SUCCESS)
        rc = smap_op_apply(op, sbuf, acc, count, type);
    return rc == MPI_SUCCESS || rc == MPI_ERR_TRUNCATE ? rc
                                                        : smap_fail(rc, "the op failed on the type");
}

/* A scratch accumulator at local rank 0 (NULL elsewhere: none needed). */
static int acc_new(smap_comm_t *c, MPI_Count count, smap_dtype_t *t, void **acc, void **base)
{
    *acc = *base = NULL;
    if (c->rank != 0)
        return MPI_SUCCESS;
    *acc = inter_tmp(count, t, base);
    return *acc ? MPI_SUCCESS : smap_fail(MPI_ERR_NO_MEM, "out of memory for a reduction buffer");
}

int smap_inter_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                      MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return inter_recv(c, 1, 0, rbuf, count, t);
    void *acc, *base;
    int rc = acc_new(c, count, t, &acc, &base);
    if (rc == MPI_SUCCESS)
        rc = local_fold(c, sbuf, acc, count, t, type, op);
    if (rc == MPI_SUCCESS && c->rank == 0)
        rc = inter_send(c, 1, root, acc, count, t);
    free(base);
    return rc;
}

int smap_inter_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                         MPI_Datatype type, MPI_Op op, smap_comm_t *c)
{
    void *acc, *base;
    int rc = acc_new(c, count, t, &acc, &base);
    if (rc == MPI_SUCCESS)
        rc = local_fold(c, sbuf, acc, count, t, type, op);
    /* the rank 0s swap their groups' results */
    if (rc == MPI_SUCCESS && c->rank == 0)
        rc = inter_sendrecv(c, 1, 0, acc, count, t, rbuf, count, t);
    free(base);
    /* after a mismatch (truncation) the group is still released */
    if (rc != MPI_SUCCESS && rc != MPI_ERR_TRUNCATE)
        return rc;
    int e = smap_inter_lbcast(c, 0, rbuf, count, t);
    return rc != MPI_SUCCESS ? rc : e;
}

/* At local rank 0: block i of the remote result (in `all`) to member i. */
static int scatter_blocks(smap_comm_t *c, const void *all, void *rbuf, struct smap_cvec rcounts,
                          MPI_Count block, smap_dtype_t *t)
{
    MPI_Count mine = rcounts.p ? smap_cvec_at(rcounts, c->rank) : block;
    if (c->rank != 0)
        return inter_recv(c, 0, 0, rbuf, mine, t);
    int n = c->size, rc = MPI_SUCCESS;
    struct smap_preq *r = malloc((size_t)n * sizeof *r);
    if (!r)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    MPI_Count at = 0;
    for (int i = 0; i < n; i++) {
        MPI_Count ni = rcounts.p ? smap_cvec_at(rcounts, i) : block;
        const char *p = (const char *)all + at * t->extent;
        if (i == 0) {
            smap_dtype_copy(rbuf, ni, t, p, ni, t);
            smap_p2p_null(&r[0], SMAP_PREQ_SEND);
        } else {
            int e = smap_inter_isend(&r[i], c, 0, i, p, ni, t);
            rc = rc != MPI_SUCCESS ? rc : e;
        }
        at += ni;
    }
    int e = smap_inter_waitall(r, n);
    free(r);
    return rc != MPI_SUCCESS ? rc : e;
}

int smap_inter_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                              MPI_Count block, MPI_Count total, smap_dtype_t *t,
                              MPI_Datatype type, MPI_Op op, smap_comm_t *c)
{
    void *acc, *abase, *all = NULL, *bbase = NULL;
    int rc = acc_new(c, total, t, &acc, &abase);
    if (rc == MPI_SUCCESS && c->rank == 0 && !(all = inter_tmp(total, t, &bbase)))
        rc = smap_fail(MPI_ERR_NO_MEM, "out of memory for a reduction buffer");
    if (rc == MPI_SUCCESS)
        rc = local_fold(c, sbuf, acc, total, t, type, op);
    if (rc == MPI_SUCCESS && c->rank == 0)
        rc = inter_sendrecv(c, 1, 0, acc, total, t, all, total, t);
    free(abase);
    /* after a mismatch (truncation) the group is still released */
    if (rc == MPI_SUCCESS || rc == MPI_ERR_TRUNCATE) {
        int e = scatter_blocks(c, all, rbuf, rcounts, block, t);
        rc = rc != MPI_SUCCESS ? rc : e;
    }
    free(bbase);
    return rc;
}
