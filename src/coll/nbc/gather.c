/* MPI_Igather(v): linear, every message in one round: the root posts a
 * receive per member straight into its block of the receive buffer and
 * copies its own block locally. */
#include "coll/nbc/internal.h"

int smap_nbc_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                    MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                    smap_dtype_t *rt, int root, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    if (c->rank != root) {
        smap_sched_send(s, sbuf, scount, st, root);
        return nbc_launch(s, req);
    }
    for (int j = 0; j < c->size; j++) {
        MPI_Count m = rcounts.p ? smap_cvec_at(rcounts, j) : rcount;
        void *at = nbc_at(rbuf, displs.p ? smap_cvec_at(displs, j) : j * rcount, rt);
        if (j != root)
            smap_sched_recv(s, at, m, rt, j);
        else if (sbuf != MPI_IN_PLACE)
            smap_sched_copy(s, sbuf, scount, st, at, m, rt);
    }
    return nbc_launch(s, req);
}
