/* Hierarchical Reduce and Allreduce: each node folds its ranks onto its
 * leader (the control-block reduction, in rank order), the leaders fold
 * the nodes' partial results, the result goes to the root / back over
 * every node.  Nodes are ordered by their lowest rank and fold in that
 * order, so when every node holds one range of ranks the fold is in rank
 * order and any op is right; otherwise a non-commutative op takes the flat
 * schedule (SMAP_HIER_FLAT).
 *
 * Large vectors go through the chunk pipeline (pipeline.c): the leaders'
 * phase of chunk k runs as a started schedule while the node folds chunk
 * k+1, and the node broadcast of chunk k waits only for chunk k.
 *
 * The leaders' allreduce (hier_lead_allreduce): recursive doubling, which
 * keeps rank order on any node count (the non-power-of-two rest folded
 * into pairs first), for small vectors and non-commutative ops; a ring
 * (reduce-scatter then allgather, bandwidth-optimal) for large vectors of
 * commutative ops on three nodes or more (with two, recursive doubling is
 * one exchange and moves the same bytes).  The crossover is
 * SMAP_COLL_HIER_RING_MIN. */
#include "coll/hier/internal.h"

#include <stdlib.h>

#include "base/tunables.h"

/* Real rank of `v` in the power-of-two set after folding the first 2 rem
 * ranks into pairs (the odd one of a pair stays). */
static int rd_real(int v, int rem)
{
    return v < rem ? 2 * v + 1 : v + rem;
}

void hier_add_recursive_doubling(struct smap_sched *s, int n, int r, const int *ranks,
                                 void *buf, MPI_Count count, smap_dtype_t *t, MPI_Datatype type,
                                 MPI_Op op, void *tmp)
{
#define RANK(v) (ranks ? ranks[v] : (v))
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    int rem = n - p, v;
    if (r < 2 * rem) {
        if (r & 1) {
            smap_sched_recv(s, tmp, count, t, RANK(r - 1));
            smap_sched_barrier(s);
            smap_sched_reduce(s, tmp, buf, count, t, type, op);   /* buf = lower op buf */
            v = r / 2;
        } else {
            smap_sched_send(s, buf, count, t, RANK(r + 1));
            smap_sched_barrier(s);
            v = -1;
        }
    } else {
        v = r - rem;
    }
    if (v >= 0)
        for (int mask = 1; mask < p; mask <<= 1) {
            int peer = rd_real(v ^ mask, rem);
            smap_sched_send(s, buf, count, t, RANK(peer));
            smap_sched_recv(s, tmp, count, t, RANK(peer));
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
            smap_sched_send(s, buf, count, t, RANK(r - 1));
        else
            smap_sched_recv(s, buf, count, t, RANK(r + 1));
        smap_sched_barrier(s);
    }
}
#undef RANK

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
               (uint64_t)(count * t->size) >= smap_tun.coll_hier_ring_min;
    MPI_Count tmpn = ring ? (count + l->size - 1) / l->size : count;
    void *tmp = smap_sched_tmp_typed(s, tmpn, t);
    if (tmp) {
        if (ring)
            add_ring(s, buf, count, t, type, op, tmp);
        else
            hier_add_recursive_doubling(s, l->size, l->rank, NULL, buf, count, t, type, op, tmp);
    }
    return hier_launch(s, req);
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

/* One hierarchical reduction's arguments, for the pipeline callbacks. */
struct red {
    struct smap_hier *h;
    const void *mine;   /* this rank's input (rbuf with MPI_IN_PLACE) */
    void *acc;          /* where the node phase folds to (the leader's result) */
    void *rbuf;
    smap_dtype_t *t;
    MPI_Datatype type;
    MPI_Op op;
    int in_place;       /* the leader (node root) reads its input from acc itself */
    int rootn, rootl, on_root_node;
};

/* Chunk [start, start+len): fold it on the node onto the leader. */
static int red_node(struct red *a, MPI_Count start, MPI_Count len)
{
    const void *in = a->in_place && hier_is_leader(a->h) ? MPI_IN_PLACE
                                                         : hier_at(a->mine, start, a->t);
    return hier_node_reduce(a->h, in, hier_at(a->acc, start, a->t), len, a->t, a->type, a->op,
                            0);
}

static int allreduce_front(void *arg, MPI_Count start, MPI_Count len, MPI_Request *req)
{
    struct red *a = arg;
    int rc = red_node(a, start, len);
    if (rc == MPI_SUCCESS && hier_is_leader(a->h))
        rc = hier_lead_allreduce(a->h, hier_at(a->acc, start, a->t), len, a->t, a->type, a->op,
                                 req);
    return rc;
}

static int allreduce_back(void *arg, MPI_Count start, MPI_Count len)
{
    struct red *a = arg;
    return hier_node_bcast(a->h, hier_at(a->rbuf, start, a->t), len, a->t, 0);
}

int smap_hier_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                        MPI_Datatype type, MPI_Op op, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    if (!h->contiguous && !hier_commutative(op))
        return SMAP_HIER_FLAT;
    if (count == 0)
        return MPI_SUCCESS;
    int in_place = sbuf == MPI_IN_PLACE;
    struct red a = { .h = h, .mine = in_place ? rbuf : sbuf, .acc = rbuf, .rbuf = rbuf, .t = t,
                     .type = type, .op = op, .in_place = in_place };
    struct hier_pipe p = { allreduce_front, allreduce_back, &a };
    return hier_pipeline(&p, count, t);
}

static int reduce_front(void *arg, MPI_Count start, MPI_Count len, MPI_Request *req)
{
    struct red *a = arg;
    int rc = red_node(a, start, len);
    if (rc == MPI_SUCCESS && hier_is_leader(a->h))
        rc = lead_reduce(a->h, hier_at(a->acc, start, a->t), len, a->t, a->type, a->op, a->rootn,
                         req);
    return rc;
}

/* The root's leader hands the chunk to the root. */
static int reduce_back(void *arg, MPI_Count start, MPI_Count len)
{
    struct red *a = arg;
    if (!a->on_root_node || a->rootl == 0)
        return MPI_SUCCESS;
    void *at = hier_at(a->h->node->rank == a->rootl ? a->rbuf : a->acc, start, a->t);
    return hier_node_move(a->h, at, len, a->t, 0, a->rootl);
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
    /* the leaders fold into: the root's buffer when the root leads, else
     * scratch (a leader that is not the root) */
    void *base = NULL, *acc = rbuf;
    if (leader && me != root) {
        acc = hier_tmp(count, t, &base);
        if (!acc)
            return hier_fail(MPI_ERR_NO_MEM, "out of memory for the leader's partial result");
    }
    struct red a = { .h = h, .mine = in_place ? rbuf : sbuf, .acc = acc, .rbuf = rbuf, .t = t,
                     .type = type, .op = op, .in_place = in_place && leader && acc == rbuf,
                     .rootn = h->node_of[root], .rootl = h->local_of[root],
                     .on_root_node = h->node_of[me] == h->node_of[root] };
    struct hier_pipe p = { reduce_front, reduce_back, &a };
    int rc = hier_pipeline(&p, count, t);
    free(base);
    return rc;
}
