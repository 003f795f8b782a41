/* Hierarchical Scan and Exscan: every node scans its ranks (the
 * control-block scan, inclusive or exclusive); the node's last rank,
 * which then knows the node's total, hands it to the leader; the leaders
 * run an exclusive scan of the node totals (the recursive-doubling
 * schedule of src/coll/nbc, which keeps rank order); every node but the
 * first broadcasts its prefix E from the leader, and each rank puts it in
 * front of its node result: E op (its node's prefix).
 *
 * Large vectors go through the chunk pipeline (pipeline.c): the leaders'
 * scan of chunk k is in flight while the node scans chunk k+1.
 *
 * That is rank order only when every node holds one range of ranks (the
 * ranks below r are whole nodes, then r's node peers below it); otherwise
 * even a commutative op would fold the wrong set, so interleaved nodes take
 * the flat schedule (SMAP_HIER_FLAT). */
#include "coll/hier/internal.h"

#include <stdlib.h>

#include "base/tunables.h"
#include "dtype/engine.h"
#include "mpi/op.h"

static int node_scan(struct smap_hier *h, const void *sbuf, void *rbuf, MPI_Count count,
                     smap_dtype_t *t, MPI_Datatype type, MPI_Op op, int exclusive)
{
    smap_comm_t *n = h->node;
    if (n->size == 1)   /* an exclusive scan of one rank leaves rbuf alone */
        return exclusive ? MPI_SUCCESS : hier_node_self(h, sbuf, count, t, rbuf, count, 0, t);
    return n->slot >= 0
               ? (smap_cb_scan(sbuf, rbuf, count, t, type, op, exclusive, n))
               : (smap_nbc_scan(sbuf, rbuf, count, t, type, op, exclusive, n, NULL));
}

static int apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype type)
{
    int rc = smap_op_apply(op, in, inout, count, type);
    return rc == MPI_SUCCESS ? rc : smap_fail(rc, "applying the op to the node prefix failed");
}

/* One hierarchical scan's state, for the pipeline's callbacks (chunk
 * [start, start+len) of every buffer). */
struct sc {
    struct smap_hier *h;
    const void *sbuf, *in;   /* sbuf as given (maybe MPI_IN_PLACE); the input */
    void *rbuf;
    void *tot;               /* the node's total: on its last rank, then its leader */
    void *pre;               /* the leaders' exclusive prefix E (nodes after the first) */
    void *lead_out;          /* where a leader's exscan writes: pre, or scratch on node 0 */
    smap_dtype_t *t;
    MPI_Datatype type;
    MPI_Op op;
    int exclusive, last, leader, first_node;
};

/* Chunk k: the node scan, the node total to the leader, the leaders'
 * exclusive scan of the totals started (*req). */
static int scan_front(void *arg, MPI_Count start, MPI_Count len, MPI_Request *req)
{
    struct sc *a = arg;
    smap_dtype_t *t = a->t;
    void *r = hier_at(a->rbuf, start, t), *tot = a->tot ? hier_at(a->tot, start, t) : NULL;
    *req = MPI_REQUEST_NULL;
    /* the last rank of an exclusive scan keeps its input (an in-place node
     * scan overwrites it): total = (its exclusive prefix) op input */
    if (a->last && a->exclusive)
        smap_dtype_copy(tot, len, t, hier_at(a->in, start, t), len, t);
    const void *sb = a->sbuf == MPI_IN_PLACE ? MPI_IN_PLACE : hier_at(a->sbuf, start, t);
    int rc = node_scan(a->h, sb, r, len, t, a->type, a->op, a->exclusive);
    if (rc == MPI_SUCCESS && a->last && a->exclusive && a->h->node->rank > 0)
        rc = apply(a->op, r, tot, len, a->type);
    if (rc == MPI_SUCCESS)
        rc = hier_node_move(a->h, tot, len, t, a->h->node->size - 1, 0);
    if (rc == MPI_SUCCESS && a->leader)
        rc = (smap_nbc_scan(tot, hier_at(a->lead_out, start, t), len, t, a->type,
                                         a->op, 1, a->h->lead, req));
    return rc;
}

/* Chunk k after its leaders' scan: E to the node, E op (node result). */
static int scan_back(void *arg, MPI_Count start, MPI_Count len)
{
    struct sc *a = arg;
    if (a->first_node)
        return MPI_SUCCESS;
    void *pre = hier_at(a->pre, start, a->t);
    int rc = hier_node_bcast(a->h, pre, len, a->t, 0);
    /* (an exclusive scan's leader: its prefix already is its result) */
    if (rc == MPI_SUCCESS && (!a->exclusive || !a->leader))
        rc = apply(a->op, pre, hier_at(a->rbuf, start, a->t), len, a->type);
    return rc;
}

int smap_hier_scan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                   MPI_Datatype type, MPI_Op op, int exclusive, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    if (!h->contiguous || (uint64_t)(count * t->size) < smap_tun.coll_hier_scan_min)
        return SMAP_HIER_FLAT;   /* small: recursive doubling over all ranks is fewer phases */
    if (count == 0)
        return MPI_SUCCESS;
    smap_comm_t *n = h->node;
    struct sc a = { .h = h, .sbuf = sbuf, .in = sbuf == MPI_IN_PLACE ? rbuf : sbuf,
                    .rbuf = rbuf, .t = t, .type = type, .op = op, .exclusive = exclusive,
                    .last = n->rank == n->size - 1, .leader = n->rank == 0,
                    .first_node = h->node_of[c->rank] == 0 };
    void *tbase = NULL, *pbase = NULL, *dbase = NULL;
    if (a.last && !exclusive)
        a.tot = rbuf;   /* the inclusive node scan ends in the total */
    else if (a.last || a.leader)
        a.tot = hier_tmp(count, t, &tbase);
    if (!a.first_node)
        a.pre = exclusive && a.leader ? rbuf : hier_tmp(count, t, &pbase);
    /* node 0's leader takes part but its result stays unset (MPI: rank
     * 0's exclusive scan is undefined): scratch there */
    if (a.leader)
        a.lead_out = a.first_node ? hier_tmp(count, t, &dbase) : a.pre;
    int rc = MPI_SUCCESS;
    if (((a.last || a.leader) && !a.tot) || (!a.first_node && !a.pre) ||
        (a.leader && !a.lead_out))
        rc = smap_fail(MPI_ERR_NO_MEM, "out of memory for the node total or prefix");
    struct hier_pipe p = { scan_front, scan_back, &a };
    if (rc == MPI_SUCCESS)
        rc = hier_pipeline(&p, count, t);
    free(tbase), free(pbase), free(dbase);
    return rc;
}
