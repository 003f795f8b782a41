/* MPI_Gather and MPI_Gatherv over SMARTMAP: every rank publishes its block
 * (or stages it in its control block) and the root copies them all into
 * its receive buffer (xfer.c).  MPI_IN_PLACE at the root: its own block is
 * already where it belongs. */
#include "coll/smap/xfer.h"

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

int smap_coll_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                     MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                     smap_dtype_t *rt, int root, smap_comm_t *c)
{
    struct csm_comm *s;
    struct ga a = { sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root };
    struct xfer x = { .id = SMAP_COLL_GATHER, .same = 1, .src = ga_src, .dst = ga_dst,
                      .self = ga_self, .arg = &a };
    if (c->size == 1) {
        x.s = &(struct csm_comm){ .n = 1, .me = 0 };
        ga_self(&x);
        return MPI_SUCCESS;
    }
    int rc = csm_get(c, &s);
    if (rc)
        return rc;
    x.s = s;
    return csm_xfer(&x);
}
