/* Hierarchical Alltoall, Alltoallv and Alltoallw: one combined message
 * per rank and node pair.
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
 * datatype pair with the same signature works, and any placement.
 *
 * A gateway must know the size of every block it regroups.  Alltoall's
 * are all alike.  Alltoallv's and Alltoallw's are known to their sender
 * and receiver only: those run the schedule of Ialltoallv/w
 * (nbc_alltoallv.c) to completion, in which the receivers tell their
 * node's gateways the sizes on the node.  It replaced a schedule of its
 * own in which every rank sent each gateway its block sizes across the
 * network before the data (one more inter-node round, slower at most
 * sizes measured: src/coll/hier/README.md), and it handles in place. */
#include "coll/hier/internal.h"

#include <stdlib.h>

#include "base/tunables.h"
#include "dtype/engine.h"

struct a2a_map {
    int *start;   /* node -> index of its first rank in `list` */
    int *list;    /* ranks of c by node, by rank in the node */
};

/* One block of a side (send or receive) of the call. */
struct a2a_blk {
    char *p;
    MPI_Count n, bytes;
    smap_dtype_t *t;
};

/* A side of the plain form: count elements of t per rank. */
struct a2a_side {
    const void *buf;
    MPI_Count count;
    smap_dtype_t *t;
};

static struct a2a_blk a2a_block(const struct a2a_side *d, int j)
{
    return (struct a2a_blk){ hier_at(d->buf, j * d->count, d->t), d->count,
                             d->count * d->t->size, d->t };
}

struct a2a_call {
    const struct smap_hier *h;
    struct a2a_map m;
    struct a2a_side snd, rcv;
    int k, li, nd, nsrc;
    int *src;          /* this gateway's sources, in rank order */
    MPI_Count *hdr;    /* [si * k + j]: bytes source si sends to the node's j-th rank */
};

static int a2a_gateway(const struct a2a_call *x, int a, int node)
{
    int km = x->m.start[node + 1] - x->m.start[node];
    return x->m.list[x->m.start[node] + x->h->local_of[a] % km];
}

/* Whether r (of another node) has this node's j-th rank as its gateway. */
static int a2a_source_of(const struct a2a_call *x, int r, int j)
{
    return x->h->node_of[r] != x->nd && x->h->local_of[r] % x->k == j;
}

static void a2a_build(struct smap_sched *s, const struct a2a_call *x)
{
    smap_comm_t *c = smap_sched_comm(s);
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    const struct smap_hier *h = x->h;
    int n = c->size, me = c->rank, nd = x->nd, li = x->li, k = x->k, nsrc = x->nsrc;
    const int *mine = x->m.list + x->m.start[nd];
    /* round 1: each other node's blocks packed and sent to the gateway */
    for (int node = 0; node < h->nnodes; node++) {
        if (node == nd)
            continue;
        const int *dst = x->m.list + x->m.start[node];
        int km = x->m.start[node + 1] - x->m.start[node];
        MPI_Count bytes = 0;
        for (int j = 0; j < km; j++)
            bytes += a2a_block(&x->snd, dst[j]).bytes;
        char *out = smap_sched_tmp(s, (size_t)bytes + 1), *o = out;
        if (!out)
            return;
        for (int j = 0; j < km; j++) {
            struct a2a_blk b = a2a_block(&x->snd, dst[j]);
            smap_sched_copy(s, b.p, b.n, b.t, o, b.bytes, byte);
            o += b.bytes;
        }
        smap_sched_send(s, out, bytes, byte, a2a_gateway(x, me, node));
    }
    /* ... the node's own blocks directly ... */
    struct a2a_blk sb = a2a_block(&x->snd, me), rb = a2a_block(&x->rcv, me);
    smap_sched_copy(s, sb.p, sb.n, sb.t, rb.p, rb.n, rb.t);
    for (int j = 0; j < k; j++) {
        if (mine[j] == me)
            continue;
        sb = a2a_block(&x->snd, mine[j]), rb = a2a_block(&x->rcv, mine[j]);
        smap_sched_send(s, sb.p, sb.n, sb.t, mine[j]);
        smap_sched_recv(s, rb.p, rb.n, rb.t, mine[j]);
    }
    /* ... and the blocks of this gateway's sources, for the whole node */
    MPI_Count *inoff = smap_sched_tmp(s, ((size_t)nsrc + 1) * sizeof *inoff);
    if (!inoff)
        return;
    inoff[0] = 0;
    for (int si = 0; si < nsrc; si++) {
        inoff[si + 1] = inoff[si];
        for (int j = 0; j < k; j++)
            inoff[si + 1] += x->hdr[si * k + j];
    }
    char *in = smap_sched_tmp(s, (size_t)inoff[nsrc] + 1);
    if (!in)
        return;
    for (int si = 0; si < nsrc; si++)
        smap_sched_recv(s, in + inoff[si], inoff[si + 1] - inoff[si], byte, x->src[si]);
    smap_sched_barrier(s);
    /* round 2: regroup by destination (this rank's own blocks straight to
     * their place), hand each node peer its blocks; receive the blocks the
     * node's other gateways hold for this rank */
    char **fin = smap_sched_tmp(s, (size_t)k * sizeof *fin);
    if (!fin)
        return;
    for (int j = 0; j < k; j++) {
        if (j == li) {
            for (int si = 0; si < nsrc; si++) {
                const char *b = in + inoff[si];
                for (int jj = 0; jj < j; jj++)
                    b += x->hdr[si * k + jj];
                rb = a2a_block(&x->rcv, x->src[si]);
                smap_sched_copy(s, b, rb.bytes, byte, rb.p, rb.n, rb.t);
            }
            continue;
        }
        MPI_Count bytes = 0;
        for (int si = 0; si < nsrc; si++)
            bytes += x->hdr[si * k + j];
        char *out = smap_sched_tmp(s, (size_t)bytes + 1), *o = out;
        if (!out)
            return;
        for (int si = 0; si < nsrc; si++) {
            const char *b = in + inoff[si];
            for (int jj = 0; jj < j; jj++)
                b += x->hdr[si * k + jj];
            smap_sched_copy(s, b, x->hdr[si * k + j], byte, o, x->hdr[si * k + j], byte);
            o += x->hdr[si * k + j];
        }
        if (nsrc > 0)
            smap_sched_send(s, out, bytes, byte, mine[j]);
        /* from gateway j: its sources' blocks for this rank, in rank order */
        int from = 0;
        bytes = 0;
        for (int r = 0; r < n; r++)
            if (a2a_source_of(x, r, j))
                from++, bytes += a2a_block(&x->rcv, r).bytes;
        fin[j] = from ? smap_sched_tmp(s, (size_t)bytes + 1) : NULL;
        if (from && !fin[j])
            return;
        if (from)
            smap_sched_recv(s, fin[j], bytes, byte, mine[j]);
    }
    smap_sched_barrier(s);
    /* round 3: unpack, gateway by gateway, each one's sources in rank order */
    for (int j = 0; j < k; j++)
        for (int r = 0; r < n && j != li && fin[j]; r++)
            if (a2a_source_of(x, r, j)) {
                rb = a2a_block(&x->rcv, r);
                smap_sched_copy(s, fin[j], rb.bytes, byte, rb.p, rb.n, rb.t);
                fin[j] += rb.bytes;
            }
}

/* Whether a call goes through the gateways: every call with
 * SMAP_COLL_HIER_ALLTOALL=1; else the plain forms whose blocks (bytes per
 * rank pair: alike on every rank, so all decide alike) are at most
 * SMAP_COLL_HIER_ALLTOALL_MAX, where the messages saved outweigh the
 * copies and the extra on-node round (src/coll/hier/README.md). */
static int a2a_gateways(const struct smap_a2a *a, int plain)
{
    if (smap_tun.coll_hier_alltoall)
        return 1;
    return plain && (uint64_t)(a->rcount * a->rt->size) <= smap_tun.coll_hier_alltoall_max;
}

int smap_hier_alltoall(const struct smap_a2a *a, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    int plain = !a->scounts.p && !a->rcounts.p && !a->stypes && !a->rtypes;
    if (!a2a_gateways(a, plain))
        return SMAP_HIER_FLAT;
    if (!plain) {   /* see the top of the file */
        MPI_Request rq;
        int rc = hier_ialltoallv(a, c, &rq);
        return rc == MPI_SUCCESS ? hier_wait(&rq) : rc;
    }
    MPI_Count blk = a->rcount * a->rt->size;
    if (blk == 0)
        return MPI_SUCCESS;
    struct a2a_call x = {
        .h = h,
        .snd = { a->sbuf, a->scount, a->st },
        .rcv = { a->rbuf, a->rcount, a->rt },
        .nd = h->node_of[c->rank],
        .li = h->local_of[c->rank],
        .m = { h->node_start, h->rank_at },
    };
    x.src = malloc((size_t)c->size * sizeof *x.src);
    x.hdr = NULL;
    int rc = MPI_SUCCESS;
    if (x.src) {
        x.k = h->node->size;
        x.nsrc = 0;
        for (int r = 0; r < c->size; r++)
            if (a2a_source_of(&x, r, x.li))
                x.src[x.nsrc++] = r;
        x.hdr = malloc(((size_t)x.nsrc * x.k + 1) * sizeof *x.hdr);
    }
    if (!x.src || !x.hdr)
        rc = smap_fail(MPI_ERR_NO_MEM, "out of memory for the alltoall's node map");
    void *copy = NULL;
    if (rc == MPI_SUCCESS && a->sbuf == MPI_IN_PLACE) {   /* the input is rbuf */
        void *base;
        copy = hier_tmp(c->size * a->rcount, a->rt, &base);
        if (copy) {
            smap_dtype_copy(copy, c->size * a->rcount, a->rt, a->rbuf, c->size * a->rcount, a->rt);
            x.snd = x.rcv;
            x.snd.buf = copy;
            copy = base;
        } else {
            rc = smap_fail(MPI_ERR_NO_MEM, "out of memory for the alltoall's input");
        }
    }
    if (rc == MPI_SUCCESS)
        for (MPI_Count i = 0; i < (MPI_Count)x.nsrc * x.k; i++)
            x.hdr[i] = blk;
    if (rc == MPI_SUCCESS) {
        struct smap_sched *s = smap_sched_new(c);
        if (!s) {
            rc = smap_fail(MPI_ERR_NO_MEM, "out of memory for the alltoall's schedule");
        } else {
            a2a_build(s, &x);
            rc = hier_run(s, "out of memory building the alltoall's schedule");
        }
    }
    free(copy), free(x.src), free(x.hdr);
    return rc;
}

/* Ialltoall (and Alltoall_init), on the blocking form's terms: the same
 * three rounds as one schedule on c, its node map computed locally (a
 * non-blocking start must not wait for other ranks), everything in the
 * schedule's scratch.  The v and w forms: nbc_alltoallv.c (their gateways
 * learn the block sizes while the schedule runs). */
int smap_hier_ialltoall(const struct smap_a2a *a, smap_comm_t *c, MPI_Request *req)
{
    int plain = !a->scounts.p && !a->rcounts.p && !a->stypes && !a->rtypes;
    if (!a2a_gateways(a, plain))
        return SMAP_HIER_FLAT;
    if (!plain)
        return hier_ialltoallv(a, c, req);
    MPI_Count blk = a->rcount * a->rt->size;
    if (blk == 0)
        return SMAP_HIER_FLAT;   /* nothing moves */
    struct smap_sched *s;
    struct hier_imap im;
    int rc = hier_nb_start(c, &s, &im);
    if (rc != MPI_SUCCESS)
        return rc;
    int p = c->size, me = c->rank;
    struct smap_hier *h = smap_sched_tmp(s, sizeof *h);
    struct a2a_call x = {
        .h = h,
        .snd = { a->sbuf, a->scount, a->st },
        .rcv = { a->rbuf, a->rcount, a->rt },
        .nd = im.node_of[me],
        .li = im.local_of[me],
    };
    x.m.start = smap_sched_tmp(s, ((size_t)im.nn + 1) * sizeof *x.m.start);
    x.m.list = smap_sched_tmp(s, (size_t)p * sizeof *x.m.list);
    x.src = smap_sched_tmp(s, (size_t)p * sizeof *x.src);
    if (!h || !x.m.start || !x.m.list || !x.src)
        return hier_launch(s, req);   /* fails: out of memory */
    *h = (struct smap_hier){ .nnodes = im.nn, .node_of = im.node_of, .local_of = im.local_of,
                             .leader_of = im.leader_of, .contiguous = im.contiguous };
    for (int node = 0; node <= im.nn; node++)
        x.m.start[node] = 0;
    for (int r = 0; r < p; r++)
        x.m.start[im.node_of[r] + 1]++;
    for (int node = 0; node < im.nn; node++)
        x.m.start[node + 1] += x.m.start[node];
    for (int r = 0; r < p; r++)
        x.m.list[x.m.start[im.node_of[r]] + im.local_of[r]] = r;
    x.k = im.k;
    x.nsrc = 0;
    for (int r = 0; r < p; r++)
        if (a2a_source_of(&x, r, x.li))
            x.src[x.nsrc++] = r;
    x.hdr = smap_sched_tmp(s, ((size_t)x.nsrc * x.k + 1) * sizeof *x.hdr);
    if (!x.hdr)
        return hier_launch(s, req);
    for (MPI_Count i = 0; i < (MPI_Count)x.nsrc * x.k; i++)
        x.hdr[i] = blk;
    if (a->sbuf == MPI_IN_PLACE) {   /* the input is rbuf: copied first (round 1) */
        void *copy = smap_sched_tmp_typed(s, p * a->rcount, a->rt);
        if (!copy)
            return hier_launch(s, req);
        smap_sched_copy(s, a->rbuf, p * a->rcount, a->rt, copy, p * a->rcount, a->rt);
        x.snd = x.rcv;
        x.snd.buf = copy;
    }
    a2a_build(s, &x);
    return hier_launch(s, req);
}
