/* Hierarchical Reduce_scatter and Reduce_scatter_block: every node folds
 * the whole vector onto its leader (the control-block reduction, rank
 * order); the leaders exchange their partial results node block by node
 * block (a node's block: its ranks' blocks in node order), each leader
 * folding the n partials of its own node's block in node order; every
 * node scatters its block from its leader.
 *
 * A node block larger than SMAP_COLL_HIER_CHUNK (nodes holding ranges of
 * ranks) goes through the chunk pipeline (pipeline.c): chunk k of every
 * node block is folded on the node (one node reduction per node block)
 * while the leaders exchange and fold chunk k-1, whose part of this
 * node's block is then scattered.  Over interleaved nodes the chunks are
 * ranges of the vector (one node reduction each): a chunk's part of a
 * node block is still one range of it, since a node's ranks are in
 * vector order.
 *
 * The leaders' exchange is one round of direct messages (each leader sends
 * n-1 node blocks and receives n-1: the bytes of a ring reduce-scatter in
 * one step, fine for a few nodes) and keeps node order, so when every node
 * holds one range of ranks any op is right.  When the ranks interleave, a
 * node's block is not one range of the vector: it is packed (copies), which
 * only commutative ops allow; a non-commutative op then takes the flat
 * schedule (SMAP_HIER_FLAT). */
#include "coll/hier/internal.h"

#include <stdlib.h>

/* The per-call layout: each rank's count and offset in the vector, this
 * node's ranks in node order, every node's block length. */
struct rs {
    MPI_Count *cnt, *off, *klen;   /* by rank in c, by rank in c, by node */
    int *mine, k;                  /* this node's ranks, their number */
    MPI_Count total;
};

static void rs_free(struct rs *r)
{
    free(r->cnt), free(r->mine);
}

static int rs_init(struct rs *r, struct smap_hier *h, smap_comm_t *c, struct smap_cvec rcounts,
                   MPI_Count block)
{
    int n = c->size, nd = h->node_of[c->rank];
    r->cnt = malloc((2 * (size_t)n + (size_t)h->nnodes) * sizeof *r->cnt);
    r->mine = malloc((size_t)n * sizeof *r->mine);
    if (!r->cnt || !r->mine) {
        rs_free(r);
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the reduce-scatter's layout");
    }
    r->off = r->cnt + n;
    r->klen = r->off + n;
    for (int m = 0; m < h->nnodes; m++)
        r->klen[m] = 0;
    r->total = 0;
    r->k = 0;
    for (int i = 0; i < n; i++) {
        r->cnt[i] = rcounts.p ? smap_cvec_at(rcounts, i) : block;
        r->off[i] = r->total;
        r->total += r->cnt[i];
        r->klen[h->node_of[i]] += r->cnt[i];
        if (h->node_of[i] == nd)
            r->mine[r->k++] = i;
    }
    return MPI_SUCCESS;
}

/* Node m's block of the partial `acc` for sending: in place when the node
 * holds one range of ranks, else packed into `to` (copies in s). */
static void *node_block(struct smap_sched *s, struct smap_hier *h, const struct rs *r, void *acc,
                        int m, void *to, smap_dtype_t *t, smap_comm_t *c)
{
    if (h->contiguous)
        return hier_at(acc, r->off[h->leader_of[m]], t);
    MPI_Count at = 0;
    for (int i = 0; i < c->size; i++)
        if (h->node_of[i] == m) {
            smap_sched_copy(s, hier_at(acc, r->off[i], t), r->cnt[i], t, hier_at(to, at, t),
                            r->cnt[i], t);
            at += r->cnt[i];
        }
    return to;
}

/* The leaders' exchange: node j's partial of this node's block lands in
 * got + j * K (K: this node's block length; slot m is this node's own
 * partial when packed), folded in node order; *res says where the
 * result is. */
static int lead_exchange(struct smap_hier *h, const struct rs *r, void *acc, void *got,
                         void *sendbuf, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                         smap_comm_t *c, void **res)
{
    smap_comm_t *l = h->lead;
    int nn = l->size, m = l->rank;
    MPI_Count kk = r->klen[m];
    struct smap_sched *s = smap_sched_new(l);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the leaders' schedule");
    void *own = node_block(s, h, r, acc, m, hier_at(got, m * kk, t), t, c);
    MPI_Count sat = 0;   /* packed send blocks, one after another */
    for (int j = 0; j < nn; j++) {
        if (j == m)
            continue;
        void *blk = node_block(s, h, r, acc, j, hier_at(sendbuf, sat, t), t, c);
        sat += h->contiguous ? 0 : r->klen[j];
        smap_sched_send(s, blk, r->klen[j], t, j);
        smap_sched_recv(s, hier_at(got, j * kk, t), kk, t, j);
    }
    smap_sched_barrier(s);
    /* (P_0 op .. op P_{m-1}) op (own op P_{m+1} op .. op P_{nn-1}):
     * inout = in op inout, so the right part folds into the later slot */
    void *cur = own;
    for (int j = m + 1; j < nn; j++) {
        void *pj = hier_at(got, j * kk, t);
        smap_sched_reduce(s, cur, pj, kk, t, type, op);
        cur = pj;
    }
    for (int j = m - 1; j >= 0; j--)
        smap_sched_reduce(s, hier_at(got, j * kk, t), cur, kk, t, type, op);
    *res = cur;
    return hier_run(s, "out of memory building the leaders' schedule");
}

/* ---- the pipeline (contiguous nodes, a node block above one chunk) ---- */

/* Chunk [start, start+len) of every node's block: node j's part is
 * [off + start, off + start + n) of the vector. */
static MPI_Count part_len(const struct rs *r, int j, MPI_Count start, MPI_Count len)
{
    MPI_Count end = start + len < r->klen[j] ? start + len : r->klen[j];
    return end > start ? end - start : 0;
}

/* The leaders' fold of a part of `mine` elements: slot j of got holds
 * node j's partial at j*kk + at, own the leader's (node m's) own;
 * (P_0 op .. op P_{m-1}) op (own op P_{m+1} op .. op P_{nn-1}), inout =
 * in op inout, so the result lands in the last node's slot. */
static void fold_part(struct smap_sched *s, void *got, void *own, int m, int nn, MPI_Count kk,
                      MPI_Count at, MPI_Count mine, smap_dtype_t *t, MPI_Datatype type, MPI_Op op)
{
    void *cur = own;
    for (int j = m + 1; j < nn && mine > 0; j++) {
        void *pj = hier_at(got, j * kk + at, t);
        smap_sched_reduce(s, cur, pj, mine, t, type, op);
        cur = pj;
    }
    for (int j = m - 1; j >= 0 && mine > 0; j--)
        smap_sched_reduce(s, hier_at(got, j * kk + at, t), cur, mine, t, type, op);
}

struct rsp {
    struct smap_hier *h;
    const struct rs *r;
    const void *in;
    void *rbuf, *acc, *got, *res, *send;   /* acc, got, res, send: the leader's */
    smap_dtype_t *t;
    MPI_Datatype type;
    MPI_Op op;
    int me;   /* rank in c */
};

/* Chunk k: the node folds every node block's part onto the leader, which
 * starts the leaders' exchange and fold of the parts (*req). */
static int rs_front(void *arg, MPI_Count start, MPI_Count len, MPI_Request *req)
{
    struct rsp *a = arg;
    struct smap_hier *h = a->h;
    const struct rs *r = a->r;
    smap_dtype_t *t = a->t;
    int leader = hier_is_leader(h), rc = MPI_SUCCESS;
    *req = MPI_REQUEST_NULL;
    for (int j = 0; j < h->nnodes && rc == MPI_SUCCESS; j++) {
        MPI_Count n = part_len(r, j, start, len), at = r->off[h->leader_of[j]] + start;
        void *to = leader ? hier_at(a->acc, at, t) : a->rbuf;   /* (ignored off the leader) */
        if (n > 0)
            rc = hier_node_reduce(h, hier_at(a->in, at, t), to, n, t, a->type, a->op, 0);
    }
    if (rc != MPI_SUCCESS || !leader || h->lead->size == 1)
        return rc;
    smap_comm_t *l = h->lead;
    int nn = l->size, m = l->rank;
    MPI_Count kk = r->klen[m], mine = part_len(r, m, start, len);
    struct smap_sched *s = smap_sched_new(l);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the leaders' schedule");
    for (int j = 0; j < nn; j++) {
        MPI_Count n = part_len(r, j, start, len);
        if (j == m)
            continue;
        if (n > 0)
            smap_sched_send(s, hier_at(a->acc, r->off[h->leader_of[j]] + start, t), n, t, j);
        if (mine > 0)
            smap_sched_recv(s, hier_at(a->got, j * kk + start, t), mine, t, j);
    }
    smap_sched_barrier(s);
    /* lead_exchange's fold on the part: the result lands in a->res */
    fold_part(s, a->got, hier_at(a->acc, r->off[h->leader_of[m]] + start, t), m, nn, kk, start,
              mine, t, a->type, a->op);
    return hier_launch(s, req);
}

/* Chunk k after the leaders': the node scatters its block's part, each
 * member receiving the piece of its own block that lies in it. */
static int rs_back(void *arg, MPI_Count start, MPI_Count len)
{
    struct rsp *a = arg;
    const struct rs *r = a->r;
    MPI_Count own = part_len(r, a->h->node_of[a->me], start, len), end = start + own;
    if (own == 0)
        return MPI_SUCCESS;
    MPI_Count *cn = malloc(2 * (size_t)r->k * sizeof *cn), mylen = 0, bo = 0;
    if (!cn)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the node's counts");
    void *mypart = a->rbuf;
    for (int j = 0; j < r->k; j++) {
        MPI_Count c = r->cnt[r->mine[j]], lo = bo > start ? bo : start;
        MPI_Count hi = bo + c < end ? bo + c : end;
        cn[j] = hi > lo ? hi - lo : 0;
        cn[r->k + j] = hi > lo ? lo - start : 0;
        if (r->mine[j] == a->me && hi > lo) {
            mylen = hi - lo;
            mypart = hier_at(a->rbuf, lo - bo, a->t);
        }
        bo += c;
    }
    const void *from = hier_is_leader(a->h) ? hier_at(a->res, start, a->t) : NULL;
    int rc = hier_node_scatterv(a->h, from, cn, cn + r->k, a->t, mypart, mylen, a->t, 0);
    free(cn);
    return rc;
}

/* ---- the pipeline over interleaved nodes (a node block is no range) ----
 *
 * Chunk k is the vector's range [start, start+len): one node reduction
 * folds it onto the leader; each node's ranks' parts of it are one range
 * of that node's packed block (its ranks in rank order, so in vector
 * order), which the leaders pack, exchange and fold like the contiguous
 * pipeline's parts; then each node scatters its part. */

/* Rank rk's part of the vector range [lo, hi): its length, *b its first
 * element in the vector. */
static MPI_Count il_clip(const struct rs *r, int rk, MPI_Count lo, MPI_Count hi, MPI_Count *b)
{
    MPI_Count e = r->off[rk] + r->cnt[rk] < hi ? r->off[rk] + r->cnt[rk] : hi;
    *b = r->off[rk] > lo ? r->off[rk] : lo;
    return e > *b ? e - *b : 0;
}

/* Node j's part of [lo, hi): its length, *at where it starts in node j's
 * packed block.  With `s`, its elements of acc (the leader's folded
 * vector) are copied to `to` in rank order. */
static MPI_Count il_part(struct smap_sched *s, const struct smap_hier *h, const struct rs *r,
                         int j, MPI_Count lo, MPI_Count hi, MPI_Count *at, const void *acc,
                         void *to, smap_dtype_t *t)
{
    MPI_Count n = 0, before = 0, b;
    *at = 0;
    for (int i = 0; i < hier_node_size(h, j); i++) {
        int rk = hier_rank_at(h, j, i);
        MPI_Count c = il_clip(r, rk, lo, hi, &b);
        if (c > 0 && n == 0)
            *at = before + (b - r->off[rk]);
        if (c > 0 && s)
            smap_sched_copy(s, hier_at(acc, b, t), c, t, hier_at(to, n, t), c, t);
        n += c;
        before += r->cnt[rk];
    }
    return n;
}

static int il_front(void *arg, MPI_Count start, MPI_Count len, MPI_Request *req)
{
    struct rsp *a = arg;
    struct smap_hier *h = a->h;
    const struct rs *r = a->r;
    smap_dtype_t *t = a->t;
    int leader = hier_is_leader(h);
    MPI_Count end = start + len, at, mat;
    *req = MPI_REQUEST_NULL;
    int rc = hier_node_reduce(h, hier_at(a->in, start, t),
                              leader ? hier_at(a->acc, start, t) : a->rbuf, len, t, a->type,
                              a->op, 0);
    if (rc != MPI_SUCCESS || !leader)
        return rc;
    smap_comm_t *l = h->lead;
    int nn = l->size, m = l->rank;
    MPI_Count kk = r->klen[m], mine = il_part(NULL, h, r, m, start, end, &mat, NULL, NULL, t);
    struct smap_sched *s = smap_sched_new(l);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the leaders' schedule");
    /* the own part into its slot of got, the others' packed one after
     * another in this chunk's range of the send buffer */
    void *to = hier_at(a->send, start, t);
    for (int j = 0; j < nn; j++) {
        void *dst = j == m ? hier_at(a->got, m * kk + mat, t) : to;
        MPI_Count n = il_part(s, h, r, j, start, end, &at, a->acc, dst, t);
        if (j == m || n == 0)
            continue;
        smap_sched_send(s, to, n, t, j);
        to = hier_at(to, n, t);
    }
    for (int j = 0; j < nn && mine > 0; j++)
        if (j != m)
            smap_sched_recv(s, hier_at(a->got, j * kk + mat, t), mine, t, j);
    smap_sched_barrier(s);
    fold_part(s, a->got, hier_at(a->got, m * kk + mat, t), m, nn, kk, mat, mine, t, a->type,
              a->op);
    return hier_launch(s, req);
}

/* Chunk k after the leaders': the node scatters its part, each member
 * receiving the piece of its own block that lies in the chunk. */
static int il_back(void *arg, MPI_Count start, MPI_Count len)
{
    struct rsp *a = arg;
    struct smap_hier *h = a->h;
    const struct rs *r = a->r;
    MPI_Count end = start + len, mat, b;
    int nd = h->node_of[a->me];
    if (il_part(NULL, h, r, nd, start, end, &mat, NULL, NULL, a->t) == 0)
        return MPI_SUCCESS;
    MPI_Count *cn = malloc(2 * (size_t)r->k * sizeof *cn), mylen = 0, bo = 0;
    if (!cn)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the node's counts");
    void *mypart = a->rbuf;
    for (int j = 0; j < r->k; j++) {
        int rk = r->mine[j];
        cn[j] = il_clip(r, rk, start, end, &b);
        cn[r->k + j] = cn[j] > 0 ? bo + (b - r->off[rk]) - mat : 0;
        if (rk == a->me && cn[j] > 0) {
            mylen = cn[j];
            mypart = hier_at(a->rbuf, b - r->off[rk], a->t);
        }
        bo += r->cnt[rk];
    }
    int nn = h->nnodes;
    const void *from = hier_is_leader(h) ? hier_at(a->got, (nn - 1) * r->klen[nd] + mat, a->t)
                                         : NULL;
    int rc = hier_node_scatterv(h, from, cn, cn + r->k, a->t, mypart, mylen, a->t, 0);
    free(cn);
    return rc;
}

int smap_hier_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                             MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                             smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    if (!h->contiguous && !hier_commutative(op))
        return SMAP_HIER_FLAT;
    struct rs r;
    int rc = rs_init(&r, h, c, rcounts, block);
    if (rc != MPI_SUCCESS || r.total == 0) {
        if (rc == MPI_SUCCESS)
            rs_free(&r);
        return rc;
    }
    int leader = hier_is_leader(h), nd = h->node_of[c->rank];
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    void *abase = NULL, *gbase = NULL, *sbase = NULL, *acc = rbuf, *got = NULL, *res = NULL,
         *pack = NULL;
    if (leader) {
        MPI_Count kk = r.klen[nd];
        acc = hier_tmp(r.total, t, &abase);
        got = hier_tmp((MPI_Count)h->nnodes * kk, t, &gbase);
        if (!h->contiguous)
            pack = hier_tmp(r.total, t, &sbase);
        if (!acc || !got || (!h->contiguous && !pack)) {
            free(abase), free(gbase), free(sbase), rs_free(&r);
            return smap_fail(MPI_ERR_NO_MEM, "out of memory for the leader's partial result");
        }
    }
    MPI_Count most = 0;
    for (int m = 0; m < h->nnodes; m++)
        most = r.klen[m] > most ? r.klen[m] : most;
    if (h->contiguous && most > hier_chunk(t)) {
        /* the fold chain of lead_exchange ends in the last node's slot */
        int nn = h->nnodes;
        if (leader)
            res = nd == nn - 1 ? hier_at(acc, r.off[h->leader_of[nd]], t)
                               : hier_at(got, (nn - 1) * r.klen[nd], t);
        struct rsp a = { h, &r, in, rbuf, acc, got, res, NULL, t, type, op, c->rank };
        struct hier_pipe pp = { rs_front, rs_back, &a };
        rc = hier_pipeline(&pp, most, t);
        free(abase), free(gbase), free(sbase), rs_free(&r);
        return rc;
    }
    if (!h->contiguous && r.total > hier_chunk(t)) {
        struct rsp a = { h, &r, in, rbuf, acc, got, NULL, pack, t, type, op, c->rank };
        struct hier_pipe pp = { il_front, il_back, &a };
        rc = hier_pipeline(&pp, r.total, t);
        free(abase), free(gbase), free(sbase), rs_free(&r);
        return rc;
    }
    rc = hier_node_reduce(h, in, acc, r.total, t, type, op, 0);
    if (rc == MPI_SUCCESS && leader)
        rc = lead_exchange(h, &r, acc, got, pack, t, type, op, c, &res);
    if (rc == MPI_SUCCESS) {
        /* this node's block, by rank in the node, packed at the leader */
        MPI_Count *cn = malloc(2 * (size_t)r.k * sizeof *cn);
        if (!cn) {
            rc = smap_fail(MPI_ERR_NO_MEM, "out of memory for the node's counts");
        } else {
            MPI_Count at = 0;
            for (int j = 0; j < r.k; j++) {
                cn[j] = r.cnt[r.mine[j]];
                cn[r.k + j] = at;
                at += cn[j];
            }
            rc = hier_node_scatterv(h, res, cn, cn + r.k, t, rbuf, r.cnt[c->rank], t, 0);
            free(cn);
        }
    }
    free(abase), free(gbase), free(sbase), rs_free(&r);
    return rc;
}
