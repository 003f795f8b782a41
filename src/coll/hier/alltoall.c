/* Hierarchical Alltoall: one combined message per rank and node pair.
 *
 * Rank a, the i-th rank of its node, sends everything it has for node m
 * as one message to m's *gateway* for a: the (i mod |m|)-th rank of m.
 * A gateway g so receives, from each of its sources (the ranks of other
 * nodes whose gateway on g's node it is), the blocks for every rank of
 * its node; it regroups them by destination and hands each node peer its
 * blocks in one message (on the node: SMARTMAP point-to-point).  The
 * node's own blocks go directly between its ranks in the first round.
 *
 * So a rank sends (nodes - 1) messages across nodes instead of one per
 * remote rank, and every block crosses the network once.  One schedule on
 * c, three rounds: pack + send to the gateways + the on-node exchange;
 * regroup + hand on; unpack.  Blocks travel packed (MPI_BYTE), so any
 * datatype pair with the same signature works, and any placement. */
#include "coll/hier/internal.h"

#include <stdlib.h>

#include "base/tunables.h"

struct a2a_map {
    int *start;   /* node -> index of its first rank in `list` */
    int *list;    /* ranks of c by node, by rank in the node */
};

static void *a2a_at(const void *buf, MPI_Count i, MPI_Count count, smap_dtype_t *t)
{
    return hier_at(buf, i * count, t);
}

static int a2a_gateway(const struct smap_hier *h, const struct a2a_map *m, int a, int node)
{
    int k = m->start[node + 1] - m->start[node];
    return m->list[m->start[node] + h->local_of[a] % k];
}

static void a2a_build(struct smap_sched *s, const struct smap_a2a *a, const struct smap_hier *h,
                      const struct a2a_map *m, MPI_Count blk)
{
    smap_comm_t *c = smap_sched_comm(s);
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int n = c->size, me = c->rank, nd = h->node_of[me], li = h->local_of[me];
    int k = m->start[nd + 1] - m->start[nd];
    const void *sbuf = a->sbuf;
    MPI_Count scount = a->scount;
    smap_dtype_t *st = a->st;
    if (sbuf == MPI_IN_PLACE) {   /* the input is rbuf, about to be overwritten */
        void *copy = smap_sched_tmp_typed(s, n * a->rcount, a->rt);
        if (!copy)
            return;
        smap_sched_copy(s, a->rbuf, n * a->rcount, a->rt, copy, n * a->rcount, a->rt);
        sbuf = copy, scount = a->rcount, st = a->rt;
    }
    /* round 1: each other node's blocks packed and sent to the gateway */
    for (int node = 0; node < h->nnodes; node++) {
        if (node == nd)
            continue;
        int km = m->start[node + 1] - m->start[node];
        char *out = smap_sched_tmp(s, (size_t)(km * blk));
        if (!out)
            return;
        for (int j = 0; j < km; j++)
            smap_sched_copy(s, a2a_at(sbuf, m->list[m->start[node] + j], scount, st), scount, st,
                            out + j * blk, blk, byte);
        smap_sched_send(s, out, km * blk, byte, a2a_gateway(h, m, me, node));
    }
    /* ... the node's own blocks directly ... */
    smap_sched_copy(s, a2a_at(sbuf, me, scount, st), scount, st, a2a_at(a->rbuf, me, a->rcount,
                    a->rt), a->rcount, a->rt);
    for (int j = 0; j < k; j++) {
        int p = m->list[m->start[nd] + j];
        if (p == me)
            continue;
        smap_sched_send(s, a2a_at(sbuf, p, scount, st), scount, st, p);
        smap_sched_recv(s, a2a_at(a->rbuf, p, a->rcount, a->rt), a->rcount, a->rt, p);
    }
    /* ... and the blocks of this gateway's sources, for the whole node */
    int nsrc = 0;
    for (int r = 0; r < n; r++)
        nsrc += h->node_of[r] != nd && h->local_of[r] % k == li;
    char *in = smap_sched_tmp(s, (size_t)(nsrc * k * blk) + 1);
    if (!in)
        return;
    for (int r = 0, si = 0; r < n; r++)
        if (h->node_of[r] != nd && h->local_of[r] % k == li)
            smap_sched_recv(s, in + si++ * k * blk, k * blk, byte, r);
    smap_sched_barrier(s);
    if (k == 1) {   /* this rank is its node: the blocks are its own */
        for (int r = 0, si = 0; r < n; r++)
            if (h->node_of[r] != nd)
                smap_sched_copy(s, in + si++ * blk, blk, byte,
                                a2a_at(a->rbuf, r, a->rcount, a->rt), a->rcount, a->rt);
        return;
    }
    /* round 2: regroup by destination, hand each node peer its blocks;
     * receive the blocks the node's other gateways hold for this rank */
    char *out = smap_sched_tmp(s, (size_t)(nsrc * k * blk) + 1);
    MPI_Count fin_n = 0;
    for (int j = 0; j < k; j++) {
        int g = m->list[m->start[nd] + j];
        if (g != me)
            for (int r = 0; r < n; r++)
                fin_n += h->node_of[r] != nd && h->local_of[r] % k == j;
    }
    char *fin = smap_sched_tmp(s, (size_t)(fin_n * blk) + 1);
    if (!out || !fin)
        return;
    for (int si = 0, r = 0; r < n; r++) {
        if (h->node_of[r] == nd || h->local_of[r] % k != li)
            continue;
        for (int j = 0; j < k; j++) {
            const char *b = in + (si * k + j) * blk;
            if (j == li)
                smap_sched_copy(s, b, blk, byte, a2a_at(a->rbuf, r, a->rcount, a->rt), a->rcount,
                                a->rt);
            else
                smap_sched_copy(s, b, blk, byte, out + (j * nsrc + si) * blk, blk, byte);
        }
        si++;
    }
    MPI_Count off = 0;
    for (int j = 0; j < k; j++) {
        int p = m->list[m->start[nd] + j];
        if (p == me)
            continue;
        if (nsrc > 0)
            smap_sched_send(s, out + j * nsrc * blk, nsrc * blk, byte, p);
        MPI_Count from_p = 0;   /* sources of p */
        for (int r = 0; r < n; r++)
            from_p += h->node_of[r] != nd && h->local_of[r] % k == j;
        if (from_p > 0)
            smap_sched_recv(s, fin + off * blk, from_p * blk, byte, p);
        off += from_p;
    }
    smap_sched_barrier(s);
    /* round 3: unpack, gateway by gateway, each one's sources in rank order */
    off = 0;
    for (int j = 0; j < k; j++) {
        if (j == li)
            continue;
        for (int r = 0; r < n; r++)
            if (h->node_of[r] != nd && h->local_of[r] % k == j)
                smap_sched_copy(s, fin + off++ * blk, blk, byte,
                                a2a_at(a->rbuf, r, a->rcount, a->rt), a->rcount, a->rt);
    }
}

int smap_hier_alltoall(const struct smap_a2a *a, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    if (!smap_tun.coll_hier_alltoall || a->scounts.p || a->rcounts.p || a->stypes || a->rtypes)
        return SMAP_HIER_FLAT;   /* v and w: each rank knows only its own counts */
    MPI_Count blk = a->rcount * a->rt->size;
    if (blk == 0)
        return MPI_SUCCESS;
    struct a2a_map m;
    m.start = calloc((size_t)h->nnodes + 1, sizeof *m.start);
    m.list = malloc((size_t)c->size * sizeof *m.list);
    if (!m.start || !m.list) {
        free(m.start), free(m.list);
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the alltoall's node map");
    }
    for (int r = 0; r < c->size; r++)
        m.start[h->node_of[r] + 1]++;
    for (int node = 0; node < h->nnodes; node++)
        m.start[node + 1] += m.start[node];
    for (int r = 0; r < c->size; r++)
        m.list[m.start[h->node_of[r]] + h->local_of[r]] = r;
    struct smap_sched *s = smap_sched_new(c);
    int rc;
    if (!s) {
        rc = hier_fail(MPI_ERR_NO_MEM, "out of memory for the alltoall's schedule");
    } else {
        a2a_build(s, a, h, &m, blk);
        rc = hier_run(s, "out of memory building the alltoall's schedule");
    }
    free(m.start), free(m.list);
    return rc;
}
