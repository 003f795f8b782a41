/* Hierarchical Barrier and Bcast.
 *
 * Barrier: every node meets (one sync of its control blocks), the leaders
 * run a dissemination barrier, every node meets again.
 *
 * Bcast: the root's node gets the data first (the control-block broadcast
 * from the root, so its leader has it), the leaders pass it on (binomial
 * tree from the root's leader), each other node broadcasts it from its
 * leader.  In chunks (hier_chunk): the root's leader starts chunk k's
 * leaders' broadcast as soon as its node has it; the other leaders start
 * every chunk's at once and broadcast chunk k on their node as soon as it
 * arrived, while the later chunks still cross.  Large messages go on
 * rails instead (rails.c): every rank of a node carries a piece. */
#include "coll/hier/internal.h"

#include <stdlib.h>

#include "base/tunables.h"

int smap_hier_barrier(smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    int rc = hier_node_barrier(h);
    if (rc == MPI_SUCCESS && h->lead)
        rc = (smap_nbc_barrier(h->lead, NULL));
    if (rc == MPI_SUCCESS)
        rc = hier_node_barrier(h);
    return rc;
}

/* Started leaders' broadcast of one chunk from the leader of node rootn. */
static int lead_bcast(struct smap_hier *h, void *buf, MPI_Count count, smap_dtype_t *t,
                      int rootn, MPI_Request *req)
{
    *req = MPI_REQUEST_NULL;
    if (h->lead->size == 1)
        return MPI_SUCCESS;
    return (smap_nbc_bcast(buf, count, t, rootn, h->lead, req));
}

int smap_hier_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    if (count == 0 || t->size == 0)
        return MPI_SUCCESS;
    if ((uint64_t)(count * t->size) >= smap_tun.coll_hier_bcast_rails_min)
        return hier_bcast_rails(h, c, buf, count, t, root);
    int rootn = h->node_of[root], leader = hier_is_leader(h);
    int on_root_node = h->node_of[c->rank] == rootn;
    MPI_Count ce = hier_chunk(t), nchunks = (count + ce - 1) / ce;
    MPI_Request *reqs = NULL;
    if (leader) {
        reqs = malloc((size_t)nchunks * sizeof *reqs);
        if (!reqs)
            return smap_fail(MPI_ERR_NO_MEM, "out of memory for the broadcast's requests");
        for (MPI_Count k = 0; k < nchunks; k++)
            reqs[k] = MPI_REQUEST_NULL;
    }
    int rc = MPI_SUCCESS;
    if (leader && !on_root_node)   /* every chunk's receive is posted at once */
        for (MPI_Count k = 0; k < nchunks && rc == MPI_SUCCESS; k++) {
            MPI_Count len = count - k * ce < ce ? count - k * ce : ce;
            rc = lead_bcast(h, hier_at(buf, k * ce, t), len, t, rootn, &reqs[k]);
        }
    for (MPI_Count k = 0; k < nchunks && rc == MPI_SUCCESS; k++) {
        MPI_Count len = count - k * ce < ce ? count - k * ce : ce;
        void *p = hier_at(buf, k * ce, t);
        if (on_root_node) {
            rc = hier_node_bcast(h, p, len, t, h->local_of[root]);
            if (rc == MPI_SUCCESS && leader)
                rc = lead_bcast(h, p, len, t, rootn, &reqs[k]);
        } else {
            if (leader)
                rc = hier_wait(&reqs[k]);
            if (rc == MPI_SUCCESS)
                rc = hier_node_bcast(h, p, len, t, 0);
        }
    }
    if (leader) {
        for (MPI_Count k = 0; k < nchunks; k++)
            if (reqs[k] != MPI_REQUEST_NULL) {
                int r2 = hier_wait(&reqs[k]);
                if (rc == MPI_SUCCESS)
                    rc = r2;
            }
        free(reqs);
    }
    return rc;
}
