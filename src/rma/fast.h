/* The put/get fast path and the copy every put and get through a view
 * uses.  Inline, so that MPI_Put/MPI_Get of a predefined contiguous type
 * to a node peer whose window we load/store costs a copy and a few
 * branches: no operation descriptor, no backend call (a put of 1 byte
 * with lock_all + flush spent half its time zeroing and passing the
 * general path's argument block).
 *
 * The fast path only runs when the general path (ops.c, node.c) would do
 * exactly the same thing: window memory mapped here (`t->local`: fixed
 * layout, path DIRECT), nothing to serve (no progress hook: no mailbox
 * window or remote target lives), an access epoch by lock_all, lock or
 * fence, and a range inside the window.  Anything else returns 0 and the
 * caller takes the general path, which then raises the precise error. */
#ifndef SMAP_RMA_FAST_H
#define SMAP_RMA_FAST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/compiler.h"
#include "p2p/p2p.h"
#include "rma/rma.h"

/* Large copies go in pieces of this many bytes: glibc's memcpy on AMD
 * stops using `rep movsb` from the L2 size up (1 MiB on the project
 * machine) and its vector loop moved L3-resident 1-4 MiB at 33-41 GB/s
 * where 128 KiB pieces reached 44-49 GB/s (same buffers, same run).
 * Past SMAP_RMA_COPY_WHOLE the copy streams from memory and one memcpy,
 * free to use non-temporal stores, is left alone. */
#define SMAP_RMA_COPY_PIECE ((size_t)128 << 10)
#define SMAP_RMA_COPY_SPLIT ((size_t)512 << 10)
#define SMAP_RMA_COPY_WHOLE ((size_t)32 << 20)

void smap_rma_copy_pieces(void *dst, const void *src, size_t n);

/* The copy of a put or get through a view: the common small sizes
 * compile to one load and store (the latency path of 8-byte puts). */
static inline void smap_rma_copy(void *d, const void *s, size_t n)
{
    switch (n) {
    case 1: memcpy(d, s, 1); break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    case 16: memcpy(d, s, 16); break;
    default:
        if (SMAP_UNLIKELY(n >= SMAP_RMA_COPY_SPLIT && n < SMAP_RMA_COPY_WHOLE))
            smap_rma_copy_pieces(d, s, n);
        else
            memcpy(d, s, n);
        break;
    }
}

/* Put (put != 0: buf -> target) or get (target -> buf) of `bytes` > 0
 * bytes at displacement disp of target's window.  The caller checked the
 * window handle, target in [0, n), buf and that origin and target sizes
 * agree.  1: done; 0: take the general path. */
static inline int smap_rma_fast_xfer(struct MPI_ABI_Win *w, int put, void *buf, size_t bytes,
                                     int target, MPI_Aint disp)
{
    const struct smap_rma_target *t = &w->t[target];
    char *local = t->local;
    if (SMAP_UNLIKELY(!local || smap_p2p_progress_rma))
        return 0;
    if (SMAP_UNLIKELY(!w->lock_all && !w->locked[target])) {
        if (!w->fence_open)
            return 0;   /* PSCW, or no epoch: ops.c decides */
        w->fence_used = 1;
    }
    /* both below 2^31 (negative ones are huge here): the product cannot
     * overflow, bytes (int count x predefined size) neither */
    if (SMAP_UNLIKELY((uint64_t)(disp | t->disp_unit) > INT32_MAX))
        return 0;
    uint64_t off = (uint64_t)disp * (uint64_t)t->disp_unit;
    if (SMAP_UNLIKELY(off + bytes > (uint64_t)t->size))
        return 0;
    if (put)
        smap_rma_copy(local + off, buf, bytes);
    else
        smap_rma_copy(buf, local + off, bytes);
    return 1;
}

/* Accumulates of n elements of predefined type b (origin `in`, result
 * `res` or NULL, both in b's layout; opx: the predefined op's index) to a
 * target whose memory we combine with atomics (node.c): MPI_SUCCESS or
 * an error class when done, -1 when the general path must run. */
int smap_rma_fast_acc(struct MPI_ABI_Win *w, int target, MPI_Aint disp, int opx,
                      smap_dtype_t *b, const void *in, void *res, MPI_Count n);

#endif
