/* The data-movement engine shared by bcast, gather, scatter, allgather and
 * alltoall (xfer.c).  A collective describes, for this rank, the block it
 * sends to each destination and the block it receives from each source;
 * the engine moves them either by pulls from the source's user buffer
 * through a SMARTMAP view (one copy) or through the source's control block
 * in chunks (inline payload for small blocks, the bounce path for
 * unreachable or non-contiguous sources). */
#ifndef SMAP_COLL_SMAP_XFER_H
#define SMAP_COLL_SMAP_XFER_H

#include <string.h>

#include "coll/select.h"
#include "coll/smap/csm.h"

/* Only the root reads a v variant's counts, so others may pass NULL; the
 * control blocks tell a v variant by non-NULL counts (its path must be
 * the root's), hence a stand-in there, never read. */
static inline struct smap_cvec csm_vec_counts(int vec, struct smap_cvec v)
{
    static const MPI_Count none[1];
    return vec && !v.p ? (struct smap_cvec){ none, 1 } : v;
}

struct xblk {
    const void *buf;
    MPI_Count count;
    smap_dtype_t *t;
};

struct xfer {
    struct csm_comm *s;
    enum smap_coll_id id;
    int same;          /* a source sends one block to all its destinations */
    int force_stage;   /* sources must stage (MPI_IN_PLACE alltoall) */
    int single;        /* 1 + the only source's rank (bcast, scatter), or 0 */
    int vec;           /* blocks of different sizes per destination (v-variants) */
    /* This rank found an error in its own arguments that the others cannot
     * see (a v-variant root's counts): it takes the same steps, moves
     * nothing, and its step-one cell tells the others, which return
     * MPI_ERR_OTHER (D18: nobody left waiting, every rank an error). */
    int fail;
    /* The block this rank sends to comm rank j / receives from comm rank i
     * (never called with our own rank): 1 and *b filled, or 0 for none. */
    int (*src)(const struct xfer *x, int j, struct xblk *b);
    int (*dst)(const struct xfer *x, int i, struct xblk *b);
    /* This rank's block to itself, or NULL. */
    void (*self)(const struct xfer *x);
    /* Called instead of the failure path when a member's step-one cell
     * shows another path (gather's and scatter's pushes: a rank follows
     * its root's), or NULL; CSM_XFER_NOT_MINE when it does not apply. */
    int (*other)(const struct xfer *x, uint64_t t0);
    const void *arg;   /* the collective's arguments */
};

#define CSM_XFER_NOT_MINE (-1)

/* Runs the transfer.  MPI_SUCCESS or an error class. */
int csm_xfer(const struct xfer *x);
int csm_xfer_follow(struct csm_comm *s, uint64_t t0, int one);
/* A rank on a rooted push whose root took this engine's path instead
 * (its size chose the pull, or it failed its own checks), at step one t0
 * (published): takes the steps the others take and returns the error,
 * MPI_ERR_TRUNCATE when a source sent more than `mine` bytes (what this
 * rank receives from each; -1: nothing).  `one`: the only source, or -1. */
int csm_xfer_unpushed(struct csm_comm *s, uint64_t t0, int one, MPI_Count mine);

/* Stream bytes of a block. */
static inline MPI_Count xblk_bytes(const struct xblk *b)
{
    return b->count * b->t->size;
}

/* Writes the first `bytes` stream bytes of block b to `to` (a peer's
 * dense receive buffer through its view, in the pushes). */
static inline void xblk_put(const struct xblk *b, void *to, MPI_Count bytes)
{
    if (bytes <= 0)
        return;
    if (smap_dtype_is_contiguous(b->t))
        memcpy(to, csm_dense(b->buf, b->t), (size_t)bytes);
    else
        smap_dtype_pack(b->buf, b->count, b->t, to, 0, bytes);
}

/* ---- wide lines (csm.h): a block of a few lines, each line's data
 * followed by the step that wrote it ---- */

/* Lines a block of `bytes` takes. */
static inline int xblk_wide_lines(MPI_Count bytes)
{
    return (int)((bytes + (MPI_Count)CSM_WLINE_BYTES - 1) / (MPI_Count)CSM_WLINE_BYTES);
}

/* A wide line's stamp: the step that wrote it and the block's bytes, so
 * that a reader whose lines show its own (step, bytes) knows the source
 * sent a block of its size without reading the source's cell -- one line
 * transfer less on the size check of issue 36 (D18).  The bytes go in the
 * high 16 bits (wide blocks are a few lines: CSM_WIDE_LINES *
 * CSM_WLINE_BYTES < 2^16), XOR'd so that steps may use every bit: a stale
 * line (an earlier step of the same cell) cannot match. */
_Static_assert(CSM_WIDE_LINES * CSM_WLINE_BYTES < 65536, "wide bytes fit the stamp");
static inline uint64_t xblk_wide_stamp(uint64_t t, MPI_Count bytes)
{
    return t ^ (uint64_t)bytes << 48;
}

/* Writes block b (`bytes` stream bytes) into lines l..., each stamped
 * (xblk_wide_stamp) after its data (release). */
static inline void xblk_wide_write(const struct xblk *b, struct csm_wline *l, MPI_Count bytes,
                                   uint64_t stamp)
{
    int dense = smap_dtype_is_contiguous(b->t);
    for (int k = 0; k < xblk_wide_lines(bytes); k++) {
        MPI_Count off = (MPI_Count)k * (MPI_Count)CSM_WLINE_BYTES;
        MPI_Count len = bytes - off < (MPI_Count)CSM_WLINE_BYTES ? bytes - off
                                                                 : (MPI_Count)CSM_WLINE_BYTES;
        if (dense)
            memcpy(l[k].data, csm_dense(b->buf, b->t) + off, (size_t)len);
        else
            smap_dtype_pack(b->buf, b->count, b->t, l[k].data, off, len);
        atomic_store_explicit(&l[k].seq, stamp, memory_order_release);
    }
}

/* Whether all nl lines show `stamp` (the step and our size): every load
 * in one pass, so that they overlap.  (A line of the step a reader is at
 * holds that step or an earlier one: csm.h's rule 3.) */
static inline int xblk_wide_ready(const struct csm_wline *l, int nl, uint64_t stamp)
{
    int ok = 1;
    for (int k = 0; k < nl; k++)
        ok &= atomic_load_explicit(&l[k].seq, memory_order_acquire) == stamp;
    return ok;
}

/* Copies `bytes` stream bytes out of lines l... into block b. */
static inline void xblk_wide_read(const struct csm_wline *l, const struct xblk *b, MPI_Count bytes)
{
    int dense = smap_dtype_is_contiguous(b->t);
    for (int k = 0; k < xblk_wide_lines(bytes); k++) {
        MPI_Count off = (MPI_Count)k * (MPI_Count)CSM_WLINE_BYTES;
        MPI_Count len = bytes - off < (MPI_Count)CSM_WLINE_BYTES ? bytes - off
                                                                 : (MPI_Count)CSM_WLINE_BYTES;
        if (dense)
            memcpy(csm_dense(b->buf, b->t) + off, l[k].data, (size_t)len);
        else
            smap_dtype_unpack(l[k].data, len, (void *)b->buf, b->count, b->t, off);
    }
}

#endif
