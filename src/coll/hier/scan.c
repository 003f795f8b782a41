/* Hierarchical Scan and Exscan: every node scans its ranks (the
 * control-block scan, inclusive or exclusive); the node's last rank,
 * which then knows the node's total, hands it to the leader; the leaders
 * run an exclusive scan of the node totals (the recursive-doubling
 * schedule of src/coll/nbc, which keeps rank order); every node but the
 * first broadcasts its prefix E from the leader, and each rank puts it in
 * front of its node result: E op (its node's prefix).
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
               ? hier_fail_coll(smap_coll_scan(sbuf, rbuf, count, t, type, op, exclusive, n))
               : hier_fail_nbc(smap_nbc_scan(sbuf, rbuf, count, t, type, op, exclusive, n, NULL));
}

static int apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype type)
{
    int rc = smap_op_apply(op, in, inout, count, type);
    return rc == MPI_SUCCESS ? rc : hier_fail(rc, "applying the op to the node prefix failed");
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
    int lr = n->rank, last = n->rank == n->size - 1, leader = lr == 0;
    int first_node = h->node_of[c->rank] == 0;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    /* tot: the node's total (on its last rank, then on its leader);
     * pre: the leaders' exclusive prefix E, on nodes after the first */
    void *tbase = NULL, *pbase = NULL, *tot = NULL, *pre = NULL;
    if (last && !exclusive)
        tot = rbuf;   /* the inclusive node scan ends in the total */
    else if (last || leader)
        tot = hier_tmp(count, t, &tbase);
    if (!first_node)
        pre = exclusive && leader ? rbuf : hier_tmp(count, t, &pbase);
    if ((last || leader) && !tot) {
        free(tbase), free(pbase);
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the node total");
    }
    if (!first_node && !pre) {
        free(tbase), free(pbase);
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the node prefix");
    }
    /* the last rank of an exclusive scan keeps its input (an in-place node
     * scan overwrites it): total = (its exclusive prefix) op input */
    if (last && exclusive)
        smap_dtype_copy(tot, count, t, in, count, t);
    int rc = node_scan(h, sbuf, rbuf, count, t, type, op, exclusive);
    if (rc == MPI_SUCCESS && last && exclusive && lr > 0)
        rc = apply(op, rbuf, tot, count, type);
    if (rc == MPI_SUCCESS)
        rc = hier_node_move(h, tot, count, t, n->size - 1, 0);
    if (rc == MPI_SUCCESS && leader) {
        /* node 0's leader takes part but its result stays unset (MPI:
         * rank 0's exclusive scan is undefined): scratch there */
        void *dummy = NULL, *out = pre;
        if (!out)
            out = hier_tmp(count, t, &dummy);
        rc = out ? hier_fail_nbc(smap_nbc_scan(tot, out, count, t, type, op, 1, h->lead, NULL))
                 : hier_fail(MPI_ERR_NO_MEM, "out of memory for the node prefix");
        free(dummy);
    }
    if (rc == MPI_SUCCESS && !first_node)
        rc = hier_node_bcast(h, pre, count, t, 0);
    /* (an exclusive scan's leader: its prefix already is its result) */
    if (rc == MPI_SUCCESS && !first_node && (!exclusive || !leader))
        rc = apply(op, pre, rbuf, count, type);
    free(tbase), free(pbase);
    return rc;
}
