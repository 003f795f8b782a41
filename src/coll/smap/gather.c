/* MPI_Gather and MPI_Gatherv over SMARTMAP: every rank publishes its block
 * (or stages it in its control block) and the root copies them all into
 * its receive buffer (xfer.c).  MPI_IN_PLACE at the root: its own block is
 * already where it belongs.
 *
 * Large plain gathers push instead (gather_push): the root publishes where
 * each block goes in its receive buffer, and every rank writes its own
 * block there through its view of the root, all at once, where a pull
 * leaves the root copying every block alone.  Every block the selection
 * table moves directly (a size every rank knows: Gatherv's sizes are the
 * root's alone, it pulls), unless SMAP_COLL_GATHER_PUSH=0. */
#include "coll/smap/xfer.h"

#include "base/tunables.h"

struct ga {
    const void *sbuf;
    MPI_Count scount;
    smap_dtype_t *st;
    void *rbuf;
    MPI_Count rcount;
    struct smap_cvec rcounts, displs;
    smap_dtype_t *rt;
    int root;
};

static void ga_block(const struct ga *a, int i, struct xblk *b)
{
    MPI_Count n = a->rcounts.p ? smap_cvec_at(a->rcounts, i) : a->rcount;
    MPI_Count d = a->displs.p ? smap_cvec_at(a->displs, i) : (MPI_Count)i * a->rcount;
    *b = (struct xblk){ (char *)a->rbuf + d * a->rt->extent, n, a->rt };
}

static int ga_src(const struct xfer *x, int j, struct xblk *b)
{
    const struct ga *a = x->arg;
    if (x->s->me == a->root || j != a->root)
        return 0;
    *b = (struct xblk){ a->sbuf, a->scount, a->st };
    return 1;
}

static int ga_dst(const struct xfer *x, int i, struct xblk *b)
{
    const struct ga *a = x->arg;
    if (x->s->me != a->root)
        return 0;
    ga_block(a, i, b);
    return 1;
}

static void ga_self(const struct xfer *x)
{
    const struct ga *a = x->arg;
    if (x->s->me != a->root || a->sbuf == MPI_IN_PLACE)
        return;
    struct xblk b;
    ga_block(a, a->root, &b);
    smap_dtype_copy((void *)b.buf, b.count, b.t, a->sbuf, a->scount, a->st);
}

/* The push, after step one t0 (published; every rank has seen the
 * root's): each rank writes its block into the root's buffer when the
 * root's descriptor allows it (the root copies its own), and a closing
 * step, whose cell meta carries each writer's size (the root's
 * truncation check: one load from lines it polls anyway), lets the root
 * return once every block is in.  When the root's buffer is out of reach
 * the pull runs instead (*pushed 0). */
static int gather_pushed(const struct ga *a, struct csm_comm *s, uint64_t t0, int *pushed)
{
    int root = a->root, me = s->me, rc = MPI_SUCCESS;
    const struct csm_desc *d = csm_desc(s, root, t0);
    *pushed = 0;
    if (SMAP_UNLIKELY(d->flags >> 8 != t0))
        csm_diverged(s, root);
    if (!(d->flags & 1))
        return MPI_SUCCESS;
    *pushed = 1;
    if (me == root) {
        ga_self(&(struct xfer){ .s = s, .arg = a });
    } else {
        struct xblk mine = { a->sbuf, a->scount, a->st };
        struct csm_blk to = d->blk[me];
        MPI_Count bytes = xblk_bytes(&mine) < (MPI_Count)to.bytes ? xblk_bytes(&mine)
                                                                   : (MPI_Count)to.bytes;
        void *view = bytes > 0 ? csm_view(s, root, to.addr, (size_t)bytes) : NULL;
        if (bytes > 0 && SMAP_UNLIKELY(!view))
            rc = smap_fail(MPI_ERR_INTERN,
                          "the root's receive buffer vanished from its exposed memory");
        else
            xblk_put(&mine, view, bytes);
        int e = csm_prepare_cell(s);
        if (e)
            return e;
        csm_cell(s, me, t0 + 1)->meta = csm_meta_other((uint64_t)xblk_bytes(&mine), 0);
    }
    int e = csm_sync_some(s, me == root ? CSM_ALL : CSM_NONE);
    if (!e && me == root) {
        MPI_Count want = a->rcount * a->rt->size;
        for (int i = 0; i < s->n; i++)
            if (i != me && (MPI_Count)(csm_cell(s, i, t0 + 1)->meta >> 32) > want)
                e = smap_fail(MPI_ERR_TRUNCATE,
                             "a member sent more data than this one's receive buffer holds "
                             "(counts or types differ between the members)");
    }
    return rc ? rc : e;
}

/* The push: step one, the root's receive buffer (flag 1 when peers may
 * write it: contiguous blocks in its exposed memory, each block's dense
 * address in its descriptor); every other rank waits for that step only.
 * Every rank's step-one cell says "push" with its block's size, so a
 * rank whose size chose the pull follows the root's path (ga_other), and
 * a root on the pull reports the truncation; a rank here whose root took
 * the pull takes the pull's steps and returns an error (issue 36). */
static int gather_push(const struct ga *a, struct csm_comm *s, int *pushed)
{
    int root = a->root, me = s->me, rc;
    uint64_t t0 = csm_next(s);
    *pushed = 0;
    if (me == root) {
        if ((rc = csm_prepare(s)))
            return rc;
        struct csm_desc *d = csm_desc(s, me, t0);
        int ok = smap_dtype_is_contiguous(a->rt);
        for (int i = 0; i < s->n && ok; i++) {
            struct xblk b;
            ga_block(a, i, &b);
            MPI_Count bytes = xblk_bytes(&b);
            char *at = csm_dense(b.buf, b.t);
            ok = csm_exposed(at, (size_t)bytes);
            d->blk[i] = (struct csm_blk){ (uint64_t)(uintptr_t)at, (uint64_t)bytes };
        }
        d->flags = (uint64_t)ok | t0 << 8;
        csm_cell(s, me, t0)->meta =
            csm_meta_other((uint64_t)(a->rcount * a->rt->size), CSM_META_PUSH);
    } else {
        if ((rc = csm_prepare_cell(s)))
            return rc;
        csm_cell(s, me, t0)->meta =
            csm_meta_other((uint64_t)(a->scount * a->st->size), CSM_META_PUSH);
    }
    if ((rc = csm_sync_some(s, me == root ? CSM_NONE : root)))
        return rc;
    if (me != root && SMAP_UNLIKELY(!csm_meta_is_push(csm_cell(s, root, t0)->meta)))
        return csm_xfer_unpushed(s, t0, -1, -1);
    return gather_pushed(a, s, t0, pushed);
}

/* A rank on the pull whose root pushes (their sizes chose differently):
 * it writes its block as the push's senders do (or, when the root's
 * buffer is out of reach, joins the pull the root starts next). */
static int ga_other(const struct xfer *x, uint64_t t0)
{
    const struct ga *a = x->arg;
    struct csm_comm *s = x->s;
    if (s->me == a->root || a->rcounts.p || !csm_meta_is_push(csm_cell(s, a->root, t0)->meta))
        return CSM_XFER_NOT_MINE;
    int pushed, rc = gather_pushed(a, s, t0, &pushed);
    return rc || pushed ? rc : csm_xfer(x);
}

int smap_cb_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                     MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                     smap_dtype_t *rt, int root, int vec, smap_comm_t *c)
{
    struct csm_comm *s;
    rcounts = csm_vec_counts(vec, rcounts);
    struct ga a = { sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root };
    struct xfer x = { .id = SMAP_COLL_GATHER, .same = 1, .src = ga_src, .dst = ga_dst,
                      .self = ga_self, .other = ga_other, .arg = &a };
    if (c->size == 1) {
        x.s = &(struct csm_comm){ .n = 1, .me = 0 };
        ga_self(&x);
        return MPI_SUCCESS;
    }
    int rc = csm_get(c, &s);
    if (rc)
        return rc;
    x.s = s;
    MPI_Count blk = c->rank == root ? rcount * rt->size : scount * st->size;
    if (!rcounts.p && smap_tun.coll_gather_push &&
        smap_coll_select(SMAP_COLL_GATHER, (size_t)blk, s->n) == SMAP_ALGO_DIRECT) {
        int pushed;
        rc = gather_push(&a, s, &pushed);
        if (rc || pushed)
            return rc;
    }
    return csm_xfer(&x);
}

int smap_coll_gatherv_fail(int root, smap_comm_t *c)
{
    struct csm_comm *s;
    struct ga a = { .root = root };
    struct xfer x = { .id = SMAP_COLL_GATHER, .same = 1, .src = ga_src, .dst = ga_dst, .arg = &a,
                      .fail = 1 };
    if (c->size == 1 || csm_get(c, &s))
        return MPI_SUCCESS;
    x.s = s;
    return csm_xfer(&x);
}
