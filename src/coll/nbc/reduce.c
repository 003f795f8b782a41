/* MPI_Ireduce, MPI_Iallreduce, MPI_Ireduce_scatter(_block): a binomial
 * reduction to rank 0 that keeps rank order (so non-commutative and user
 * ops are right), then the result moves: to the root, broadcast from 0, or
 * scattered in blocks from 0.
 *
 * In the binomial tree, rank r (r mod 2k = 0) receives from r + k the fold
 * of ranks [r+k, r+2k) and folds it after its own [r, r+k): acc op in.
 * The op writes into its second argument, so the received buffer becomes
 * the accumulator and the old one takes the next message (two scratch
 * buffers per rank, in the type's layout; the send buffer is never
 * written). */
#include "coll/nbc/internal.h"

void *nbc_add_reduce0(struct smap_sched *s, const void *in, MPI_Count count, smap_dtype_t *t,
                      MPI_Datatype type, MPI_Op op)
{
    smap_comm_t *c = smap_sched_comm(s);
    int n = c->size, r = c->rank;
    void *acc = smap_sched_tmp_typed(s, count, t);
    void *other = n > 1 && !(r & 1) ? smap_sched_tmp_typed(s, count, t) : NULL;
    if (!acc || (n > 1 && !(r & 1) && !other))
        return NULL;
    smap_sched_copy(s, in, count, t, acc, count, t);
    for (int k = 1; k < n; k <<= 1) {
        if (r & k) {
            smap_sched_send(s, acc, count, t, r - k);
            smap_sched_barrier(s);
            return NULL;
        }
        if (r + k < n) {
            smap_sched_recv(s, other, count, t, r + k);
            smap_sched_barrier(s);
            smap_sched_reduce(s, acc, other, count, t, type, op);   /* other = acc op other */
            void *x = acc;
            acc = other;
            other = x;
        }
    }
    smap_sched_barrier(s);
    return acc;
}

int smap_nbc_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                    MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    void *acc = nbc_add_reduce0(s, in, count, t, type, op);
    if (c->rank == 0 && root == 0)
        smap_sched_copy(s, acc, count, t, rbuf, count, t);
    else if (c->rank == 0)
        smap_sched_send(s, acc, count, t, root);
    else if (c->rank == root)
        smap_sched_recv(s, rbuf, count, t, 0);
    return nbc_launch(s, req);
}

int smap_nbc_add_allreduce(struct smap_sched *s, const void *sbuf, void *rbuf, MPI_Count count,
                           smap_dtype_t *t, MPI_Datatype type, MPI_Op op)
{
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    void *acc = nbc_add_reduce0(s, in, count, t, type, op);
    if (smap_sched_comm(s)->rank == 0) {
        smap_sched_copy(s, acc, count, t, rbuf, count, t);
        smap_sched_barrier(s);
    }
    nbc_add_bcast(s, rbuf, count, t, 0);
    return smap_sched_failed(s) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

int smap_nbc_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                       MPI_Datatype type, MPI_Op op, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    smap_nbc_add_allreduce(s, sbuf, rbuf, count, t, type, op);
    return nbc_launch(s, req);
}

/* rcounts.p NULL: every block has `block` elements. */
int smap_nbc_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                            MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                            smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    int n = c->size;
    MPI_Count total = 0;
    for (int j = 0; j < n; j++)
        total += rcounts.p ? smap_cvec_at(rcounts, j) : block;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    void *acc = nbc_add_reduce0(s, in, total, t, type, op);
    nbc_add_scatter0(s, acc, rbuf, rcounts, block, t);
    return nbc_launch(s, req);
}

void nbc_add_scatter0(struct smap_sched *s, const void *acc, void *rbuf, struct smap_cvec rcounts,
                      MPI_Count block, smap_dtype_t *t)
{
    smap_comm_t *c = smap_sched_comm(s);
    if (c->rank != 0) {
        smap_sched_recv(s, rbuf, rcounts.p ? smap_cvec_at(rcounts, c->rank) : block, t, 0);
        return;
    }
    MPI_Count off = 0;
    for (int j = 0; j < c->size; j++) {
        MPI_Count m = rcounts.p ? smap_cvec_at(rcounts, j) : block;
        if (j == 0)
            smap_sched_copy(s, nbc_at(acc, off, t), m, t, rbuf, m, t);
        else
            smap_sched_send(s, nbc_at(acc, off, t), m, t, j);
        off += m;
    }
}
