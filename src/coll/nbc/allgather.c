/* MPI_Iallgather(v): every member sends its block to every other one and
 * receives theirs, all in one round (communicators on one node are small;
 * the transport moves the blocks in parallel).  With MPI_IN_PLACE a rank's
 * block is already in place in its receive buffer and is sent from there. */
#include "coll/nbc/internal.h"

int smap_nbc_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                       MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                       smap_dtype_t *rt, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    int n = c->size, r = c->rank;
    MPI_Count mine = rcounts.p ? smap_cvec_at(rcounts, r) : rcount;
    void *own = nbc_at(rbuf, displs.p ? smap_cvec_at(displs, r) : r * rcount, rt);
    if (sbuf != MPI_IN_PLACE)
        smap_sched_copy(s, sbuf, scount, st, own, mine, rt);
    for (int d = 1; d < n; d++) {
        int to = (r + d) % n, from = (r - d + n) % n;
        if (sbuf != MPI_IN_PLACE)
            smap_sched_send(s, sbuf, scount, st, to);
        else
            smap_sched_send(s, own, mine, rt, to);
        MPI_Count m = rcounts.p ? smap_cvec_at(rcounts, from) : rcount;
        smap_sched_recv(s, nbc_at(rbuf, displs.p ? smap_cvec_at(displs, from) : from * rcount, rt),
                        m, rt, from);
    }
    return nbc_launch(s, req);
}
