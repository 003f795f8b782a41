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
 * reach: nothing written, the pull follows, *pushed 0) or PUSH_FAILED. */
enum { PUSH_PULL = 0, PUSH_DONE = 1, PUSH_FAILED = 2 };

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
            return csm_fail(MPI_ERR_INTERN, "a receive buffer vanished from its exposed memory");
        xblk_put(&b, view, bytes);
    }
    return MPI_SUCCESS;
}

static int scatter_push(const struct sc *a, struct csm_comm *s, int *pushed)
{
    int root = a->root, me = s->me, rc;
    uint64_t t0 = csm_next(s);
    *pushed = 0;
    if (me != root) {
        if ((rc = csm_prepare_cell(s)))
            return rc;
        struct csm_cell *cell = csm_cell(s, me, t0);
        MPI_Count bytes = a->rcount * a->rt->size;
        char *at = csm_dense(a->rbuf, a->rt);
        struct csm_blk mine = { (uint64_t)(uintptr_t)at, (uint64_t)bytes };
        memcpy(cell->data, &mine, sizeof mine);
        /* the step too: a root whose size chose the push while ours chose
         * the pull would otherwise write to a stale address (issue 36) */
        cell->meta = (uint64_t)(smap_dtype_is_contiguous(a->rt) &&
                                (bytes == 0 || csm_exposed(at, (size_t)bytes))) |
                     t0 << 8;
    }
    if ((rc = csm_sync_some(s, me == root ? CSM_ALL : CSM_NONE)))
        return rc;
    uint64_t how;
    if (me == root) {
        int ok = 1;
        for (int i = 0; i < s->n; i++) {
            uint64_t m = i == me ? 1 | t0 << 8 : csm_cell(s, i, t0)->meta;
            if (SMAP_UNLIKELY(m >> 8 != t0))
                csm_diverged(s, i);
            ok &= (m & 1) != 0;
        }
        int e = MPI_SUCCESS;
        if (ok) {
            sc_self(&(struct xfer){ .s = s, .arg = a });
            e = push_blocks(a, s, t0);
        }
        how = !ok ? PUSH_PULL : e ? PUSH_FAILED : PUSH_DONE;
        if ((rc = csm_prepare_cell(s)))
            return rc;
        csm_cell(s, me, t0 + 1)->meta = how;
        if ((rc = csm_sync_some(s, CSM_NONE)))
            return rc;
        if (e)
            return e;
    } else {
        if ((rc = csm_sync_some(s, root)))
            return rc;
        how = csm_cell(s, root, t0 + 1)->meta;
        if (how == PUSH_FAILED)
            return csm_fail(MPI_ERR_INTERN, "the root could not write into a receive buffer");
    }
    *pushed = how == PUSH_DONE;
    return MPI_SUCCESS;
}

int smap_coll_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                      struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                      smap_dtype_t *rt, int root, smap_comm_t *c)
{
    struct csm_comm *s;
    struct sc a = { sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root };
    /* one source: receivers wait for the root only, the root for nobody */
    struct xfer x = { .id = SMAP_COLL_SCATTER, .same = 0, .single = root + 1, .src = sc_src,
                      .dst = sc_dst, .self = sc_self, .arg = &a,
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
        int pushed;
        rc = scatter_push(&a, s, &pushed);
        if (rc || pushed)
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
