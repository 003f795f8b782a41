/* MPI_Bcast over SMARTMAP: the root publishes its buffer (or, for small
 * messages and unreachable or non-contiguous buffers, packs it into its
 * control block chunk by chunk) and every other rank copies it out at the
 * same time (xfer.c). */
#include "coll/smap/xfer.h"

#include <string.h>

#include "base/compiler.h"

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

/* A message that fits the root's cell (csm.h), the generic transfer's
 * choice too (F_CELL) whenever select.c says INLINE: the root writes it
 * next to the step that publishes it and waits for nobody (only, before
 * rewriting the cell, for peers to be done with the step it held: free
 * when `seen` knows it); a receiver publishes its step, polls the root's
 * one line and copies out.  One line transfer on the critical path, and
 * none of the generic engine's decisions: every rank knows the path from
 * the byte count alone. */
static int bcast_cell(struct csm_comm *s, void *buf, MPI_Count count, smap_dtype_t *t, int root,
                      size_t bytes)
{
    uint64_t step = csm_next(s);
    int rc;
    if (s->me == root) {
        if ((rc = csm_prepare_cell(s)))
            return rc;
        unsigned char *d = csm_cell(s, root, step)->data;
        if (SMAP_LIKELY(smap_dtype_is_contiguous(t)))
            memcpy(d, csm_dense(buf, t), bytes);
        else
            smap_dtype_pack(buf, count, t, d, 0, (MPI_Count)bytes);
        csm_publish(s);
        return MPI_SUCCESS;
    }
    if ((rc = csm_sync_some(s, root)))
        return rc;
    const unsigned char *d = csm_cell(s, root, step)->data;
    if (SMAP_LIKELY(smap_dtype_is_contiguous(t)))
        memcpy(csm_dense(buf, t), d, bytes);
    else
        smap_dtype_unpack(d, (MPI_Count)bytes, buf, count, t, 0);
    return MPI_SUCCESS;
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
    size_t bytes = (size_t)(count * t->size);
    if (bytes <= CSM_CELL_BYTES &&
        smap_coll_select(SMAP_COLL_BCAST, bytes, s->n) == SMAP_ALGO_INLINE)
        return bcast_cell(s, buf, count, t, root, bytes);
    struct bc a = { buf, count, t, root };
    struct xfer x = { .s = s, .id = SMAP_COLL_BCAST, .same = 1, .single = root + 1,
                      .src = bc_src, .dst = bc_dst, .arg = &a };
    return csm_xfer(&x);
}
