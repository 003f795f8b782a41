/* MPI_Ibcast: binomial tree rooted at root (ranks relative to it): a rank
 * receives from its parent, then sends to its children, largest subtree
 * first. */
#include "coll/nbc/internal.h"

void nbc_add_bcast(struct smap_sched *s, void *buf, MPI_Count count, smap_dtype_t *t, int root)
{
    smap_comm_t *c = smap_sched_comm(s);
    int n = c->size, vr = (c->rank - root + n) % n, mask = 1;
    for (; mask < n; mask <<= 1) {
        if (vr & mask) {
            smap_sched_recv(s, buf, count, t, (vr - mask + root) % n);
            smap_sched_barrier(s);
            break;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < n)
            smap_sched_send(s, buf, count, t, (vr + mask + root) % n);
    smap_sched_barrier(s);
}

int smap_nbc_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c,
                   MPI_Request *req)
{
    struct smap_sched *s = nbc_new(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    nbc_add_bcast(s, buf, count, t, root);
    return nbc_launch(s, req);
}
