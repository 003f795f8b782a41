/* MPI_Allgather and MPI_Allgatherv over SMARTMAP: every rank publishes its
 * block (or stages it) and every rank copies all the others' blocks at the
 * same time, each starting after itself so that sources are read evenly
 * (xfer.c).  MPI_IN_PLACE: a rank's block is already in its receive buffer
 * and is read from there. */
#include "coll/smap/xfer.h"

struct ag {
    const void *sbuf;
    MPI_Count scount;
    smap_dtype_t *st;
    void *rbuf;
    MPI_Count rcount;
    struct smap_cvec rcounts, displs;
    smap_dtype_t *rt;
};

static void ag_block(const struct ag *a, int i, struct xblk *b)
{
    MPI_Count n = a->rcounts.p ? smap_cvec_at(a->rcounts, i) : a->rcount;
    MPI_Count d = a->displs.p ? smap_cvec_at(a->displs, i) : (MPI_Count)i * a->rcount;
    *b = (struct xblk){ (char *)a->rbuf + d * a->rt->extent, n, a->rt };
}

static int ag_src(const struct xfer *x, int j, struct xblk *b)
{
    const struct ag *a = x->arg;
    (void)j;
    if (a->sbuf == MPI_IN_PLACE)
        ag_block(a, x->s->me, b);
    else
        *b = (struct xblk){ a->sbuf, a->scount, a->st };
    return 1;
}

static int ag_dst(const struct xfer *x, int i, struct xblk *b)
{
    ag_block(x->arg, i, b);
    return 1;
}

static void ag_self(const struct xfer *x)
{
    const struct ag *a = x->arg;
    if (a->sbuf == MPI_IN_PLACE)
        return;
    struct xblk b;
    ag_block(a, x->s->me, &b);
    smap_dtype_copy((void *)b.buf, b.count, b.t, a->sbuf, a->scount, a->st);
}

int smap_cb_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                        MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                        smap_dtype_t *rt, smap_comm_t *c)
{
    struct csm_comm *s;
    struct ag a = { sbuf, scount, st, rbuf, rcount, rcounts, displs, rt };
    struct xfer x = { .id = SMAP_COLL_ALLGATHER, .same = 1, .src = ag_src, .dst = ag_dst,
                      .self = ag_self, .arg = &a };
    if (c->size == 1) {
        x.s = &(struct csm_comm){ .n = 1, .me = 0 };
        ag_self(&x);
        return MPI_SUCCESS;
    }
    int rc = csm_get(c, &s);
    if (rc)
        return rc;
    x.s = s;
    return csm_xfer(&x);
}
