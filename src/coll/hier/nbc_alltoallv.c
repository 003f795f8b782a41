/* The node-aware schedule of Ialltoallv and Ialltoallw (and their _init
 * forms; the blocking forms run it to completion), with
 * SMAP_COLL_HIER_ALLTOALL=1: the gateway scheme of
 * alltoall.c -- rank a, the i-th of its node, sends everything it has for
 * node m as one packed message to m's gateway for a, the (i mod |m|)-th
 * rank of m, which regroups what its sources sent by destination and hands
 * each node peer its blocks in one message -- on block sizes that the
 * gateways learn while the schedule runs.
 *
 * A gateway must size what it receives and regroups, and only the sender
 * and the final receiver of a block know its size.  The senders could
 * tell them across the network (one more inter-node round, ahead of the
 * data: what the blocking forms did, which now run this schedule).  Here
 * the *receivers* tell their gateways, on the node: in the first round
 * every rank sends each other rank of its node what it expects from that
 * gateway's sources (one MPI_Count per source: an on-node, SMARTMAP
 * message), next to the node's own blocks, which move directly between
 * the ranks.  The second
 * round starts with a callback that lays the gateway's buffers out from
 * those sizes (schedule scratch, grown when needed: a persistent request
 * reruns with the same sizes and reuses it); then every rank sends its
 * packed messages across the nodes, received at places and sizes read at
 * run time (smap_sched_recv_late).  The third round regroups them by
 * destination (a callback, memcpy) and hands each node peer its blocks
 * (smap_sched_send_late); the gateway's own blocks are unpacked there, the
 * blocks handed on by the node's other gateways in the fourth.
 *
 * The data could not go in the first round with the sizes: a gateway
 * posts its receives only once it knows the sizes, and a rendezvous send
 * completes only then, so two gateways each sending to the other in the
 * round before their receives would wait for each other.
 *
 * Which messages exist follows from the node map alone, never from a
 * count, so every rank builds a matching schedule whatever the counts
 * (zero counts move empty messages).  In place (sendbuf MPI_IN_PLACE: the
 * receive side describes the blocks to send), the first round's local
 * steps copy every block to send out of the receive buffer -- those for
 * other nodes into their packed messages, the node's own into scratch --
 * before any of the round's receives can write there. */
#include "coll/hier/internal.h"

#include <string.h>

#include "base/tunables.h"

/* One block of one side of the call: at p, n elements of t, bytes. */
struct vblk {
    char *p;
    MPI_Count n, bytes;
    smap_dtype_t *t;
};

/* Block j of the send (send 1) or receive side: Alltoallw's types and
 * byte displacements, or Alltoallv's counts and displacements in elements
 * of one type. */
static struct vblk vblock(const struct smap_a2a *a, int send, int j)
{
    const void *buf = send ? a->sbuf : a->rbuf;
    struct smap_cvec counts = send ? a->scounts : a->rcounts;
    struct smap_cvec displs = send ? a->sdispls : a->rdispls;
    const MPI_Datatype *types = send ? a->stypes : a->rtypes;
    struct vblk b = { .n = smap_cvec_at(counts, j) };
    if (types) {
        b.t = smap_dtype_stored(types[j]);
        b.p = (char *)buf + smap_cvec_at(displs, j);
    } else {
        b.t = send ? a->st : a->rt;
        b.p = hier_at(buf, smap_cvec_at(displs, j), b.t);
    }
    b.bytes = b.n * b.t->size;
    return b;
}

/* c's ranks by node: node y's are list[start[y] .. start[y+1]), in node
 * order (local index). */
struct vmap {
    const struct hier_imap *m;
    int *start, *list;
    int me, nd, li, k;
};

static int vgateway(const struct vmap *v, int node)
{
    int km = v->start[node + 1] - v->start[node];
    return v->list[v->start[node] + v->m->local_of[v->me] % km];
}

/* Whether r (of another node) has this node's j-th rank as its gateway. */
static int vsource_of(const struct vmap *v, int r, int j)
{
    return v->m->node_of[r] != v->nd && v->m->local_of[r] % v->k == j;
}

/* This rank as a gateway: its nsrc sources (ranks of other nodes, rank
 * order) and the blocks they send it for each of its node's k ranks. */
struct gw {
    int k, li, nsrc, *src;
    MPI_Count *sz;               /* [j * nsrc + si]: bytes member j expects from source si */
    MPI_Count *inoff, *inlen;    /* source si's packed message in `in` (nsrc each) */
    MPI_Count *outoff, *outlen;  /* member j's blocks, regrouped, in `out` (k each) */
    MPI_Count *cur;              /* (regrouping: where member j's next block goes) */
    char *in, *out, *own;        /* own: this rank's blocks, sized at build */
    MPI_Count incap, outcap;
};

/* Scratch of at least `need` bytes at *buf (capacity *cap): kept across
 * persistent reruns, grown only when the sizes do. */
static int vgrow(struct smap_sched *s, char **buf, MPI_Count *cap, MPI_Count need)
{
    if (need <= *cap)
        return MPI_SUCCESS;
    char *p = smap_sched_tmp(s, (size_t)need + 1);
    if (!p)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the alltoall's gateway buffers");
    *buf = p, *cap = need;
    return MPI_SUCCESS;
}

/* Round 2's first step: the sizes have arrived; where each source's
 * message lands and each member's regrouped blocks go. */
static int gw_layout(struct smap_sched *s, void *arg)
{
    struct gw *g = arg;
    MPI_Count in = 0, out = 0;
    for (int si = 0; si < g->nsrc; si++) {
        g->inoff[si] = in, g->inlen[si] = 0;
        for (int j = 0; j < g->k; j++)
            g->inlen[si] += g->sz[j * g->nsrc + si];
        in += g->inlen[si];
    }
    for (int j = 0; j < g->k; j++) {
        g->outoff[j] = out, g->outlen[j] = 0;
        for (int si = 0; si < g->nsrc && j != g->li; si++)
            g->outlen[j] += g->sz[j * g->nsrc + si];
        out += g->outlen[j];
    }
    int rc = vgrow(s, &g->in, &g->incap, in);
    return rc == MPI_SUCCESS ? vgrow(s, &g->out, &g->outcap, out) : rc;
}

/* Round 3's first step: each source's message (its blocks in node order)
 * cut into the members' buffers, sources in rank order. */
static int gw_regroup(struct smap_sched *s, void *arg)
{
    (void)s;
    struct gw *g = arg;
    MPI_Count own = 0;
    for (int j = 0; j < g->k; j++)
        g->cur[j] = g->outoff[j];
    for (int si = 0; si < g->nsrc; si++) {
        const char *b = g->in + g->inoff[si];
        for (int j = 0; j < g->k; j++) {
            MPI_Count n = g->sz[j * g->nsrc + si];
            if (j == g->li)
                memcpy(g->own + own, b, (size_t)n), own += n;
            else
                memcpy(g->out + g->cur[j], b, (size_t)n), g->cur[j] += n;
            b += n;
        }
    }
    return MPI_SUCCESS;
}

/* The gateway's state, its own column of sizes filled in (what this rank
 * expects from its sources); NULL when out of memory. */
static struct gw *gw_new(struct smap_sched *s, const struct vmap *v, const struct smap_a2a *a,
                         int p)
{
    struct gw *g = smap_sched_tmp(s, sizeof *g);
    int *src = smap_sched_tmp(s, (size_t)p * sizeof *src);
    if (!g || !src)
        return NULL;
    int nsrc = 0;
    for (int r = 0; r < p; r++)
        if (vsource_of(v, r, v->li))
            src[nsrc++] = r;
    size_t n = (size_t)nsrc * v->k + 2 * (size_t)nsrc + 3 * (size_t)v->k;
    MPI_Count *cnt = smap_sched_tmp(s, n * sizeof *cnt);
    *g = (struct gw){ .k = v->k, .li = v->li, .nsrc = nsrc, .src = src, .sz = cnt };
    if (!cnt)
        return NULL;
    g->inoff = cnt + (size_t)nsrc * v->k, g->inlen = g->inoff + nsrc;
    g->outoff = g->inlen + nsrc, g->outlen = g->outoff + v->k, g->cur = g->outlen + v->k;
    MPI_Count own = 0;
    for (int si = 0; si < nsrc; si++)
        own += g->sz[v->li * nsrc + si] = vblock(a, 0, src[si]).bytes;
    g->own = smap_sched_tmp(s, (size_t)own + 1);
    g->in = smap_sched_tmp(s, 1), g->out = smap_sched_tmp(s, 1);
    return g->own && g->in && g->out ? g : NULL;
}

/* Round 1, messages: the node's own blocks directly (from scratch copies
 * made by the caller when in place: `out`), and to each other member j
 * what this rank expects from j's sources, from each member what it
 * expects from this rank's. */
static int round_node(struct smap_sched *s, const struct vmap *v, const struct smap_a2a *a,
                      struct vblk *out, struct gw *g, int p)
{
    smap_dtype_t *ct = smap_dtype_get(MPI_COUNT);
    const int *mine = v->list + v->start[v->nd];
    for (int j = 0; j < v->k; j++) {
        if (j == v->li)
            continue;
        struct vblk rb = vblock(a, 0, mine[j]);
        smap_sched_send(s, out[j].p, out[j].n, out[j].t, mine[j]);
        smap_sched_recv(s, rb.p, rb.n, rb.t, mine[j]);
        int nj = 0;
        for (int r = 0; r < p; r++)
            nj += vsource_of(v, r, j);
        MPI_Count *want = smap_sched_tmp(s, ((size_t)nj + 1) * sizeof *want);
        if (!want)
            return -1;
        for (int r = 0, i = 0; r < p; r++)
            if (vsource_of(v, r, j))
                want[i++] = vblock(a, 0, r).bytes;
        if (nj > 0)
            smap_sched_send(s, want, nj, ct, mine[j]);
        if (g->nsrc > 0)
            smap_sched_recv(s, g->sz + (size_t)j * g->nsrc, g->nsrc, ct, mine[j]);
    }
    return smap_sched_barrier(s);
}

/* Round 1, local steps: this rank's blocks for each other node packed
 * (node order) into *pack[node], its node's blocks to send in out[j]
 * (copied out of the receive buffer when in place), its own block in
 * place. */
static int round_pack(struct smap_sched *s, const struct vmap *v, const struct smap_a2a *a,
                      char **pack, MPI_Count *plen, struct vblk *out)
{
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int inplace = a->sbuf == MPI_IN_PLACE, nn = v->m->nn;
    for (int y = 0; y < nn; y++) {
        if (y == v->nd)
            continue;
        plen[y] = 0;
        for (int i = v->start[y]; i < v->start[y + 1]; i++)
            plen[y] += vblock(a, !inplace, v->list[i]).bytes;
        char *o = pack[y] = smap_sched_tmp(s, (size_t)plen[y] + 1);
        if (!o)
            return -1;
        for (int i = v->start[y]; i < v->start[y + 1]; i++) {
            struct vblk b = vblock(a, !inplace, v->list[i]);
            smap_sched_copy(s, b.p, b.n, b.t, o, b.bytes, byte);
            o += b.bytes;
        }
    }
    const int *mine = v->list + v->start[v->nd];
    for (int j = 0; j < v->k; j++) {
        struct vblk b = vblock(a, !inplace, mine[j]);
        if (mine[j] == v->me) {
            struct vblk rb = vblock(a, 0, v->me);
            if (!inplace)
                smap_sched_copy(s, b.p, b.n, b.t, rb.p, rb.n, rb.t);
            continue;
        }
        out[j] = b;
        if (!inplace)
            continue;
        out[j] = (struct vblk){ smap_sched_tmp(s, (size_t)b.bytes + 1), b.bytes, b.bytes, byte };
        if (!out[j].p)
            return -1;
        smap_sched_copy(s, b.p, b.n, b.t, out[j].p, b.bytes, byte);
    }
    return 0;
}

/* Rounds 3 and 4 of a member: from each other gateway j of the node, its
 * sources' blocks for this rank (rank order) in one message into fin,
 * unpacked once all have arrived. */
static void round_fin(struct smap_sched *s, const struct vmap *v, const struct smap_a2a *a,
                      int p)
{
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    const int *mine = v->list + v->start[v->nd];
    char **fin = smap_sched_tmp(s, (size_t)v->k * sizeof *fin);
    if (!fin)
        return;
    for (int j = 0; j < v->k; j++) {
        MPI_Count bytes = 0;
        int from = 0;
        for (int r = 0; r < p && j != v->li; r++)
            if (vsource_of(v, r, j))
                from++, bytes += vblock(a, 0, r).bytes;
        fin[j] = from ? smap_sched_tmp(s, (size_t)bytes + 1) : NULL;
        if (from && fin[j])
            smap_sched_recv(s, fin[j], bytes, byte, mine[j]);
    }
    smap_sched_barrier(s);
    for (int j = 0; j < v->k; j++) {
        const char *at = fin[j];
        for (int r = 0; r < p && at; r++)
            if (vsource_of(v, r, j)) {
                struct vblk rb = vblock(a, 0, r);
                smap_sched_copy(s, at, rb.bytes, byte, rb.p, rb.n, rb.t);
                at += rb.bytes;
            }
    }
}

/* Round 3 of a gateway: regroup, unpack its own blocks, hand each other
 * member its blocks (sized by round 2's layout). */
static void round_gateway(struct smap_sched *s, const struct vmap *v, const struct smap_a2a *a,
                          struct gw *g)
{
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    const int *mine = v->list + v->start[v->nd];
    smap_sched_callback(s, gw_regroup, g);
    const char *at = g->own;
    for (int si = 0; si < g->nsrc; si++) {
        struct vblk rb = vblock(a, 0, g->src[si]);
        smap_sched_copy(s, at, rb.bytes, byte, rb.p, rb.n, rb.t);
        at += rb.bytes;
    }
    for (int j = 0; j < v->k; j++)
        if (j != v->li)
            smap_sched_send_late(s, &g->out, &g->outoff[j], &g->outlen[j], byte, mine[j]);
}

int hier_ialltoallv(const struct smap_a2a *a, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s;
    struct hier_imap m;
    int rc = hier_nb_start(c, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    if (m.nn == c->size) {   /* one rank per node: nothing to aggregate */
        smap_sched_free(s);
        return SMAP_HIER_FLAT;
    }
    int p = c->size, nn = m.nn;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    struct vmap v = { .m = &m, .me = c->rank, .nd = m.node_of[c->rank],
                      .li = m.local_of[c->rank], .k = m.k };
    v.start = smap_sched_tmp(s, ((size_t)nn + 1) * sizeof *v.start);
    v.list = smap_sched_tmp(s, (size_t)p * sizeof *v.list);
    char **pack = smap_sched_tmp(s, (size_t)nn * sizeof *pack);
    MPI_Count *plen = smap_sched_tmp(s, (size_t)nn * sizeof *plen);
    struct vblk *out = smap_sched_tmp(s, (size_t)v.k * sizeof *out);
    if (!v.start || !v.list || !pack || !plen || !out)
        return hier_launch(s, req);   /* fails: out of memory */
    for (int y = 0; y <= nn; y++)
        v.start[y] = 0;
    for (int r = 0; r < p; r++)
        v.start[m.node_of[r] + 1]++;
    for (int y = 0; y < nn; y++)
        v.start[y + 1] += v.start[y];
    for (int r = 0; r < p; r++)
        v.list[v.start[m.node_of[r]] + m.local_of[r]] = r;
    struct gw *g = gw_new(s, &v, a, p);
    if (!g || round_pack(s, &v, a, pack, plen, out) != 0 ||
        round_node(s, &v, a, out, g, p) != 0)
        return hier_launch(s, req);
    /* round 2: across the nodes */
    if (g->nsrc > 0)
        smap_sched_callback(s, gw_layout, g);
    for (int si = 0; si < g->nsrc; si++)
        smap_sched_recv_late(s, &g->in, &g->inoff[si], &g->inlen[si], byte, g->src[si]);
    for (int y = 0; y < nn; y++)
        if (y != v.nd)
            smap_sched_send(s, pack[y], plen[y], byte, vgateway(&v, y));
    smap_sched_barrier(s);
    /* rounds 3 and 4: on the node */
    if (g->nsrc > 0)
        round_gateway(s, &v, a, g);
    round_fin(s, &v, a, p);
    return hier_launch(s, req);
}
