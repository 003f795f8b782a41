/* MPI_Iscatter(v): linear, every message in one round: the root sends each
 * member its block of the send buffer and copies its own locally. */
#include "coll/nbc/internal.h"

int smap_nbc_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                     struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                     smap_dtype_t *rt, int root, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    if (c->rank != root) {
        smap_sched_recv(s, rbuf, rcount, rt, root);
        return nbc_launch(s, req);
    }
    for (int j = 0; j < c->size; j++) {
        MPI_Count m = scounts.p ? smap_cvec_at(scounts, j) : scount;
        const void *at = nbc_at(sbuf, displs.p ? smap_cvec_at(displs, j) : j * scount, st);
        if (j != root)
            smap_sched_send(s, at, m, st, j);
        else if (rbuf != MPI_IN_PLACE)
            smap_sched_copy(s, at, m, st, rbuf, rcount, rt);
    }
    return nbc_launch(s, req);
}
