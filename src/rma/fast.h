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
#include "mpi/op.h"
#include "mpi/runtime.h"
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

/* ---- the entry points' fast paths: every check of the general path
 * (op_args.c) for this case, as conditions that hold; anything else,
 * errors included, goes the general way, which raises the precise error. */

/* A predefined type whose elements are one dense block, or NULL.  Unused
 * entries of the predefined table have no flags. */
static inline smap_dtype_t *smap_rma_plain_type(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)h - SMAP_DTYPE_PREDEF_BASE;
    const unsigned need = SMAP_DT_PREDEF | SMAP_DT_COMMITTED | SMAP_DT_CONTIG;
    if (v >= SMAP_DTYPE_PREDEF_N || (smap_dtype_predef[v].flags & need) != need)
        return NULL;
    return &smap_dtype_predef[v];
}

/* MPI_Put (put != 0) or MPI_Get with int counts: 1 done, 0 general path. */
static inline int smap_rma_try_put_get(int put, void *buf, int ocount, MPI_Datatype otype,
                                       int target, MPI_Aint disp, int tcount,
                                       MPI_Datatype ttype, MPI_Win win)
{
    if (!smap_running())
        return 0;
    smap_dtype_t *ot = smap_rma_plain_type(otype), *tt = smap_rma_plain_type(ttype);
    struct MPI_ABI_Win *w = smap_win_get(win);
    if (!ot || !tt || !w || !buf || ocount <= 0 || tcount <= 0 ||
        (unsigned)target >= (unsigned)w->n)
        return 0;
    size_t bytes = (size_t)tcount * (size_t)tt->size;
    if (bytes != (size_t)ocount * (size_t)ot->size)
        return 0;
    return smap_rma_fast_xfer(w, put, buf, bytes, target, disp);
}

/* MPI_Accumulate, MPI_Get_accumulate (fetch) and MPI_Fetch_and_op:
 * origin, result and target all `count` elements of one predefined type,
 * a predefined op (smap_rma_fast_acc).  -1: general path; else done, with
 * smap_rma_fast_acc's class (smap_why() says why). */
static inline int smap_rma_try_acc(const void *oaddr, void *raddr, int fetch, int count,
                                   MPI_Datatype type, int target, MPI_Aint disp, MPI_Op op,
                                   MPI_Win win)
{
    if (!smap_running() || (uintptr_t)op - SMAP_OP_PREDEF_BASE >= SMAP_OP_PREDEF_N)
        return -1;
    /* the one call first: fewer values live across it (no spills) */
    struct MPI_ABI_Op *o = smap_op_get(op);
    smap_dtype_t *b = smap_rma_plain_type(type);
    struct MPI_ABI_Win *w = smap_win_get(win);
    int no_op = op == MPI_NO_OP;
    if (!b || !w || !o || count <= 0 || (unsigned)target >= (unsigned)w->n ||
        (!no_op && !oaddr) || (fetch && !raddr) || (!fetch && no_op))
        return -1;
    return smap_rma_fast_acc(w, target, disp, o->opx, b, oaddr, fetch ? raddr : NULL, count);
}

#endif
