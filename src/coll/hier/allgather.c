/* Hierarchical Allgather(v): every node first gathers its own ranks'
 * blocks on every member (the on-node allgather: SMARTMAP reads of the
 * peers' buffers when the node sub-communicator has a control block), the
 * leaders then exchange their nodes' blocks (one round: each leader sends
 * its node's blocks to every other leader, one message per run of blocks
 * adjacent in the receive buffer: one per node pair when the node holds
 * one range of ranks), and each leader broadcasts what it received to its
 * node, which reads it straight from the leader's receive buffer.
 *
 * From SMAP_COLL_HIER_ALLGATHER_RAILS_MIN bytes in all, the exchange
 * runs on rails (rails.c) instead: node x's data for node b is cut into min(|x|, |b|)
 * pieces, piece q sent by x's member (q + b) mod |x| to b's member
 * (q + x) mod |b| (rotated by the node indices, so that uneven nodes
 * spread the work too), and each node broadcasts every piece from the
 * member that received it.
 *
 * Large: the exchange and the share are pipelined (pipeline.c) over
 * chunks of SMAP_COLL_HIER_CHUNK bytes of each node's blocks: chunk k
 * crosses the nodes while chunk k-1 is broadcast on the node.
 *
 * Iallgather(v) on rails (hier_iallgather_rails) runs the same three
 * phases as one schedule on c, with on-node messages for the node phases;
 * large ones in lanes (one schedule per chunk, chunk k's exchange beside
 * chunk k-1's share), the non-blocking form of the pipeline.
 *
 * Any placement: a node's blocks go as runs of blocks that are adjacent in
 * the receive buffer, computed alike on every leader, so interleaved ranks
 * cost more messages, never a wrong block.  Blocks keep the receive
 * displacements, so Allgatherv reuses the whole structure. */
#include "coll/hier/internal.h"

#include <stdlib.h>

#include "base/tunables.h"

/* One allgather(v): the receive side and c's node map (the blocking
 * form's smap_hier, or the non-blocking form's, built in its schedule). */
struct ag {
    smap_comm_t *c;
    void *rbuf;
    MPI_Count rcount;
    struct smap_cvec rcounts, displs;
    smap_dtype_t *rt;
    int nn;
    const int *node_of, *node_start, *rank_at;   /* as in struct smap_hier */
    struct smap_hier *h;   /* the blocking form's (its node phases); NULL otherwise */
};

static int ag_node_size(const struct ag *a, int x)
{
    return a->node_start[x + 1] - a->node_start[x];
}

static int ag_rank_at(const struct ag *a, int x, int q)
{
    return a->rank_at[a->node_start[x] + q];
}

static MPI_Count ag_count(const struct ag *a, int i)
{
    return a->rcounts.p ? smap_cvec_at(a->rcounts, i) : a->rcount;
}

static MPI_Count ag_displ(const struct ag *a, int i)
{
    return a->displs.p ? smap_cvec_at(a->displs, i) : (MPI_Count)i * a->rcount;
}

/* Calls fn(arg, displ, count) for each run of the non-empty blocks of the
 * ranks i with in(i) (node_of[i] == node, or != node when `other`), in
 * rank order, merged while each block starts where the previous ended. */
typedef int run_fn(void *arg, MPI_Count displ, MPI_Count count);
static int ag_runs(const struct ag *a, int node, int other, run_fn *fn, void *arg)
{
    MPI_Count rd = 0, rn = 0;
    int rc = MPI_SUCCESS;
    for (int i = 0; i < a->c->size && rc == MPI_SUCCESS; i++) {
        if ((a->node_of[i] == node) == other)
            continue;
        MPI_Count n = ag_count(a, i), d = ag_displ(a, i);
        if (n == 0)
            continue;
        if (rn > 0 && d == rd + rn) {
            rn += n;
            continue;
        }
        if (rn > 0)
            rc = fn(arg, rd, rn);
        rd = d, rn = n;
    }
    if (rc == MPI_SUCCESS && rn > 0)
        rc = fn(arg, rd, rn);
    return rc;
}

struct lead_arg {
    const struct ag *a;
    struct smap_sched *s;
    int peer;   /* rank in the leaders' communicator */
};

static int lead_send(void *arg, MPI_Count d, MPI_Count n)
{
    struct lead_arg *l = arg;
    return smap_sched_send(l->s, hier_at(l->a->rbuf, d, l->a->rt), n, l->a->rt, l->peer);
}

static int lead_recv(void *arg, MPI_Count d, MPI_Count n)
{
    struct lead_arg *l = arg;
    return smap_sched_recv(l->s, hier_at(l->a->rbuf, d, l->a->rt), n, l->a->rt, l->peer);
}

struct clip {
    MPI_Count lo, hi, at;   /* the part wanted, where this run starts (elements in run order) */
    run_fn *fn;
    void *arg;
};

static int clip_run(void *arg, MPI_Count d, MPI_Count n)
{
    struct clip *k = arg;
    MPI_Count a = k->at, b = a + n;
    k->at = b;
    a = a > k->lo ? a : k->lo;
    b = b < k->hi ? b : k->hi;
    return a < b ? k->fn(k->arg, d + (a - (k->at - n)), b - a) : MPI_SUCCESS;
}

static MPI_Count ag_node_total(const struct ag *a, int x)
{
    MPI_Count total = 0;
    for (int i = 0; i < a->c->size; i++)
        if (a->node_of[i] == x)
            total += ag_count(a, i);
    return total;
}

/* Calls fn for the part of piece q of p of node x's blocks (their runs,
 * in rank order, cut by element count) that lies in the chunk [lo, hi)
 * of those elements. */
static int ag_part(const struct ag *a, int x, int q, int p, MPI_Count lo, MPI_Count hi,
                   run_fn *fn, void *arg)
{
    MPI_Count total = ag_node_total(a, x), plo = hier_piece_lo(total, q, p);
    MPI_Count phi = hier_piece_lo(total, q + 1, p);
    struct clip k = { plo > lo ? plo : lo, phi < hi ? phi : hi, 0, fn, arg };
    return k.lo < k.hi ? ag_runs(a, x, 0, clip_run, &k) : MPI_SUCCESS;
}

static int min_int(int u, int v)
{
    return u < v ? u : v;
}

/* The leaders' exchange of the chunk [lo, hi) of their nodes' blocks,
 * started in *req. */
static int ag_leaders(const struct ag *a, MPI_Count lo, MPI_Count hi, MPI_Request *req)
{
    *req = MPI_REQUEST_NULL;
    smap_comm_t *l = a->h->lead;
    if (l->size == 1)
        return MPI_SUCCESS;
    struct smap_sched *s = smap_sched_new(l);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the leaders' schedule");
    /* leader rank j of the leaders' communicator leads node j (both are
     * numbered by the lowest rank of the node) */
    for (int d = 1; d < l->size; d++) {
        struct lead_arg to = { a, s, (l->rank + d) % l->size };
        struct lead_arg from = { a, s, (l->rank - d + l->size) % l->size };
        ag_part(a, l->rank, 0, 1, lo, hi, lead_send, &to);
        ag_part(a, from.peer, 0, 1, lo, hi, lead_recv, &from);
    }
    return hier_launch(s, req);
}

/* The rails' exchange of the chunk [lo, hi) of the nodes' blocks (see
 * the top), appended to s (a schedule on c) for member j of node x's kx. */
static void ag_rails_add(const struct ag *a, struct smap_sched *s, int x, int j, int kx,
                         MPI_Count lo, MPI_Count hi)
{
    int nn = a->nn;
    for (int d = 1; d < nn; d++) {
        int b = (x + d) % nn, kb = ag_node_size(a, b), p = min_int(kx, kb);
        for (int q = 0; q < p; q++)
            if ((q + b) % kx == j) {
                struct lead_arg to = { a, s, ag_rank_at(a, b, (q + x) % kb) };
                ag_part(a, x, q, p, lo, hi, lead_send, &to);
            }
        int m = (x - d + nn) % nn, km = ag_node_size(a, m);
        p = min_int(kx, km);
        for (int q = 0; q < p; q++)
            if ((q + m) % kx == j) {
                struct lead_arg from = { a, s, ag_rank_at(a, m, (q + x) % km) };
                ag_part(a, m, q, p, lo, hi, lead_recv, &from);
            }
    }
}

static int ag_rails(const struct ag *a, MPI_Count lo, MPI_Count hi, MPI_Request *req)
{
    struct smap_hier *h = a->h;
    struct smap_sched *s = smap_sched_new(a->c);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the rails' schedule");
    ag_rails_add(a, s, h->node_of[a->c->rank], h->node->rank, h->node->size, lo, hi);
    return hier_launch(s, req);
}

struct from_arg {
    const struct ag *a;
    int root;   /* rank in the node */
};

static int node_bcast_run(void *arg, MPI_Count d, MPI_Count n)
{
    const struct from_arg *f = arg;
    return hier_node_bcast(f->a->h, hier_at(f->a->rbuf, d, f->a->rt), n, f->a->rt, f->root);
}

/* The chunk [lo, hi) of every other node's blocks to the whole node,
 * from the members that received it (the leader, or each piece's rail).
 * `whole`: the only chunk, shared through the leader in runs merged
 * across nodes (one broadcast per run, few when nodes hold ranges). */
static int ag_share(const struct ag *a, int rails, MPI_Count lo, MPI_Count hi, int whole)
{
    struct smap_hier *h = a->h;
    int x = h->node_of[a->c->rank], kx = h->node->size, rc = MPI_SUCCESS;
    if (!rails && whole) {
        struct from_arg f = { a, 0 };
        return ag_runs(a, x, 1, node_bcast_run, &f);
    }
    for (int m = 0; m < h->nnodes && rc == MPI_SUCCESS; m++) {
        int p = rails ? min_int(kx, ag_node_size(a, m)) : 1;
        for (int q = 0; q < p && m != x && rc == MPI_SUCCESS; q++) {
            struct from_arg f = { a, rails ? (q + m) % kx : 0 };
            rc = ag_part(a, m, q, p, lo, hi, node_bcast_run, &f);
        }
    }
    return rc;
}

/* The pipeline (pipeline.c) over chunks of the nodes' blocks: chunk k
 * [start, start+len) of every node's elements crosses the nodes while
 * chunk k-1 is shared on the node. */
struct ag_pipe {
    const struct ag *a;
    int rails, whole;
};

static int ag_front(void *arg, MPI_Count start, MPI_Count len, MPI_Request *req)
{
    const struct ag_pipe *g = arg;
    *req = MPI_REQUEST_NULL;
    if (g->rails)
        return ag_rails(g->a, start, start + len, req);
    return hier_is_leader(g->a->h) ? ag_leaders(g->a, start, start + len, req) : MPI_SUCCESS;
}

static int ag_back(void *arg, MPI_Count start, MPI_Count len)
{
    const struct ag_pipe *g = arg;
    if (g->a->h->node->size == 1)
        return MPI_SUCCESS;
    return ag_share(g->a, g->rails, start, start + len, g->whole);
}

int smap_hier_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                        MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                        smap_dtype_t *rt, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    struct ag a = { c, rbuf, rcount, rcounts, displs, rt, h->nnodes, h->node_of, h->node_start,
                    h->rank_at, h };
    if (rt->size == 0 || (!rcounts.p && rcount == 0))
        return MPI_SUCCESS;
    int me = c->rank, nd = h->node_of[me], k = h->node->size;
    /* the node's counts and displacements, by rank in the node */
    MPI_Count *nc = malloc(2 * (size_t)k * sizeof *nc);
    if (!nc)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the node's displacements");
    MPI_Count *nd_displ = nc + k;
    for (int i = 0; i < c->size; i++)
        if (h->node_of[i] == nd) {
            nc[h->local_of[i]] = ag_count(&a, i);
            nd_displ[h->local_of[i]] = ag_displ(&a, i);
        }
    int rc = hier_node_allgatherv(h, sbuf, scount, st, rbuf, nc, nd_displ, rt);
    free(nc);
    if (rc != MPI_SUCCESS)
        return rc;
    /* the chunks run over the largest node's elements: alike everywhere */
    MPI_Count total = 0, most = 0;
    for (int x = 0; x < h->nnodes; x++) {
        MPI_Count t = ag_node_total(&a, x);
        total += t;
        most = t > most ? t : most;
    }
    struct ag_pipe g = { &a, hier_allgather_rails(total, rt), most <= hier_chunk(rt) };
    struct hier_pipe pp = { ag_front, ag_back, &g };
    return hier_pipeline(&pp, most, rt);
}

int hier_allgather_rails(MPI_Count total, smap_dtype_t *rt)
{
    return (uint64_t)(total * rt->size) >= smap_tun.coll_hier_allgather_rails_min;
}

/* ---- Iallgather(v) on rails: the same three phases as one schedule ---- */

/* c's ranks grouped by node (node order within each) from the local
 * node map, into a's node_start / rank_at (schedule scratch). */
static int ag_group(struct ag *a, struct smap_sched *s, const struct hier_imap *m)
{
    int p = a->c->size, nn = m->nn;
    int *start = smap_sched_tmp(s, ((size_t)nn + 1 + (size_t)p) * sizeof *start);
    if (!start)
        return -1;
    int *at = start + nn + 1;
    for (int x = 0; x <= nn; x++)
        start[x] = 0;
    for (int i = 0; i < p; i++)
        start[m->node_of[i] + 1]++;
    for (int x = 0; x < nn; x++)
        start[x + 1] += start[x];
    for (int i = 0; i < p; i++)   /* (rank order is node order within a node) */
        at[start[m->node_of[i]] + m->local_of[i]] = i;
    a->nn = nn, a->node_of = m->node_of, a->node_start = start, a->rank_at = at;
    return 0;
}

/* The on-node allgather: every member sends its block to every other
 * member of its node, which receives it in place (single-copy on the
 * node). */
static void iag_node(const struct ag *a, struct smap_sched *s, const struct hier_imap *m,
                     const void *sbuf, MPI_Count scount, smap_dtype_t *st)
{
    int me = a->c->rank;
    void *mine = hier_at(a->rbuf, ag_displ(a, me), a->rt);
    MPI_Count mc = ag_count(a, me);
    if (sbuf != MPI_IN_PLACE) {
        smap_sched_copy(s, sbuf, scount, st, mine, mc, a->rt);
    } else {
        sbuf = mine, scount = mc, st = a->rt;
    }
    for (int j = 0; j < m->k; j++) {
        int r = m->members[j];
        if (r == me)
            continue;
        if (mc > 0)
            smap_sched_send(s, sbuf, scount, st, r);
        if (ag_count(a, r) > 0)
            smap_sched_recv(s, hier_at(a->rbuf, ag_displ(a, r), a->rt), ag_count(a, r), a->rt, r);
    }
    smap_sched_barrier(s);
}

/* The share phase of the chunk [lo, hi) of every node's elements: each
 * member that received a piece of another node's blocks sends its part
 * in the chunk to the rest of its node. */
static void iag_share(const struct ag *a, struct smap_sched *s, int x, int j, int kx,
                      MPI_Count lo, MPI_Count hi)
{
    for (int m = 0; m < a->nn; m++) {
        int p = min_int(kx, ag_node_size(a, m));
        for (int q = 0; q < p && m != x; q++) {
            int holder = (q + m) % kx;
            for (int i = 0; i < kx; i++) {
                if (i == holder || (j != holder && i != j))
                    continue;
                struct lead_arg l = { a, s, ag_rank_at(a, x, j == holder ? i : holder) };
                ag_part(a, m, q, p, lo, hi, j == holder ? lead_send : lead_recv, &l);
            }
        }
    }
    smap_sched_barrier(s);
}

/* One chunk [lo, lo+len) of every node's elements (a lane, or the whole
 * call): the rails' exchange, then the share.  The on-node allgather runs
 * whole, in the first chunk; the other lanes wait for it in an empty
 * round (lane k's round r follows lane k-1's), so chunk k crosses the
 * nodes while chunk k-1 is shared. */
struct iag {
    const struct ag *a;
    const void *sbuf;
    MPI_Count scount;
    smap_dtype_t *st;
};

static void iag_build(struct smap_sched *s, const struct hier_imap *m, MPI_Count lo,
                      MPI_Count len, void *arg)
{
    const struct iag *g = arg;
    const struct ag *a = g->a;
    int x = m->node_of[a->c->rank], j = m->local_of[a->c->rank];
    if (lo == 0)
        iag_node(a, s, m, g->sbuf, g->scount, g->st);
    else
        smap_sched_barrier(s);
    ag_rails_add(a, s, x, j, m->k, lo, lo + len);
    smap_sched_barrier(s);
    iag_share(a, s, x, j, m->k, lo, lo + len);
}

int hier_iallgather_rails(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                          MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                          smap_dtype_t *rt, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s;
    struct hier_imap m;
    int rc = hier_nb_start(c, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    struct ag a = { c, rbuf, rcount, rcounts, displs, rt, 0, NULL, NULL, NULL, NULL };
    if (ag_group(&a, s, &m) != 0)
        return hier_launch(s, req);   /* fails: out of memory */
    /* the chunks run over the largest node's elements: alike everywhere */
    MPI_Count most = 0;
    for (int x = 0; x < a.nn; x++) {
        MPI_Count t = ag_node_total(&a, x);
        most = t > most ? t : most;
    }
    struct iag g = { &a, sbuf, scount, st };
    return hier_nb_chunked(s, &m, most, rt, iag_build, &g, req);
}
