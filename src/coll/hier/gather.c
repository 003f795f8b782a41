/* Hierarchical Gather and Scatter (the plain forms: every block has the
 * same signature, so a node's blocks have a size every rank knows; the v
 * forms, whose counts only the root knows, are in gatherv.c).  Blocks
 * below SMAP_COLL_HIER_GATHER_MIN (_SCATTER_MIN) bytes, and communicators
 * with one rank per node, take the flat schedule (README: "Measured").
 *
 * Gather: the root's node gathers straight into the root's receive
 * buffer (the on-node gather: the root reads its peers' blocks); every
 * other node gathers its blocks packed on its leader, which sends them to
 * the root as one message; the root unpacks them into place.  Scatter is
 * the mirror: the root packs each other node's blocks and sends them to
 * its leader in one message, then every node scatters on the node.
 *
 * The message between a leader and the root is a schedule on c that every
 * member starts (empty on most), so that c's schedule numbers stay equal
 * on all members.
 *
 * When a node holds more blocks than fit in SMAP_COLL_HIER_CHUNK, the
 * call runs in the chunk pipeline over groups of members (rooted_pipeline:
 * group k crosses between its leader and the root while the node gathers
 * group k+1 / scatters group k-1). */
#include "coll/hier/internal.h"

#include <stdlib.h>

#include "base/tunables.h"
#include "dtype/engine.h"

/* Ranks of node nd by rank in the node, their count in *k. */
static int *node_ranks(const struct smap_hier *h, int nc, int nd, int *k)
{
    int *l = malloc((size_t)nc * sizeof *l);
    *k = 0;
    if (l)
        for (int i = 0; i < nc; i++)
            if (h->node_of[i] == nd)
                l[(*k)++] = i;
    return l;
}

int hier_node_gatherv(struct smap_hier *h, const void *sbuf, MPI_Count scount, smap_dtype_t *st,
                      void *rbuf, const MPI_Count *cnt, const MPI_Count *dsp, smap_dtype_t *rt,
                      int root)
{
    smap_comm_t *n = h->node;
    struct smap_cvec cv = { cnt, 1 }, dv = { dsp, 1 };
    if (n->size == 1)
        return hier_node_self(h, sbuf, scount, st, rbuf, cnt[0], dsp[0], rt);
    return n->slot >= 0
               ? (smap_cb_gather(sbuf, scount, st, rbuf, 0, cv, dv, rt, root, 1, n))
               : (
                     smap_nbc_gather(sbuf, scount, st, rbuf, 0, cv, dv, rt, root, n, NULL));
}

int hier_node_scatterv(struct smap_hier *h, const void *sbuf, const MPI_Count *cnt,
                       const MPI_Count *dsp, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                       smap_dtype_t *rt, int root)
{
    smap_comm_t *n = h->node;
    struct smap_cvec cv = { cnt, 1 }, dv = { dsp, 1 };
    if (n->size == 1) {
        if (rbuf == MPI_IN_PLACE)
            return MPI_SUCCESS;
        struct smap_sched *s = smap_sched_new(n);
        if (!s)
            return smap_fail(MPI_ERR_NO_MEM, "out of memory for a schedule");
        smap_sched_copy(s, hier_at(sbuf, dsp[0], st), cnt[0], st, rbuf, rcount, rt);
        return hier_run(s, "out of memory building the node's copy");
    }
    return n->slot >= 0
               ? (smap_cb_scatter(sbuf, 0, cv, dv, st, rbuf, rcount, rt, root, 1, n))
               : (
                     smap_nbc_scatter(sbuf, 0, cv, dv, st, rbuf, rcount, rt, root, n, NULL));
}

/* What one rooted call needs: its node's ranks, the per-node-rank counts
 * and displacements, the packed node buffer of a leader off the root's
 * node. */
struct rooted {
    int k, *ranks;
    MPI_Count *cnt, *dsp;
    char *pack;
};

/* On the root's node the blocks are the root's count elements at each
 * rank's place in its buffer; elsewhere blk bytes each, packed in node
 * order. */
static int rooted_init(struct rooted *r, struct smap_hier *h, smap_comm_t *c, MPI_Count blk,
                       int on_root_node, MPI_Count count)
{
    r->ranks = node_ranks(h, c->size, h->node_of[c->rank], &r->k);
    r->cnt = malloc(2 * (size_t)c->size * sizeof *r->cnt);
    r->pack = malloc((size_t)(r->k * blk) + 1);
    if (!r->ranks || !r->cnt || !r->pack) {
        free(r->ranks), free(r->cnt), free(r->pack);
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the node's blocks");
    }
    r->dsp = r->cnt + c->size;
    for (int j = 0; j < r->k; j++) {
        r->cnt[j] = on_root_node ? count : blk;
        r->dsp[j] = on_root_node ? r->ranks[j] * count : j * blk;
    }
    return MPI_SUCCESS;
}

static void rooted_free(struct rooted *r)
{
    free(r->ranks), free(r->cnt), free(r->pack);
}

/* The root's side of the leaders' messages, one per other node: its
 * ranks' blocks packed in rank order, unpacked from (packed into) ubuf. */
static void root_side(struct smap_sched *s, struct smap_hier *h, smap_comm_t *c, void *ubuf,
                      MPI_Count ucount, smap_dtype_t *ut, MPI_Count blk, int gather)
{
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int nd = h->node_of[c->rank];
    char **tmp = smap_sched_tmp(s, (size_t)h->nnodes * sizeof *tmp);
    if (!tmp)
        return;
    for (int m = 0; m < h->nnodes; m++) {
        if (m == nd)
            continue;
        int km = hier_node_size(h, m);
        tmp[m] = NULL;
        if (km == 1) {   /* a lone block: straight from (into) ubuf */
            void *at = hier_at(ubuf, hier_rank_at(h, m, 0) * ucount, ut);
            if (gather)
                smap_sched_recv(s, at, ucount, ut, h->leader_of[m]);
            else
                smap_sched_send(s, at, ucount, ut, h->leader_of[m]);
            continue;
        }
        char *t = tmp[m] = smap_sched_tmp(s, (size_t)(km * blk));
        if (!t)
            return;
        for (int i = 0, j = 0; i < c->size && !gather; i++)
            if (h->node_of[i] == m)
                smap_sched_copy(s, hier_at(ubuf, i * ucount, ut), ucount, ut, t + j++ * blk, blk,
                                byte);
        if (gather)
            smap_sched_recv(s, t, km * blk, byte, h->leader_of[m]);
        else
            smap_sched_send(s, t, km * blk, byte, h->leader_of[m]);
    }
    if (!gather)
        return;
    smap_sched_barrier(s);   /* unpacked once all arrived */
    for (int i = 0; i < c->size; i++) {
        int m = h->node_of[i];
        if (m != nd && tmp[m])
            smap_sched_copy(s, tmp[m], blk, byte, hier_at(ubuf, i * ucount, ut), ucount, ut),
                tmp[m] += blk;
    }
}

int hier_root_leaders(struct smap_hier *h, smap_comm_t *c, int root, hier_side_fn *at_root,
                      hier_side_fn *at_leader, void *arg)
{
    struct smap_sched *s = smap_sched_new(c);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the root's schedule");
    int me = c->rank;
    if (me == root)
        at_root(s, arg);
    else if (hier_is_leader(h) && h->node_of[me] != h->node_of[root])
        at_leader(s, arg);
    return hier_run(s, "out of memory building the root's schedule");
}

/* The plain forms' sides of hier_root_leaders. */
struct plain_call {
    struct smap_hier *h;
    smap_comm_t *c;
    int root, gather;
    void *ubuf;
    MPI_Count ucount, blk;
    smap_dtype_t *ut;
    struct rooted *r;
};

static void plain_root_side(struct smap_sched *s, void *arg)
{
    struct plain_call *p = arg;
    root_side(s, p->h, p->c, p->ubuf, p->ucount, p->ut, p->blk, p->gather);
}

static void plain_leader_side(struct smap_sched *s, void *arg)
{
    struct plain_call *p = arg;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    if (p->gather)
        smap_sched_send(s, p->r->pack, p->r->k * p->blk, byte, p->root);
    else
        smap_sched_recv(s, p->r->pack, p->r->k * p->blk, byte, p->root);
}

static int root_leaders(struct smap_hier *h, smap_comm_t *c, int root, void *ubuf,
                        MPI_Count ucount, smap_dtype_t *ut, struct rooted *r, MPI_Count blk,
                        int gather)
{
    struct plain_call p = { h, c, root, gather, ubuf, ucount, blk, ut, r };
    return hier_root_leaders(h, c, root, plain_root_side, plain_leader_side, &p);
}

/* ---- large calls: the pipeline over groups of members ---------------- */

/* Chunk k is members [start, start+len) of every node (node order): their
 * blocks cross between the leaders and the root while the node gathers
 * (scatters) the next (previous) group.  A chunk holds as many blocks as
 * fit in SMAP_COLL_HIER_CHUNK, at least one. */
struct rpipe {
    struct smap_hier *h;
    smap_comm_t *c;
    struct rooted *r;
    int root, gather, on_root_node;
    const void *sbuf;
    MPI_Count scount;
    smap_dtype_t *st;
    void *rbuf;
    MPI_Count rcount;
    smap_dtype_t *rt;
    MPI_Count blk;
    char *far;           /* the root's: every other node's blocks packed, node by node */
    MPI_Count *far_at;   /* by node: where its blocks start in far */
    MPI_Count *cn;       /* this chunk's node counts (k entries) */
};

static MPI_Count in_chunk(MPI_Count km, MPI_Count start, MPI_Count len)
{
    MPI_Count end = start + len < km ? start + len : km;
    return end > start ? end - start : 0;
}

/* This node's phase for chunk [start, start+len): only its members move. */
static int rp_node(struct rpipe *a, MPI_Count start, MPI_Count len)
{
    struct rooted *r = a->r;
    struct smap_hier *h = a->h;
    if (in_chunk(r->k, start, len) == 0)
        return MPI_SUCCESS;
    for (int j = 0; j < r->k; j++)
        a->cn[j] = j >= start && j < start + len ? r->cnt[j] : 0;
    int me = h->local_of[a->c->rank], mine = me >= start && me < start + len;
    int nroot = a->on_root_node ? h->local_of[a->root] : 0;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    if (a->gather)
        return a->on_root_node
                   ? hier_node_gatherv(h, a->sbuf, mine ? a->scount : 0, a->st, a->rbuf, a->cn,
                                       r->dsp, a->rt, nroot)
                   : hier_node_gatherv(h, a->sbuf, mine ? a->scount : 0, a->st, r->pack, a->cn,
                                       r->dsp, byte, 0);
    return a->on_root_node
               ? hier_node_scatterv(h, a->sbuf, a->cn, r->dsp, a->st, a->rbuf,
                                    mine ? a->rcount : 0, a->rt, nroot)
               : hier_node_scatterv(h, r->pack, a->cn, r->dsp, byte, a->rbuf,
                                    mine ? a->rcount : 0, a->rt, 0);
}

/* The root's message of a chunk that holds one block of node m (member
 * j): no copy through far. */
static void rp_lone(struct rpipe *a, struct smap_sched *s, int m, int j)
{
    int i = hier_rank_at(a->h, m, j), leader = a->h->leader_of[m];
    if (a->gather)
        smap_sched_recv(s, hier_at(a->rbuf, i * a->rcount, a->rt), a->rcount, a->rt, leader);
    else
        smap_sched_send(s, hier_at(a->sbuf, i * a->scount, a->st), a->scount, a->st, leader);
}

/* The chunk's messages between the root and the other nodes' leaders, a
 * schedule on c that every member starts (empty on most), in *req. */
static int rp_net(struct rpipe *a, MPI_Count start, MPI_Count len, MPI_Request *req)
{
    struct smap_hier *h = a->h;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int me = a->c->rank, rn = h->node_of[a->root];
    struct smap_sched *s = smap_sched_new(a->c);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the root's schedule");
    if (me == a->root) {
        for (int m = 0; m < h->nnodes; m++) {
            MPI_Count n = in_chunk(hier_node_size(h, m), start, len);
            if (m == rn || n == 0)
                continue;
            if (n == 1) {   /* a lone block: straight from (into) the user's buffer */
                rp_lone(a, s, m, (int)start);
                continue;
            }
            char *at = a->far + a->far_at[m] + start * a->blk;
            for (MPI_Count j = start; j < start + n && !a->gather; j++)
                smap_sched_copy(s, hier_at(a->sbuf, hier_rank_at(h, m, (int)j) * a->scount, a->st),
                                a->scount, a->st, at + (j - start) * a->blk, a->blk, byte);
            if (a->gather)
                smap_sched_recv(s, at, n * a->blk, byte, h->leader_of[m]);
            else
                smap_sched_send(s, at, n * a->blk, byte, h->leader_of[m]);
        }
    } else if (hier_is_leader(h) && !a->on_root_node) {
        MPI_Count n = in_chunk(a->r->k, start, len);
        char *at = a->r->pack + start * a->blk;
        if (n > 0 && a->gather)
            smap_sched_send(s, at, n * a->blk, byte, a->root);
        else if (n > 0)
            smap_sched_recv(s, at, n * a->blk, byte, a->root);
    }
    return hier_launch(s, req);
}

/* The root unpacks the chunk's blocks of the other nodes into place (a
 * lone block arrived in place). */
static void rp_unpack(struct rpipe *a, MPI_Count start, MPI_Count len)
{
    struct smap_hier *h = a->h;
    int rn = h->node_of[a->root];
    for (int m = 0; m < h->nnodes; m++) {
        MPI_Count n = in_chunk(hier_node_size(h, m), start, len);
        for (MPI_Count j = start; j < start + n && m != rn && n > 1; j++)
            smap_dtype_copy(hier_at(a->rbuf, hier_rank_at(h, m, (int)j) * a->rcount, a->rt),
                            a->rcount, a->rt, a->far + a->far_at[m] + j * a->blk, a->blk,
                            smap_dtype_get(MPI_BYTE));
    }
}

/* Gather: the node's group, then its message; the root unpacks a chunk
 * once it arrived.  Scatter: the message, then the node's group. */
static int rp_front(void *arg, MPI_Count start, MPI_Count len, MPI_Request *req)
{
    struct rpipe *a = arg;
    int rc = a->gather ? rp_node(a, start, len) : MPI_SUCCESS;
    return rc == MPI_SUCCESS ? rp_net(a, start, len, req) : rc;
}

static int rp_back(void *arg, MPI_Count start, MPI_Count len)
{
    struct rpipe *a = arg;
    if (!a->gather)
        return rp_node(a, start, len);
    if (a->c->rank == a->root)
        rp_unpack(a, start, len);
    return MPI_SUCCESS;
}

/* Runs a large rooted call through the pipeline when its largest node
 * holds more than one chunk of blocks; SMAP_HIER_FLAT otherwise (the
 * caller then runs the whole call). */
static int rooted_pipeline(struct rpipe *a)
{
    struct smap_hier *h = a->h;
    MPI_Count g = (MPI_Count)smap_tun.coll_hier_chunk / a->blk, most = 0;
    g = g > 0 ? g : 1;
    for (int m = 0; m < h->nnodes; m++)
        most = hier_node_size(h, m) > most ? hier_node_size(h, m) : most;
    if (most <= g)
        return SMAP_HIER_FLAT;
    MPI_Count *cn = malloc((size_t)a->r->k * sizeof *cn), *far_at = NULL, total = 0;
    char *far = NULL;
    if (cn && a->c->rank == a->root) {
        far_at = malloc((size_t)h->nnodes * sizeof *far_at);
        for (int m = 0; far_at && m < h->nnodes; m++) {
            far_at[m] = total;   /* (one block per chunk: each goes straight, far unused) */
            total += m == h->node_of[a->root] || g == 1 ? 0 : hier_node_size(h, m) * a->blk;
        }
        far = malloc((size_t)total + 1);
    }
    int rc;
    if (!cn || (a->c->rank == a->root && (!far_at || !far))) {
        rc = smap_fail(MPI_ERR_NO_MEM, "out of memory for the other nodes' blocks");
    } else {
        a->cn = cn, a->far = far, a->far_at = far_at;
        struct hier_pipe p = { rp_front, rp_back, a };
        rc = hier_pipeline_n(&p, most, g);
    }
    free(cn), free(far_at), free(far);
    return rc;
}

int smap_hier_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                     MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                     smap_dtype_t *rt, int root, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    if (rcounts.p || displs.p || h->nnodes == c->size)
        return SMAP_HIER_FLAT;   /* (one rank per node: nothing to aggregate) */
    int me = c->rank, on_root_node = h->node_of[me] == h->node_of[root];
    MPI_Count blk = me == root ? rcount * rt->size : scount * st->size;
    if ((uint64_t)blk < smap_tun.coll_hier_gather_min)
        return SMAP_HIER_FLAT;   /* small: the flat senders run ahead of the root */
    if (blk == 0)
        return MPI_SUCCESS;
    struct rooted r;
    int rc = rooted_init(&r, h, c, blk, on_root_node, rcount);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = rooted_pipeline(&(struct rpipe){ h, c, &r, root, 1, on_root_node, sbuf, scount, st,
                                          rbuf, rcount, rt, blk, NULL, NULL, NULL });
    if (rc != SMAP_HIER_FLAT) {
        rooted_free(&r);
        return rc;
    }
    rc = MPI_SUCCESS;
    if (on_root_node)   /* straight into the root's buffer */
        rc = hier_node_gatherv(h, sbuf, scount, st, rbuf, r.cnt, r.dsp, rt, h->local_of[root]);
    else
        rc = hier_node_gatherv(h, sbuf, scount, st, r.pack, r.cnt, r.dsp,
                               smap_dtype_get(MPI_BYTE), 0);
    if (rc == MPI_SUCCESS)
        rc = root_leaders(h, c, root, rbuf, rcount, rt, &r, blk, 1);
    rooted_free(&r);
    return rc;
}

int smap_hier_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                      struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                      smap_dtype_t *rt, int root, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    if (scounts.p || displs.p || h->nnodes == c->size)
        return SMAP_HIER_FLAT;
    int me = c->rank, on_root_node = h->node_of[me] == h->node_of[root];
    MPI_Count blk = me == root ? scount * st->size : rcount * rt->size;
    if ((uint64_t)blk < smap_tun.coll_hier_scatter_min)
        return SMAP_HIER_FLAT;
    if (blk == 0)
        return MPI_SUCCESS;
    struct rooted r;
    int rc = rooted_init(&r, h, c, blk, on_root_node, scount);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = rooted_pipeline(&(struct rpipe){ h, c, &r, root, 0, on_root_node, sbuf, scount, st,
                                          rbuf, rcount, rt, blk, NULL, NULL, NULL });
    if (rc != SMAP_HIER_FLAT) {
        rooted_free(&r);
        return rc;
    }
    rc = root_leaders(h, c, root, (void *)sbuf, scount, st, &r, blk, 0);
    if (rc == MPI_SUCCESS) {
        if (on_root_node)
            rc = hier_node_scatterv(h, sbuf, r.cnt, r.dsp, st, rbuf, rcount, rt,
                                    h->local_of[root]);
        else
            rc = hier_node_scatterv(h, r.pack, r.cnt, r.dsp, smap_dtype_get(MPI_BYTE), rbuf,
                                    rcount, rt, 0);
    }
    rooted_free(&r);
    return rc;
}
