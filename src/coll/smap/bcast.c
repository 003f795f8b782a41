/* MPI_Bcast over SMARTMAP: the root publishes its buffer (or, for small
 * messages and unreachable or non-contiguous buffers, packs it into its
 * control block chunk by chunk) and every other rank copies it out at the
 * same time (xfer.c). */
#include "coll/smap/xfer.h"

struct bc {
    void *buf;
    MPI_Count count;
    smap_dtype_t *t;
    int root;
};

static int bc_src(const struct xfer *x, int j, struct xblk *b)
{
    const struct bc *a = x->arg;
    (void)j;
    if (x->s->me != a->root)
        return 0;
    *b = (struct xblk){ a->buf, a->count, a->t };
    return 1;
}

static int bc_dst(const struct xfer *x, int i, struct xblk *b)
{
    const struct bc *a = x->arg;
    if (i != a->root)
        return 0;
    *b = (struct xblk){ a->buf, a->count, a->t };
    return 1;
}

int smap_coll_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c)
{
    /* every rank has the same byte count (matching signatures): all skip */
    if (count == 0 || t->size == 0 || c->size == 1)
        return MPI_SUCCESS;
    struct csm_comm *s;
    int rc = csm_get(c, &s);
    if (rc)
        return rc;
    struct bc a = { buf, count, t, root };
    struct xfer x = { .s = s, .id = SMAP_COLL_BCAST, .same = 1, .single = root + 1,
                      .src = bc_src, .dst = bc_dst, .arg = &a };
    return csm_xfer(&x);
}
