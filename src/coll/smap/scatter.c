/* MPI_Scatter and MPI_Scatterv over SMARTMAP: the root publishes its send
 * buffer (or stages one slot per destination in its control block) and
 * every rank copies its own block out at the same time (xfer.c).
 * MPI_IN_PLACE at the root: its block stays in the send buffer.
 *
 * Small plain scatters that the selection table moves directly push
 * instead (scatter_push): the receivers publish their receive buffers and
 * the root writes every block into them.  A pull keeps the root until its
 * last reader is done (its send buffer must stay valid); a push lets every
 * receiver go as soon as the root's one line says the data are in, and
 * the root copies from its own cache.  Only up to SMAP_COLL_SCATTER_PUSH_MAX
 * bytes in all: above, the receivers' parallel pulls beat one copying root.
 * Scatterv pulls (its counts are the root's alone). */
#include "coll/smap/xfer.h"

#include <string.h>

#include "base/tunables.h"

struct sc {
    const void *sbuf;
    MPI_Count scount;
    struct smap_cvec scounts, displs;
    smap_dtype_t *st;
    void *rbuf;
    MPI_Count rcount;
    smap_dtype_t *rt;
    int root;
};

static void sc_block(const struct sc *a, int j, struct xblk *b)
{
    MPI_Count n = a->scounts.p ? smap_cvec_at(a->scounts, j) : a->scount;
    MPI_Count d = a->displs.p ? smap_cvec_at(a->displs, j) : (MPI_Count)j * a->scount;
    *b = (struct xblk){ (const char *)a->sbuf + d * a->st->extent, n, a->st };
}

static int sc_src(const struct xfer *x, int j, struct xblk *b)
{
    const struct sc *a = x->arg;
    if (x->s->me != a->root)
        return 0;
    sc_block(a, j, b);
    return 1;
}

static int sc_dst(const struct xfer *x, int i, struct xblk *b)
{
    const struct sc *a = x->arg;
    if (i != a->root)
        return 0;
    *b = (struct xblk){ a->rbuf, a->rcount, a->rt };
    return 1;
}

static void sc_self(const struct xfer *x)
{
    const struct sc *a = x->arg;
    if (x->s->me != a->root || a->rbuf == MPI_IN_PLACE)
        return;
    struct xblk b;
    sc_block(a, a->root, &b);
    smap_dtype_copy(a->rbuf, a->rcount, a->rt, b.buf, b.count, b.t);
}

/* The push: step one, each receiver's buffer in its cell (meta 1 when the
 * root may write it: contiguous in its exposed memory; data: its dense
 * address and size), so the line the root polls brings it; the root waits
 * for every receiver, writes every block, and its second step says how it
 * went in its cell's meta: PUSH_DONE, PUSH_PULL (a buffer was out of
 * reach: nothing written, the pull follows, *pushed 0), PUSH_FAILED, or
 * PUSH_OTHER (a receiver's size chose the pull: nothing written), with
 * the size of the root's blocks in the high bits (the receivers'
 * truncation check).  The root's step-one cell says "push", so that a
 * receiver whose size chose the pull takes that second step too
 * (sc_other), and a receiver here whose root took the pull takes the
 * pull's steps (issue 36). */
enum { PUSH_PULL = 0, PUSH_DONE = 1, PUSH_FAILED = 2, PUSH_OTHER = 3 };

static int push_blocks(const struct sc *a, const struct csm_comm *s, uint64_t t0)
{
    for (int i = 0; i < s->n; i++) {
        if (i == s->me)
            continue;
        struct xblk b;
        sc_block(a, i, &b);
        struct csm_blk to;
        memcpy(&to, csm_cell(s, i, t0)->data, sizeof to);
        MPI_Count bytes = xblk_bytes(&b) < (MPI_Count)to.bytes ? xblk_bytes(&b) : (MPI_Count)to.bytes;
        void *view = bytes > 0 ? csm_view(s, i, to.addr, (size_t)bytes) : NULL;
        if (bytes > 0 && SMAP_UNLIKELY(!view))
            return smap_fail(MPI_ERR_INTERN, "a receive buffer vanished from its exposed memory");
        xblk_put(&b, view, bytes);
    }
    return MPI_SUCCESS;
}

static int push_root(const struct sc *a, struct csm_comm *s, uint64_t t0)
{
    int me = s->me, rc;
    MPI_Count blk = a->scount * a->st->size;
    if ((rc = csm_prepare_cell(s)))
        return rc;
    csm_cell(s, me, t0)->meta = csm_meta_other((uint64_t)blk, CSM_META_PUSH);
    if ((rc = csm_sync_some(s, CSM_ALL)))
        return rc;
    int ok = 1, same = 1;
    for (int i = 0; i < s->n; i++) {
        uint64_t m = i == me ? 1 | t0 << 8 : csm_cell(s, i, t0)->meta;
        same &= m >> 8 == t0;
        ok &= (m & 1) != 0;
    }
    int e = MPI_SUCCESS;
    if (!same) {
        e = smap_fail(MPI_ERR_OTHER, "another rank took another path through this collective "
                                    "(counts or types differ between the ranks)");
    } else if (ok) {
        sc_self(&(struct xfer){ .s = s, .arg = a });
        e = push_blocks(a, s, t0);
    }
    uint64_t how = !same ? PUSH_OTHER : !ok ? PUSH_PULL : e ? PUSH_FAILED : PUSH_DONE;
    if ((rc = csm_prepare_cell(s)))
        return rc;
    csm_cell(s, me, t0 + 1)->meta = csm_meta_other((uint64_t)blk, 0) | how;
    if ((rc = csm_sync_some(s, CSM_NONE)))
        return rc;
    return e ? e : how == PUSH_DONE ? MPI_SUCCESS : CSM_XFER_NOT_MINE;
}

/* A receiver after the root's second step: what it says, for a receive
 * buffer of `mine` bytes. */
static int push_verdict(const struct sc *a, const struct csm_comm *s, uint64_t t0)
{
    MPI_Count mine = a->rcount * a->rt->size;
    uint64_t how = csm_cell(s, a->root, t0 + 1)->meta;
    int trunc = (MPI_Count)(how >> 32) > mine;
    switch (how & 3) {
    case PUSH_FAILED:
        return smap_fail(MPI_ERR_INTERN, "the root could not write into a receive buffer");
    case PUSH_OTHER:
        return trunc ? smap_fail(MPI_ERR_TRUNCATE,
                                "the root sends more data than this rank's receive buffer "
                                "holds (counts or types differ between the ranks)")
                     : smap_fail(MPI_ERR_OTHER, "another rank took another path through this "
                                               "collective (counts or types differ between "
                                               "the ranks)");
    case PUSH_DONE:
        return trunc ? smap_fail(MPI_ERR_TRUNCATE,
                                "the root sent more data than this rank's receive buffer "
                                "holds (counts or types differ between the ranks)")
                     : MPI_SUCCESS;
    default:
        return CSM_XFER_NOT_MINE;   /* the pull follows */
    }
}

static int push_receiver(const struct sc *a, struct csm_comm *s, uint64_t t0)
{
    int root = a->root, me = s->me, rc;
    if ((rc = csm_prepare_cell(s)))
        return rc;
    struct csm_cell *cell = csm_cell(s, me, t0);
    MPI_Count bytes = a->rcount * a->rt->size;
    char *at = csm_dense(a->rbuf, a->rt);
    struct csm_blk mine = { (uint64_t)(uintptr_t)at, (uint64_t)bytes };
    memcpy(cell->data, &mine, sizeof mine);
    /* the step too: a root whose size chose the push while ours chose the
     * pull tells them apart by it */
    cell->meta = (uint64_t)(smap_dtype_is_contiguous(a->rt) &&
                            (bytes == 0 || csm_exposed(at, (size_t)bytes))) |
                 t0 << 8;
    csm_publish(s);
    if ((rc = csm_wait(s, root, t0)))
        return rc;
    csm_consume();
    if (SMAP_UNLIKELY(!csm_meta_is_push(csm_cell(s, root, t0)->meta)))
        return csm_xfer_unpushed(s, t0, root, bytes);
    if ((rc = csm_sync_some(s, root)))
        return rc;
    return push_verdict(a, s, t0);
}

/* MPI_SUCCESS or an error when the push ran (or failed), CSM_XFER_NOT_MINE
 * when the pull must follow. */
static int scatter_push(const struct sc *a, struct csm_comm *s)
{
    uint64_t t0 = csm_next(s);
    return s->me == a->root ? push_root(a, s, t0) : push_receiver(a, s, t0);
}

/* A receiver on the pull whose root pushes (their sizes chose
 * differently): the root wrote nothing and takes a second step; so do we. */
static int sc_other(const struct xfer *x, uint64_t t0)
{
    const struct sc *a = x->arg;
    struct csm_comm *s = x->s;
    if (s->me == a->root || a->scounts.p || !csm_meta_is_push(csm_cell(s, a->root, t0)->meta))
        return CSM_XFER_NOT_MINE;
    int rc = csm_sync_some(s, a->root);
    if (rc)
        return rc;
    rc = push_verdict(a, s, t0);
    return rc == CSM_XFER_NOT_MINE ? csm_xfer(x) : rc;
}

int smap_cb_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                      struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                      smap_dtype_t *rt, int root, int vec, smap_comm_t *c)
{
    struct csm_comm *s;
    scounts = csm_vec_counts(vec, scounts);
    struct sc a = { sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root };
    /* one source: receivers wait for the root only, the root for nobody */
    struct xfer x = { .id = SMAP_COLL_SCATTER, .same = 0, .single = root + 1, .src = sc_src,
                      .dst = sc_dst, .self = sc_self, .other = sc_other, .arg = &a,
                      .vec = scounts.p != NULL };
    if (c->size == 1) {
        x.s = &(struct csm_comm){ .n = 1, .me = 0 };
        sc_self(&x);
        return MPI_SUCCESS;
    }
    int rc = csm_get(c, &s);
    if (rc)
        return rc;
    x.s = s;
    MPI_Count blk = c->rank == root ? scount * st->size : rcount * rt->size;
    if (!scounts.p && (MPI_Count)(s->n - 1) * blk <= (MPI_Count)smap_tun.coll_scatter_push_max &&
        smap_coll_select(SMAP_COLL_SCATTER, (size_t)blk, s->n) == SMAP_ALGO_DIRECT) {
        rc = scatter_push(&a, s);
        if (rc != CSM_XFER_NOT_MINE)
            return rc;
    }
    return csm_xfer(&x);
}

int smap_coll_scatterv_fail(int root, smap_comm_t *c)
{
    struct csm_comm *s;
    struct sc a = { .root = root };
    struct xfer x = { .id = SMAP_COLL_SCATTER, .same = 0, .single = root + 1, .src = sc_src,
                      .dst = sc_dst, .arg = &a, .vec = 1, .fail = 1 };
    if (c->size == 1 || csm_get(c, &s))
        return MPI_SUCCESS;
    x.s = s;
    return csm_xfer(&x);
}
