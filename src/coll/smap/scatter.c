/* MPI_Scatter and MPI_Scatterv over SMARTMAP: the root publishes its send
 * buffer (or stages one slot per destination in its control block) and
 * every rank copies its own block out at the same time (xfer.c).
 * MPI_IN_PLACE at the root: its block stays in the send buffer. */
#include "coll/smap/xfer.h"

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

int smap_coll_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                      struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                      smap_dtype_t *rt, int root, smap_comm_t *c)
{
    struct csm_comm *s;
    struct sc a = { sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root };
    /* one source: receivers wait for the root only, the root for nobody */
    struct xfer x = { .id = SMAP_COLL_SCATTER, .same = 0, .single = root + 1, .src = sc_src,
                      .dst = sc_dst, .self = sc_self, .arg = &a };
    if (c->size == 1) {
        x.s = &(struct csm_comm){ .n = 1, .me = 0 };
        sc_self(&x);
        return MPI_SUCCESS;
    }
    int rc = csm_get(c, &s);
    if (rc)
        return rc;
    x.s = s;
    return csm_xfer(&x);
}
