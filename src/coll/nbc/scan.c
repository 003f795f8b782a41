/* MPI_Iscan, MPI_Iexscan: recursive doubling (Hillis-Steele).  In round k
 * (k = 1, 2, 4 ...) rank r sends its partial fold, covering ranks
 * [r-2k+1 .. r] clipped at 0 after the round, to r + k and folds the one
 * from r - k in front of its own: partial = in op partial, which keeps rank
 * order.  The exclusive scan keeps a second fold without its own
 * contribution, in the receive buffer. */
#include "coll/nbc/internal.h"

int smap_nbc_scan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                  MPI_Datatype type, MPI_Op op, int exclusive, smap_comm_t *c,
                  MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    int n = c->size, r = c->rank;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    /* inclusive: the partial fold is the receive buffer itself */
    void *partial = exclusive ? smap_sched_tmp_typed(s, count, t) : rbuf;
    void *got = n > 1 ? smap_sched_tmp_typed(s, count, t) : NULL;
    if (partial)
        smap_sched_copy(s, in, count, t, partial, count, t);
    for (int k = 1; k < n; k <<= 1) {
        smap_sched_send(s, partial, count, t, r + k < n ? r + k : MPI_PROC_NULL);
        smap_sched_recv(s, got, count, t, r - k >= 0 ? r - k : MPI_PROC_NULL);
        smap_sched_barrier(s);
        if (r - k < 0)
            continue;
        if (exclusive && k == 1)
            smap_sched_copy(s, got, count, t, rbuf, count, t);
        else if (exclusive)
            smap_sched_reduce(s, got, rbuf, count, t, type, op);
        smap_sched_reduce(s, got, partial, count, t, type, op);
    }
    return nbc_launch(s, req);
}
