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
 * Any placement: a node's blocks go as runs of blocks that are adjacent in
 * the receive buffer, computed alike on every leader, so interleaved ranks
 * cost more messages, never a wrong block.  Blocks keep the receive
 * displacements, so Allgatherv reuses the whole structure. */
#include "coll/hier/internal.h"

#include <stdlib.h>

#include "base/tunables.h"

struct ag {
    struct smap_hier *h;
    smap_comm_t *c;
    void *rbuf;
    MPI_Count rcount;
    struct smap_cvec rcounts, displs;
    smap_dtype_t *rt;
};

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
        if ((a->h->node_of[i] == node) == other)
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

/* The leaders' exchange of their nodes' blocks, started in *req. */
static int ag_leaders(const struct ag *a, MPI_Request *req)
{
    *req = MPI_REQUEST_NULL;
    smap_comm_t *l = a->h->lead;
    if (l->size == 1)
        return MPI_SUCCESS;
    struct smap_sched *s = smap_sched_new(l);
    if (!s)
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the leaders' schedule");
    /* leader rank j of the leaders' communicator leads node j (both are
     * numbered by the lowest rank of the node) */
    for (int d = 1; d < l->size; d++) {
        struct lead_arg to = { a, s, (l->rank + d) % l->size };
        struct lead_arg from = { a, s, (l->rank - d + l->size) % l->size };
        ag_runs(a, l->rank, 0, lead_send, &to);
        ag_runs(a, from.peer, 0, lead_recv, &from);
    }
    return hier_launch(s, req);
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

/* Calls fn for piece q of p of node x's blocks (their runs, in rank
 * order, cut by element count). */
static int ag_piece(const struct ag *a, int x, int q, int p, run_fn *fn, void *arg)
{
    MPI_Count total = 0;
    for (int i = 0; i < a->c->size; i++)
        if (a->h->node_of[i] == x)
            total += ag_count(a, i);
    struct clip k = { hier_piece_lo(total, q, p), hier_piece_lo(total, q + 1, p), 0, fn, arg };
    return ag_runs(a, x, 0, clip_run, &k);
}

static int min_int(int u, int v)
{
    return u < v ? u : v;
}

/* The rails' exchange of the nodes' blocks (see the top), started in
 * *req: a schedule on c that every member runs. */
static int ag_rails(const struct ag *a, MPI_Request *req)
{
    struct smap_hier *h = a->h;
    int nn = h->nnodes, x = h->node_of[a->c->rank], j = h->node->rank, kx = h->node->size;
    struct smap_sched *s = smap_sched_new(a->c);
    if (!s)
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the rails' schedule");
    for (int d = 1; d < nn; d++) {
        int b = (x + d) % nn, kb = hier_node_size(h, b), p = min_int(kx, kb);
        for (int q = 0; q < p; q++)
            if ((q + b) % kx == j) {
                struct lead_arg to = { a, s, hier_rank_at(h, b, (q + x) % kb) };
                ag_piece(a, x, q, p, lead_send, &to);
            }
        int m = (x - d + nn) % nn, km = hier_node_size(h, m);
        p = min_int(kx, km);
        for (int q = 0; q < p; q++)
            if ((q + m) % kx == j) {
                struct lead_arg from = { a, s, hier_rank_at(h, m, (q + x) % km) };
                ag_piece(a, m, q, p, lead_recv, &from);
            }
    }
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

/* Every block of the other nodes to the whole node, from the members that
 * received it (the leader, or each piece's rail). */
static int ag_share(const struct ag *a, int rails)
{
    struct smap_hier *h = a->h;
    int x = h->node_of[a->c->rank], kx = h->node->size, rc = MPI_SUCCESS;
    if (!rails) {
        struct from_arg f = { a, 0 };
        return ag_runs(a, x, 1, node_bcast_run, &f);
    }
    for (int m = 0; m < h->nnodes && rc == MPI_SUCCESS; m++) {
        int p = min_int(kx, hier_node_size(h, m));
        for (int q = 0; q < p && m != x && rc == MPI_SUCCESS; q++) {
            struct from_arg f = { a, (q + m) % kx };
            rc = ag_piece(a, m, q, p, node_bcast_run, &f);
        }
    }
    return rc;
}

int smap_hier_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                        MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                        smap_dtype_t *rt, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    struct ag a = { h, c, rbuf, rcount, rcounts, displs, rt };
    if (rt->size == 0 || (!rcounts.p && rcount == 0))
        return MPI_SUCCESS;
    int me = c->rank, nd = h->node_of[me], k = h->node->size;
    /* the node's counts and displacements, by rank in the node */
    MPI_Count *nc = malloc(2 * (size_t)k * sizeof *nc);
    if (!nc)
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the node's displacements");
    MPI_Count *nd_displ = nc + k;
    for (int i = 0; i < c->size; i++)
        if (h->node_of[i] == nd) {
            nc[h->local_of[i]] = ag_count(&a, i);
            nd_displ[h->local_of[i]] = ag_displ(&a, i);
        }
    int rc = hier_node_allgatherv(h, sbuf, scount, st, rbuf, nc, nd_displ, rt);
    free(nc);
    MPI_Count total = 0;
    for (int i = 0; i < c->size; i++)
        total += ag_count(&a, i);
    int rails = (uint64_t)(total * rt->size) >= smap_tun.coll_hier_allgather_rails_min;
    MPI_Request req = MPI_REQUEST_NULL;
    if (rc == MPI_SUCCESS && rails)
        rc = ag_rails(&a, &req);
    else if (rc == MPI_SUCCESS && hier_is_leader(h))
        rc = ag_leaders(&a, &req);
    if (req != MPI_REQUEST_NULL) {
        int r2 = hier_wait(&req);
        rc = rc == MPI_SUCCESS ? r2 : rc;
    }
    if (rc == MPI_SUCCESS && k > 1)
        rc = ag_share(&a, rails);
    return rc;
}
