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
 * The leaders' allreduce (hier_add_lead_allreduce, also Iallreduce's):
 * recursive doubling, which keeps rank order on any node count (the
 * non-power-of-two rest folded into pairs first), for small vectors and
 * two or three nodes; Rabenseifner (reduce-scatter by recursive halving,
 * allgather by recursive doubling: the ring's bytes in 2 log2(p) steps,
 * rank order kept) for large vectors on four nodes or more; a ring for
 * large vectors of commutative ops on three nodes.  The crossovers are
 * SMAP_COLL_HIER_RABENSEIFNER_MIN and SMAP_COLL_HIER_RING_MIN. */
#include "coll/hier/internal.h"

#include <stdlib.h>

#include "base/tunables.h"

/* Real rank of `v` in the power-of-two set after folding the first 2 rem
 * ranks into pairs (the odd one of a pair stays). */
static int rd_real(int v, int rem)
{
    return v < rem ? 2 * v + 1 : v + rem;
}

#define RANK(v) (ranks ? ranks[v] : (v))

/* The power-of-two set's size p and the fold of the first 2 rem = 2(n-p)
 * members into pairs: the even one of a pair sends its vector to the odd
 * one, which folds it below its own (rank order) and stands for both as
 * member r/2 of the set.  The returned index in the set; -1 for the even
 * ones, who wait for the result (fold_back). */
static int fold_in(struct smap_sched *s, int n, int r, const int *ranks, void *buf,
                   MPI_Count count, smap_dtype_t *t, MPI_Datatype type, MPI_Op op, void *tmp,
                   int *pp)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    *pp = p;
    int rem = n - p;
    if (r >= 2 * rem)
        return r - rem;
    if (r & 1) {
        smap_sched_recv(s, tmp, count, t, RANK(r - 1));
        smap_sched_barrier(s);
        smap_sched_reduce(s, tmp, buf, count, t, type, op);   /* buf = lower op buf */
        return r / 2;
    }
    smap_sched_send(s, buf, count, t, RANK(r + 1));
    smap_sched_barrier(s);
    return -1;
}

static void fold_back(struct smap_sched *s, int n, int p, int r, const int *ranks, void *buf,
                      MPI_Count count, smap_dtype_t *t)
{
    if (r >= 2 * (n - p))
        return;
    if (r & 1)
        smap_sched_send(s, buf, count, t, RANK(r - 1));
    else
        smap_sched_recv(s, buf, count, t, RANK(r + 1));
    smap_sched_barrier(s);
}

/* in place: mine = lower op upper, where the peer's part (in tmp) is the
 * lower one when `peer_lower`; the copy back only when the op cannot be
 * swapped. */
static void fold_pair(struct smap_sched *s, void *mine, void *tmp, MPI_Count count,
                      smap_dtype_t *t, MPI_Datatype type, MPI_Op op, int peer_lower)
{
    if (peer_lower || hier_commutative(op)) {
        smap_sched_reduce(s, tmp, mine, count, t, type, op);   /* mine = peer op mine */
    } else {
        smap_sched_reduce(s, mine, tmp, count, t, type, op);   /* tmp = mine op peer */
        smap_sched_copy(s, tmp, count, t, mine, count, t);
    }
}

static void add_recursive_doubling(struct smap_sched *s, int n, int r, const int *ranks,
                                   void *buf, MPI_Count count, smap_dtype_t *t,
                                   MPI_Datatype type, MPI_Op op, void *tmp)
{
    int p, v = fold_in(s, n, r, ranks, buf, count, t, type, op, tmp, &p), rem = n - p;
    if (v >= 0)
        for (int mask = 1; mask < p; mask <<= 1) {
            int peer = rd_real(v ^ mask, rem);
            smap_sched_send(s, buf, count, t, RANK(peer));
            smap_sched_recv(s, tmp, count, t, RANK(peer));
            smap_sched_barrier(s);
            fold_pair(s, buf, tmp, count, t, type, op, peer < r);
        }
    fold_back(s, n, p, r, ranks, buf, count, t);
}

/* Rabenseifner: a reduce-scatter by recursive halving, then an allgather
 * by recursive doubling, over the power-of-two set (the rest folded in
 * pairs first, as above).  The vector is cut into p segments (element
 * counts, hier_piece_lo).  Halving runs the distances 1, 2, .., p/2, so
 * before the step at distance m a member's partial covers the aligned
 * block of m members around it (a contiguous run of the set) and its
 * peer's the adjacent block: "lower op upper" keeps rank order for any op,
 * so non-commutative ops may take it (the ring may not).  At each step a
 * member keeps the lower half of its segment range when its bit is 0, sends the
 * other half and folds what it receives into the kept one; it ends with
 * one segment (its index bit-reversed), complete.  The allgather retraces
 * the steps from distance p/2 down.  Each member sends 2(p-1)/p of the
 * vector in 2 log2(p) steps: recursive doubling's log2(p) steps carry
 * log2(p) whole vectors, the ring's 2(n-1) steps the same bytes as this. */
static void add_rabenseifner(struct smap_sched *s, int n, int r, const int *ranks, void *buf,
                             MPI_Count count, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                             void *tmp)
{
    int p, v = fold_in(s, n, r, ranks, buf, count, t, type, op, tmp, &p), rem = n - p;
    if (v >= 0) {
        int lo = 0, hi = p;   /* this member's segments: [lo, hi) */
        for (int mask = 1; mask < p; mask <<= 1) {
            int half = (hi - lo) / 2, upper = (v & mask) != 0;
            int klo = upper ? lo + half : lo, slo = upper ? lo : lo + half;
            MPI_Count ko = hier_piece_lo(count, klo, p);
            MPI_Count kn = hier_piece_lo(count, klo + half, p) - ko;
            MPI_Count so = hier_piece_lo(count, slo, p);
            MPI_Count sn = hier_piece_lo(count, slo + half, p) - so;
            int peer = rd_real(v ^ mask, rem);
            smap_sched_send(s, hier_at(buf, so, t), sn, t, RANK(peer));
            smap_sched_recv(s, tmp, kn, t, RANK(peer));
            smap_sched_barrier(s);
            fold_pair(s, hier_at(buf, ko, t), tmp, kn, t, type, op, upper);
            lo = klo;
            hi = klo + half;
        }
        for (int mask = p / 2; mask >= 1; mask >>= 1) {
            int w = hi - lo, upper = (v & mask) != 0;
            int plo = upper ? lo - w : hi;   /* the peer's segments: adjacent */
            MPI_Count mo = hier_piece_lo(count, lo, p), mn = hier_piece_lo(count, hi, p) - mo;
            MPI_Count po = hier_piece_lo(count, plo, p), pn = hier_piece_lo(count, plo + w, p) - po;
            int peer = rd_real(v ^ mask, rem);
            smap_sched_send(s, hier_at(buf, mo, t), mn, t, RANK(peer));
            smap_sched_recv(s, hier_at(buf, po, t), pn, t, RANK(peer));
            smap_sched_barrier(s);
            if (upper)
                lo = plo;
            else
                hi = plo + w;
        }
    }
    fold_back(s, n, p, r, ranks, buf, count, t);
}

/* Segment i of n over count elements: [*off, *off + *len). */
static void ring_seg(MPI_Count count, int n, int i, MPI_Count *off, MPI_Count *len)
{
    MPI_Count q = count / n, extra = count % n;
    *off = i * q + (i < extra ? i : extra);
    *len = q + (i < extra);
}

static void add_ring(struct smap_sched *s, int n, int r, const int *ranks, void *buf,
                     MPI_Count count, smap_dtype_t *t, MPI_Datatype type, MPI_Op op, void *tmp)
{
    int right = RANK((r + 1) % n), left = RANK((r + n - 1) % n);
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
#undef RANK

void hier_add_lead_allreduce(struct smap_sched *s, int n, int r, const int *ranks, void *buf,
                             MPI_Count count, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                             void *tmp)
{
    uint64_t bytes = (uint64_t)(count * t->size);
    int split = count >= n;   /* every segment holds an element */
    if (split && n >= 4 && bytes >= smap_tun.coll_hier_rabenseifner_min)
        add_rabenseifner(s, n, r, ranks, buf, count, t, type, op, tmp);
    else if (split && n > 2 && hier_commutative(op) && bytes >= smap_tun.coll_hier_ring_min)
        add_ring(s, n, r, ranks, buf, count, t, type, op, tmp);
    else
        add_recursive_doubling(s, n, r, ranks, buf, count, t, type, op, tmp);
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
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the leaders' schedule");
    void *tmp = smap_sched_tmp_typed(s, count, t);
    if (tmp)
        hier_add_lead_allreduce(s, l->size, l->rank, NULL, buf, count, t, type, op, tmp);
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
    return (smap_nbc_reduce(in, buf, count, t, type, op, rootn, l, req));
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
            return smap_fail(MPI_ERR_NO_MEM, "out of memory for the leader's partial result");
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
