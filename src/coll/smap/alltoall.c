/* MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw over SMARTMAP: every rank
 * publishes its send buffer (or stages one slot per destination) and pulls
 * its block from every peer at the same time (xfer.c).  MPI_IN_PLACE: the
 * data come from the receive buffer, which is overwritten while peers
 * still need it, so every source stages: chunk r of a block is packed
 * before anyone overwrites it in the same step. */
#include "coll/smap/xfer.h"

static void side(const struct smap_a2a *a, int recv, int j, struct xblk *b)
{
    const void *buf = recv ? a->rbuf : a->sbuf;
    MPI_Count n = recv ? a->rcount : a->scount;
    struct smap_cvec counts = recv ? a->rcounts : a->scounts;
    struct smap_cvec displs = recv ? a->rdispls : a->sdispls;
    const MPI_Datatype *types = recv ? a->rtypes : a->stypes;
    smap_dtype_t *t = recv ? a->rt : a->st;
    MPI_Count off;
    if (types) {   /* Alltoallw: byte displacements, a type per peer */
        t = smap_dtype_get(types[j]);
        n = smap_cvec_at(counts, j);
        off = smap_cvec_at(displs, j);
    } else if (counts.p) {
        n = smap_cvec_at(counts, j);
        off = smap_cvec_at(displs, j) * t->extent;
    } else {
        off = (MPI_Count)j * n * t->extent;
    }
    *b = (struct xblk){ (const char *)buf + off, n, t };
}

static int a2a_src(const struct xfer *x, int j, struct xblk *b)
{
    const struct smap_a2a *a = x->arg;
    side(a, a->sbuf == MPI_IN_PLACE, j, b);
    return 1;
}

static int a2a_dst(const struct xfer *x, int i, struct xblk *b)
{
    side(x->arg, 1, i, b);
    return 1;
}

static void a2a_self(const struct xfer *x)
{
    const struct smap_a2a *a = x->arg;
    if (a->sbuf == MPI_IN_PLACE)
        return;
    struct xblk sb, rb;
    side(a, 0, x->s->me, &sb);
    side(a, 1, x->s->me, &rb);
    smap_dtype_copy((void *)rb.buf, rb.count, rb.t, sb.buf, sb.count, sb.t);
}

int smap_coll_alltoall(const struct smap_a2a *a, smap_comm_t *c)
{
    struct csm_comm *s;
    struct xfer x = { .id = SMAP_COLL_ALLTOALL, .same = 0, .src = a2a_src, .dst = a2a_dst,
                      .self = a2a_self, .arg = a, .force_stage = a->sbuf == MPI_IN_PLACE };
    if (c->size == 1) {
        x.s = &(struct csm_comm){ .n = 1, .me = 0 };
        a2a_self(&x);
        return MPI_SUCCESS;
    }
    int rc = csm_get(c, &s);
    if (rc)
        return rc;
    x.s = s;
    return csm_xfer(&x);
}
