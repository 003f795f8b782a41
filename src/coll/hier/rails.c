/* Rails: the inter-node phase of a large Bcast spread over every rank of
 * a node instead of one leader.  Rail q is the q-th rank of every node; a
 * message is cut into P pieces (P: the members of the smallest node) and
 * piece q crosses the nodes on rail q only.  A leader alone is a single
 * stream through one rank's CPU and socket; on rails the k ranks of a node
 * move 1/k of the bytes each, at once (multi-leader collectives).  The
 * on-node phases are the same control-block algorithms as the leaders':
 * the root's node broadcasts from the root, every other node gathers its
 * rails' pieces in place (an on-node allgatherv).  Here: Bcast and the
 * pieces' arithmetic; Allgather(v)'s rails are in allgather.c, Ibcast's
 * in nbc.c (one schedule, no control blocks). */
#include "coll/hier/internal.h"

#include <stdlib.h>

int hier_rails_width(const struct smap_hier *h)
{
    int p = hier_node_size(h, 0);
    for (int x = 1; x < h->nnodes; x++)
        if (hier_node_size(h, x) < p)
            p = hier_node_size(h, x);
    return p;
}

MPI_Count hier_piece_lo(MPI_Count len, int q, int p)
{
    return len / p * q + (len % p) * q / p;
}

/* Appends piece q's binomial tree over the nodes, rooted at node rootn,
 * to s: a node's rank on rail q receives from its parent, then sends to
 * its children. */
static void rail_tree(struct smap_sched *s, const struct smap_hier *h, int rootn, int q,
                      void *piece, MPI_Count n, smap_dtype_t *t)
{
    int nn = h->nnodes, x = h->node_of[smap_sched_comm(s)->rank];
    int rel = (x - rootn + nn) % nn, mask = hier_tree_mask(rel, nn);
    if (rel) {
        smap_sched_recv(s, piece, n, t, hier_rank_at(h, (x - mask + nn) % nn, q));
        smap_sched_barrier(s);
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < nn)
            smap_sched_send(s, piece, n, t, hier_rank_at(h, (x + mask) % nn, q));
}

struct bc {
    struct smap_hier *h;
    smap_comm_t *c;
    void *buf;
    smap_dtype_t *t;
    int root, rootn, p;
    MPI_Count *cnt, *dsp;   /* the node's allgatherv of the pieces, by rank in the node */
};

static int bc_front(void *arg, MPI_Count start, MPI_Count len, MPI_Request *req)
{
    struct bc *b = arg;
    struct smap_hier *h = b->h;
    void *chunk = hier_at(b->buf, start, b->t);
    int rc = MPI_SUCCESS;
    if (h->node_of[b->c->rank] == b->rootn)
        rc = hier_node_bcast(h, chunk, len, b->t, h->local_of[b->root]);
    if (rc != MPI_SUCCESS)
        return rc;
    /* every member runs the schedule (empty off the rails), so that c's
     * schedule numbers stay equal on all */
    struct smap_sched *s = smap_sched_new(b->c);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the rails' schedule");
    int q = h->node->rank;
    if (q < b->p) {
        MPI_Count lo = hier_piece_lo(len, q, b->p), hi = hier_piece_lo(len, q + 1, b->p);
        rail_tree(s, h, b->rootn, q, hier_at(chunk, lo, b->t), hi - lo, b->t);
    }
    return hier_launch(s, req);
}

static int bc_back(void *arg, MPI_Count start, MPI_Count len)
{
    struct bc *b = arg;
    struct smap_hier *h = b->h;
    if (h->node_of[b->c->rank] == b->rootn)
        return MPI_SUCCESS;
    for (int j = 0; j < b->p; j++) {
        b->dsp[j] = hier_piece_lo(len, j, b->p);
        b->cnt[j] = hier_piece_lo(len, j + 1, b->p) - b->dsp[j];
    }
    return hier_node_allgatherv(h, MPI_IN_PLACE, 0, b->t, hier_at(b->buf, start, b->t), b->cnt,
                                b->dsp, b->t);
}

int hier_bcast_rails(struct smap_hier *h, smap_comm_t *c, void *buf, MPI_Count count,
                     smap_dtype_t *t, int root)
{
    int k = h->node->size;
    MPI_Count *v = calloc(2 * (size_t)k, sizeof *v);
    if (!v)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the rails' pieces");
    struct bc b = { h, c, buf, t, root, h->node_of[root], hier_rails_width(h), v, v + k };
    struct hier_pipe p = { bc_front, bc_back, &b };
    int rc = hier_pipeline(&p, count, t);
    free(v);
    return rc;
}
