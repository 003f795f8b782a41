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

/* The root's cell says another size than ours (its bytes on a one-step
 * path, or a generic transfer's meta): the data are not delivered, and
 * the error says which side was larger (D18); a root on xfer.c's path is
 * followed through its remaining steps, so the steps stay aligned. */
static SMAP_COLD int bcast_mismatch(struct csm_comm *s, int root, uint64_t step, size_t bytes)
{
    uint64_t meta = csm_cell(s, root, step)->meta;
    int rc;
    /* a root on xfer.c's path: take its remaining steps, moving nothing */
    if (!(meta & CSM_META_OTHER) && (rc = csm_xfer_follow(s, step, root)))
        return rc;
    if ((meta >> 32) > bytes)
        return smap_fail(MPI_ERR_TRUNCATE, "the root broadcast more data than this rank's "
                                          "buffer holds (counts or types differ)");
    return smap_fail(MPI_ERR_OTHER, "the root broadcast less data than this rank expected "
                                   "(counts or types differ)");
}

/* A message that select.c sends INLINE and that fits one step: the root
 * writes it next to the step that publishes it, into its cell (up to
 * CSM_CELL_BYTES, csm.h) or else its payload half, and waits for nobody
 * (only, before rewriting the cell or half, for peers to be done with the
 * step it held: free when `seen` knows it); a receiver publishes its step,
 * polls the root's one line and copies out.  One line transfer on the
 * critical path (plus the payload's lines, whose loads overlap), none of
 * the generic engine's decisions (every rank knows the path from the byte
 * count alone), and no closing sync: the root returns at once, where a
 * DIRECT pull of its buffer keeps it until the readers are done. */
static int bcast_step(struct csm_comm *s, void *buf, MPI_Count count, smap_dtype_t *t, int root,
                      size_t bytes)
{
    uint64_t step = csm_next(s);
    int in_cell = bytes <= CSM_CELL_BYTES, rc;
    if (s->me == root) {
        if ((rc = in_cell ? csm_prepare_cell(s) : csm_prepare(s)))
            return rc;
        unsigned char *d = in_cell ? csm_cell(s, root, step)->data
                                   : (unsigned char *)csm_pay(s, root, step);
        if (SMAP_UNLIKELY(bytes == 0))
            ;
        else if (SMAP_LIKELY(smap_dtype_is_contiguous(t)))
            memcpy(d, csm_dense(buf, t), bytes);
        else
            smap_dtype_pack(buf, count, t, d, 0, (MPI_Count)bytes);
        /* the size, for the receivers' truncation check: in the line the
         * step is published in, so it costs nobody a transfer */
        csm_cell(s, root, step)->meta = csm_meta_other(bytes, 0);
        csm_publish(s);
        return MPI_SUCCESS;
    }
    if ((rc = csm_sync_some(s, root)))
        return rc;
    if (SMAP_UNLIKELY(csm_cell(s, root, step)->meta != csm_meta_other(bytes, 0)))
        return bcast_mismatch(s, root, step, bytes);
    const unsigned char *d = in_cell ? csm_cell(s, root, step)->data
                                     : (const unsigned char *)csm_pay(s, root, step);
    if (SMAP_UNLIKELY(bytes == 0))
        ;
    else if (SMAP_LIKELY(smap_dtype_is_contiguous(t)))
        memcpy(csm_dense(buf, t), d, bytes);
    else
        smap_dtype_unpack(d, (MPI_Count)bytes, buf, count, t, 0);
    return MPI_SUCCESS;
}

/* Wide lines a bcast may take (csm.h) instead of the payload: measured
 * at 2 ranks, --vary, median of 5 (loaded machine): 64 B 0.41 -> 0.36 us,
 * 128 B 0.38 -> 0.32, 256 B 0.36 -> 0.34 through 5 lines; 512 B through
 * 10 lines 0.38 -> 0.45 (the separate stores and polls cost more than the
 * one serial transfer they save), as for alltoall. */
#define BCAST_WIDE_LINES 5

/* A message a little too big for the cell: the root writes it into the
 * wide lines of the step (each stamped after its data), publishes the
 * step, and returns; a receiver publishes its step and reads all lines in
 * one pass once they all show it: one round of parallel transfers instead
 * of the cell then the payload. */
static int bcast_wide(struct csm_comm *s, void *buf, MPI_Count count, smap_dtype_t *t, int root,
                      size_t bytes)
{
    int rc = s->me == root ? csm_prepare_cell(s) : MPI_SUCCESS;
    if (rc)
        return rc;
    uint64_t step = csm_next(s);
    struct xblk b = { buf, count, t };
    uint64_t stamp = xblk_wide_stamp(step, (MPI_Count)bytes);
    if (s->me == root) {
        /* the size in the cell too, for a receiver whose lines do not
         * show it (the published cell's step follows the lines) */
        csm_cell(s, root, step)->meta = csm_meta_other(bytes, 0);
        xblk_wide_write(&b, csm_wide(s, root, step), (MPI_Count)bytes, stamp);
        csm_publish(s);
        return MPI_SUCCESS;
    }
    csm_publish(s);
    csm_consume();
    const struct csm_wline *l = csm_wide(s, root, step);
    /* Lines that show (step, our size): the root's block is ours to read.
     * Else wait for the cell's step, stored after every line (the wait
     * policy, the dead-peer check), whose meta then says whether the root
     * sent another size or took another path (issue 36). */
    if (!xblk_wide_ready(l, xblk_wide_lines((MPI_Count)bytes), stamp)) {
        if ((rc = csm_wait(s, root, step)))
            return rc;
        if (SMAP_UNLIKELY(csm_cell(s, root, step)->meta != csm_meta_other(bytes, 0)))
            return bcast_mismatch(s, root, step, bytes);
    }
    xblk_wide_read(l, &b, (MPI_Count)bytes);
    return MPI_SUCCESS;
}

int smap_cb_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c)
{
    /* An empty bcast still takes its one cell step: a rank whose count is
     * 0 while the root's is not must return an error and keep the steps
     * aligned, not skip (issue 36). */
    if (c->size == 1)
        return MPI_SUCCESS;
    struct csm_comm *s;
    int rc = csm_get(c, &s);
    if (rc)
        return rc;
    size_t bytes = (size_t)(count * t->size);
    if (bytes <= CSM_PAY_BYTES &&
        smap_coll_select(SMAP_COLL_BCAST, bytes, s->n) == SMAP_ALGO_INLINE) {
        if (bytes > CSM_CELL_BYTES && bytes <= BCAST_WIDE_LINES * CSM_WLINE_BYTES)
            return bcast_wide(s, buf, count, t, root, bytes);
        return bcast_step(s, buf, count, t, root, bytes);
    }
    struct bc a = { buf, count, t, root };
    struct xfer x = { .s = s, .id = SMAP_COLL_BCAST, .same = 1, .single = root + 1,
                      .src = bc_src, .dst = bc_dst, .arg = &a };
    return csm_xfer(&x);
}
