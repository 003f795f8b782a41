/* Hierarchical Reduce and Allreduce: each node folds its ranks onto its
 * leader (the control-block reduction, in rank order), the leaders fold
 * the nodes' partial results, the result goes to the root / back over
 * every node.  Nodes are ordered by their lowest rank and fold in that
 * order, so when every node holds one range of ranks the fold is in rank
 * order and any op is right; otherwise a non-commutative op takes the flat
 * schedule (SMAP_HIER_FLAT).
 *
 * Large vectors go in chunks (hier_chunk): the leaders' phase of chunk k
 * runs as a started schedule while the node folds chunk k+1, and the node
 * broadcast of chunk k waits only for chunk k.
 *
 * The leaders' allreduce (hier_lead_allreduce): recursive doubling, which
 * keeps rank order on any node count (the non-power-of-two rest folded
 * into pairs first), for small vectors and non-commutative ops; a ring
 * (reduce-scatter then allgather, bandwidth-optimal) for large vectors of
 * commutative ops.  The crossover is HIER_RING_MIN. */
#include "coll/hier/internal.h"

#include <stdlib.h>

/* Bytes from which the leaders' allreduce runs as a ring (commutative ops,
 * more than two nodes: with two, recursive doubling is one exchange and
 * moves the same bytes). */
#define HIER_RING_MIN (64 * 1024)

static int launch(struct smap_sched *s, MPI_Request *req)
{
    if (smap_sched_failed(s)) {
        smap_sched_free(s);
        return hier_fail(MPI_ERR_NO_MEM, "out of memory building the leaders' schedule");
    }
    int rc = smap_sched_start(s, req);
    return rc == MPI_SUCCESS ? rc : hier_fail(rc, "the leaders' schedule failed to start");
}

/* Real rank of `v` in the power-of-two set after folding the first 2 rem
 * ranks into pairs (the odd one of a pair stays). */
static int rd_real(int v, int rem)
{
    return v < rem ? 2 * v + 1 : v + rem;
}

static void add_recursive_doubling(struct smap_sched *s, void *buf, MPI_Count count,
                                   smap_dtype_t *t, MPI_Datatype type, MPI_Op op, void *tmp)
{
    smap_comm_t *c = smap_sched_comm(s);
    int n = c->size, r = c->rank, p = 1;
    while (p * 2 <= n)
        p *= 2;
    int rem = n - p, v;
    if (r < 2 * rem) {
        if (r & 1) {
            smap_sched_recv(s, tmp, count, t, r - 1);
            smap_sched_barrier(s);
            smap_sched_reduce(s, tmp, buf, count, t, type, op);   /* buf = lower op buf */
            v = r / 2;
        } else {
            smap_sched_send(s, buf, count, t, r + 1);
            smap_sched_barrier(s);
            v = -1;
        }
    } else {
        v = r - rem;
    }
    if (v >= 0)
        for (int mask = 1; mask < p; mask <<= 1) {
            int peer = rd_real(v ^ mask, rem);
            smap_sched_send(s, buf, count, t, peer);
            smap_sched_recv(s, tmp, count, t, peer);
            smap_sched_barrier(s);
            if (peer < r) {
                smap_sched_reduce(s, tmp, buf, count, t, type, op);   /* buf = peer op buf */
            } else {
                smap_sched_reduce(s, buf, tmp, count, t, type, op);   /* tmp = buf op peer */
                smap_sched_copy(s, tmp, count, t, buf, count, t);
            }
        }
    if (r < 2 * rem) {
        if (r & 1)
            smap_sched_send(s, buf, count, t, r - 1);
        else
            smap_sched_recv(s, buf, count, t, r + 1);
        smap_sched_barrier(s);
    }
}

/* Segment i of n over count elements: [*off, *off + *len). */
static void ring_seg(MPI_Count count, int n, int i, MPI_Count *off, MPI_Count *len)
{
    MPI_Count q = count / n, extra = count % n;
    *off = i * q + (i < extra ? i : extra);
    *len = q + (i < extra);
}

static void add_ring(struct smap_sched *s, void *buf, MPI_Count count, smap_dtype_t *t,
                     MPI_Datatype type, MPI_Op op, void *tmp)
{
    smap_comm_t *c = smap_sched_comm(s);
    int n = c->size, r = c->rank, right = (r + 1) % n, left = (r + n - 1) % n;
    MPI_Count off, len, roff, rlen;
    /* reduce-scatter: after step j, rank r holds segment r-j-1 folded over
     * ranks r-j-1 .. r; after n-1 steps segment r+1 is complete here */
    for (int j = 0; j < n - 1; j++) {
        ring_seg(count, n, (r - j + n) % n, &off, &len);
        ring_seg(count, n, (r - j - 1 + 2 * n) % n, &roff, &rlen);
        smap_sched_send(s, hier_at(buf, off, t), len, t, right);
        smap_sched_recv(s, tmp, rlen, t, left);
        smap_sched_barrier(s);
        smap_sched_reduce(s, tmp, hier_at(buf, roff, t), rlen, t, type, op);
    }
    /* allgather of the complete segments around the same ring */
    for (int j = 0; j < n - 1; j++) {
        ring_seg(count, n, (r + 1 - j + n) % n, &off, &len);
        ring_seg(count, n, (r - j + n) % n, &roff, &rlen);
        smap_sched_send(s, hier_at(buf, off, t), len, t, right);
        smap_sched_recv(s, hier_at(buf, roff, t), rlen, t, left);
        smap_sched_barrier(s);
    }
}

int hier_lead_allreduce(struct smap_hier *h, void *buf, MPI_Count count, smap_dtype_t *t,
                        MPI_Datatype type, MPI_Op op, MPI_Request *req)
{
    *req = MPI_REQUEST_NULL;
    smap_comm_t *l = h->lead;
    if (l->size == 1 || count == 0)
        return MPI_SUCCESS;
    struct smap_sched *s = smap_sched_new(l);
    if (!s)
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the leaders' schedule");
    int ring = l->size > 2 && count >= l->size && hier_commutative(op) &&
               (MPI_Count)count * t->size >= HIER_RING_MIN;
    MPI_Count tmpn = ring ? (count + l->size - 1) / l->size : count;
    void *tmp = smap_sched_tmp_typed(s, tmpn, t);
    if (tmp) {
        if (ring)
            add_ring(s, buf, count, t, type, op, tmp);
        else
            add_recursive_doubling(s, buf, count, t, type, op, tmp);
    }
    return launch(s, req);
}

/* Leaders' reduction of chunk `buf` onto the leader of node `rootn`
 * (in place there), started in *req: the binomial schedule of
 * src/coll/nbc, in rank order. */
static int lead_reduce(struct smap_hier *h, void *buf, MPI_Count count, smap_dtype_t *t,
                       MPI_Datatype type, MPI_Op op, int rootn, MPI_Request *req)
{
    *req = MPI_REQUEST_NULL;
    smap_comm_t *l = h->lead;
    if (l->size == 1 || count == 0)
        return MPI_SUCCESS;
    const void *in = l->rank == rootn ? MPI_IN_PLACE : buf;
    return hier_fail_nbc(smap_nbc_reduce(in, buf, count, t, type, op, rootn, l, req));
}

/* The input of this rank's node phase: the send buffer, or with
 * MPI_IN_PLACE the receive buffer (`root_in_place`: this rank is the node
 * phase's root, which reads its input from rbuf itself). */
static const void *node_in(const void *sbuf, int in_place, int node_root)
{
    return in_place && node_root ? MPI_IN_PLACE : sbuf;
}

int smap_hier_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                        MPI_Datatype type, MPI_Op op, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    if (!h->contiguous && !hier_commutative(op))
        return SMAP_HIER_FLAT;
    if (count == 0)
        return MPI_SUCCESS;
    int in_place = sbuf == MPI_IN_PLACE, leader = hier_is_leader(h);
    MPI_Count ce = hier_chunk(t), nchunks = (count + ce - 1) / ce;
    MPI_Request prev = MPI_REQUEST_NULL;
    MPI_Count pstart = 0, plen = 0;
    int rc = MPI_SUCCESS;
    for (MPI_Count k = 0; k <= nchunks && rc == MPI_SUCCESS; k++) {
        MPI_Request cur = MPI_REQUEST_NULL;
        MPI_Count start = k * ce, len = count - start < ce ? count - start : ce;
        if (k < nchunks) {
            /* chunk k folds on the node while chunk k-1 crosses nodes */
            const void *in = in_place ? hier_at(rbuf, start, t) : hier_at(sbuf, start, t);
            rc = hier_node_reduce(h, node_in(in, in_place, leader), hier_at(rbuf, start, t),
                                  len, t, type, op, 0);
            if (rc == MPI_SUCCESS && leader)
                rc = hier_lead_allreduce(h, hier_at(rbuf, start, t), len, t, type, op, &cur);
        }
        if (k > 0 && rc == MPI_SUCCESS) {
            if (leader)
                rc = hier_wait(&prev);
            if (rc == MPI_SUCCESS)
                rc = hier_node_bcast(h, hier_at(rbuf, pstart, t), plen, t, 0);
        }
        prev = cur;
        pstart = start;
        plen = len;
    }
    if (prev != MPI_REQUEST_NULL)
        (void)hier_wait(&prev);
    return rc;
}

int smap_hier_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                     MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    if (!h->contiguous && !hier_commutative(op))
        return SMAP_HIER_FLAT;
    if (count == 0)
        return MPI_SUCCESS;
    int me = c->rank, in_place = sbuf == MPI_IN_PLACE, leader = hier_is_leader(h);
    int rootn = h->node_of[root], rootl = h->local_of[root];
    int on_root_node = h->node_of[me] == rootn;
    /* the leaders fold into: the root's buffer when the root leads, else
     * scratch (a leader that is not the root) */
    void *base = NULL, *acc = rbuf;
    if (leader && me != root) {
        acc = hier_tmp(count, t, &base);
        if (!acc)
            return hier_fail(MPI_ERR_NO_MEM, "out of memory for the leader's partial result");
    }
    /* this rank's input: with MPI_IN_PLACE (only the root) in rbuf */
    const void *mine = in_place ? rbuf : sbuf;
    MPI_Count ce = hier_chunk(t), nchunks = (count + ce - 1) / ce;
    MPI_Request prev = MPI_REQUEST_NULL;
    MPI_Count pstart = 0, plen = 0;
    int rc = MPI_SUCCESS;
    for (MPI_Count k = 0; k <= nchunks && rc == MPI_SUCCESS; k++) {
        MPI_Request cur = MPI_REQUEST_NULL;
        MPI_Count start = k * ce, len = count - start < ce ? count - start : ce;
        if (k < nchunks) {
            const void *in = hier_at(mine, start, t);
            rc = hier_node_reduce(h, leader && acc == rbuf && in_place ? MPI_IN_PLACE : in,
                                  hier_at(acc, start, t), len, t, type, op, 0);
            if (rc == MPI_SUCCESS && leader)
                rc = lead_reduce(h, hier_at(acc, start, t), len, t, type, op, rootn, &cur);
        }
        if (k > 0 && rc == MPI_SUCCESS) {
            if (leader)
                rc = hier_wait(&prev);
            /* the root's leader hands the chunk to the root */
            if (rc == MPI_SUCCESS && on_root_node && rootl != 0)
                rc = hier_node_move(h, hier_at(me == root ? rbuf : acc, pstart, t), plen, t, 0,
                                    rootl);
        }
        prev = cur;
        pstart = start;
        plen = len;
    }
    if (prev != MPI_REQUEST_NULL)
        (void)hier_wait(&prev);
    free(base);
    return rc;
}
