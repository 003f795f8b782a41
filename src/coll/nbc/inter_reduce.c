/* Non-blocking reductions on intercommunicators (semantics of
 * src/coll/inter/reduce.c): each group folds its inputs at its rank 0 in
 * rank order (nbc_add_reduce0: non-commutative and user ops are right),
 * then the fold goes to the remote root (reduce), or the rank 0s swap
 * folds and broadcast (allreduce) / scatter by this group's counts
 * (reduce_scatter) what they received. */
#include "coll/nbc/internal.h"

int smap_nbc_inter_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                          MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c,
                          MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    if (root == MPI_ROOT) {
        smap_sched_recv_remote(s, rbuf, count, t, 0);
    } else if (root != MPI_PROC_NULL) {
        void *acc = nbc_add_reduce0(s, sbuf, count, t, type, op);
        if (c->rank == 0)
            smap_sched_send_remote(s, acc, count, t, root);
    }
    return nbc_launch(s, req);
}

/* Folds this group's `count` elements at rank 0 and swaps the fold with
 * the remote rank 0 into `theirs` (significant at rank 0 only). */
static void add_swap0(struct smap_sched *s, const void *sbuf, void *theirs, MPI_Count count,
                      smap_dtype_t *t, MPI_Datatype type, MPI_Op op)
{
    void *acc = nbc_add_reduce0(s, sbuf, count, t, type, op);
    if (smap_sched_comm(s)->rank == 0) {
        smap_sched_send_remote(s, acc, count, t, 0);
        smap_sched_recv_remote(s, theirs, count, t, 0);
        smap_sched_barrier(s);
    }
}

int smap_nbc_inter_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                             MPI_Datatype type, MPI_Op op, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    add_swap0(s, sbuf, rbuf, count, t, type, op);
    nbc_add_bcast(s, rbuf, count, t, 0);
    return nbc_launch(s, req);
}

int smap_nbc_inter_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                                  MPI_Count block, MPI_Count total, smap_dtype_t *t,
                                  MPI_Datatype type, MPI_Op op, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    void *theirs = c->rank == 0 ? smap_sched_tmp_typed(s, total, t) : NULL;
    add_swap0(s, sbuf, theirs, total, t, type, op);
    nbc_add_scatter0(s, theirs, rbuf, rcounts, block, t);
    return nbc_launch(s, req);
}

/* The reduction of both groups' inputs, left in buf on every member of
 * both (an MPI_Comm_idup of an intercommunicator agrees with it): each
 * group folds at its rank 0, the rank 0s swap folds and combine them, and
 * broadcast.  The two sides combine in opposite orders, so op must be
 * commutative. */
int smap_nbc_add_inter_allreduce_both(struct smap_sched *s, void *buf, MPI_Count count,
                                      smap_dtype_t *t, MPI_Datatype type, MPI_Op op)
{
    int lead = smap_sched_comm(s)->rank == 0;
    void *theirs = lead ? smap_sched_tmp_typed(s, count, t) : NULL;
    if (lead && !theirs)
        return MPI_ERR_NO_MEM;
    void *acc = nbc_add_reduce0(s, buf, count, t, type, op);
    if (lead) {
        smap_sched_send_remote(s, acc, count, t, 0);
        smap_sched_recv_remote(s, theirs, count, t, 0);
        smap_sched_barrier(s);
        smap_sched_reduce(s, theirs, acc, count, t, type, op);
        smap_sched_barrier(s);
        smap_sched_copy(s, acc, count, t, buf, count, t);
        smap_sched_barrier(s);
    }
    nbc_add_bcast(s, buf, count, t, 0);
    return smap_sched_failed(s) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}
