/* The node backend of one-sided operations: targets on this node, reached
 * through SMARTMAP views (load/store) or CMA.
 *
 * Put and get through a view are one type-to-type copy between the origin
 * buffer and the target's window (smap_dtype_copy walks both type maps:
 * no packing).  Through CMA the origin side is packed once and every
 * contiguous block of the target's layout is one process_vm_writev/readv.
 *
 * Accumulates work on elements of the basic type.  Where the target's
 * memory is load/store for every rank of the window ("atomics"), elements
 * of 1, 2, 4 or 8 naturally aligned bytes are single C11 atomic
 * read-modify-writes (fetch_add/and/or/xor for integers, exchange for
 * MPI_REPLACE, a load for MPI_NO_OP, a compare-exchange loop around the
 * op's own kernel for everything else, MINLOC on MPI_2INT included); every
 * other element is combined under the target's accumulate lock, in its
 * control block.  The choice depends on the type and the element's
 * address only, so two operations on one location always take the same
 * path and stay atomic with respect to each other.  Accumulates of many
 * elements go in bulk instead: the lock, held so that it also excludes the
 * element atomics (origins announce them with a busy flag), and the op's
 * plain loop (see "accumulate" below). */
#define _GNU_SOURCE
#include "rma/internal.h"
#include "rma/fast.h"

#include <stdlib.h>
#include <string.h>

#include "base/compiler.h"
#include "dtype/engine.h"
#include "mpi/op.h"
#include "mpi/op_internal.h"
#include "smap/remote.h"
#include "smap/smap.h"

/* ---- where the target range is ---- */

struct where {
    int path, atomics;
    char *local;        /* DIRECT: the target address as mapped here */
    uintptr_t taddr;    /* the target address in its own space */
    int lr;
};

static MPI_Count span_of(const smap_dtype_t *t, MPI_Count n)
{
    return n > 0 ? (n - 1) * t->extent + t->true_extent : 0;
}

static int locate(struct MPI_ABI_Win *w, int target, uintptr_t taddr, MPI_Count count,
                  smap_dtype_t *tt, struct where *o)
{
    struct smap_rma_target *t = &w->t[target];
    o->taddr = taddr;
    o->lr = t->lr;
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        o->path = t->path;
        o->atomics = t->atomics;
        o->local = t->local ? t->local + (taddr - t->base) : NULL;
        return MPI_SUCCESS;
    }
    if (t->remote) {   /* the target checks its attach table itself (remote.c) */
        o->path = SMAP_RMA_AM;
        o->atomics = 0;
        o->local = NULL;
        return MPI_SUCCESS;
    }
    char *lo;
    uintptr_t first = taddr + (uintptr_t)tt->true_lb;
    int rc = smap_rma_dyn_resolve(w, target, first, (size_t)span_of(tt, count), &o->path, &lo,
                                  &o->atomics);
    o->local = rc == MPI_SUCCESS && o->path == SMAP_RMA_DIRECT ? lo - tt->true_lb : NULL;
    return rc;
}

/* ---- contiguous blocks of a target layout (CMA) ---- */

typedef smap_rma_block_fn block_fn;
#define each_block smap_rma_each_block

int smap_rma_each_block(uintptr_t addr, MPI_Count count, smap_dtype_t *t, block_fn *fn, void *ctx)
{
    if (count <= 0 || t->size == 0)
        return MPI_SUCCESS;
    if (smap_dtype_is_contiguous(t))
        return fn(ctx, addr + (uintptr_t)smap_dtype_data_offset(t), (size_t)(count * t->size), 0);
    const struct smap_dtype_flat *f = smap_dtype_flat(t);
    if (!f)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory compiling the datatype");
    size_t off = 0;
    for (MPI_Count e = 0; e < count; e++) {
        uintptr_t el = addr + (uintptr_t)(e * t->extent);
        for (MPI_Count r = 0; r < f->nblk; r++) {
            const struct smap_dtype_block *b = &f->blk[r];
            for (MPI_Count k = 0; k < b->n; k++) {
                int rc = fn(ctx, el + (uintptr_t)(b->off + k * b->stride), (size_t)b->len, off);
                if (rc)
                    return rc;
                off += (size_t)b->len;
            }
        }
    }
    return MPI_SUCCESS;
}

struct cma_ctx {
    int lr;
    char *stream;
};

static int cma_write(void *ctx, uintptr_t addr, size_t len, size_t off)
{
    struct cma_ctx *c = ctx;
    if (smap_copy_to(c->lr, (void *)addr, c->stream + off, len) == SMAP_COPY_BOUNCE)
        return smap_fail(MPI_ERR_RMA_RANGE, "CMA could not write the target's memory");
    return MPI_SUCCESS;
}

static int cma_read(void *ctx, uintptr_t addr, size_t len, size_t off)
{
    struct cma_ctx *c = ctx;
    if (smap_copy_from(c->lr, c->stream + off, (const void *)addr, len) == SMAP_COPY_BOUNCE)
        return smap_fail(MPI_ERR_RMA_RANGE, "CMA could not read the target's memory");
    return MPI_SUCCESS;
}

static void *scratch(size_t bytes)
{
    return malloc(bytes ? bytes : 1);
}

/* Target layout <-> packed stream, through CMA. */
static int cma_scatter(const struct where *o, MPI_Count count, smap_dtype_t *t, char *stream)
{
    struct cma_ctx c = { o->lr, stream };
    return each_block(o->taddr, count, t, cma_write, &c);
}

static int cma_gather(const struct where *o, MPI_Count count, smap_dtype_t *t, char *stream)
{
    struct cma_ctx c = { o->lr, stream };
    return each_block(o->taddr, count, t, cma_read, &c);
}

/* Target layout <-> packed stream, through the target's mailbox: every
 * dense block, in chunks the mailbox holds. */
struct am_ctx {
    struct MPI_ABI_Win *w;
    int target, kind;
    char *stream;         /* in (put) or out (get) */
};

static int am_block(void *ctx, uintptr_t addr, size_t len, size_t off)
{
    struct am_ctx *c = ctx;
    for (size_t k = 0; k < len; k += SMAP_RMA_AM_BYTES) {
        size_t n = len - k < SMAP_RMA_AM_BYTES ? len - k : SMAP_RMA_AM_BYTES;
        int put = c->kind == SMAP_AM_PUT;
        int rc = smap_rma_am_call(c->w, c->target, c->kind, addr + k, n, MPI_OP_NULL,
                                  MPI_DATATYPE_NULL, put ? c->stream + off + k : NULL,
                                  put ? n : 0, put ? NULL : c->stream + off + k, put ? 0 : n);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

static int am_scatter(struct MPI_ABI_Win *w, int target, const struct where *o, MPI_Count count,
                      smap_dtype_t *t, char *stream)
{
    if (w->t[target].remote)
        return smap_rma_net_xfer(w, target, SMAP_AM_PUT, MPI_OP_NULL, NULL, o->taddr, count, t,
                                 stream, NULL);
    struct am_ctx c = { w, target, SMAP_AM_PUT, stream };
    return each_block(o->taddr, count, t, am_block, &c);
}

static int am_gather(struct MPI_ABI_Win *w, int target, const struct where *o, MPI_Count count,
                     smap_dtype_t *t, char *stream)
{
    if (w->t[target].remote)
        return smap_rma_net_xfer(w, target, SMAP_AM_GET, MPI_OP_NULL, NULL, o->taddr, count, t,
                                 NULL, stream);
    struct am_ctx c = { w, target, SMAP_AM_GET, stream };
    return each_block(o->taddr, count, t, am_block, &c);
}

/* ---- put / get ---- */

/* Large copies in pieces (fast.h says why). */
void smap_rma_copy_pieces(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    for (size_t k = 0; k < n; k += SMAP_RMA_COPY_PIECE)
        memcpy(d + k, s + k, n - k < SMAP_RMA_COPY_PIECE ? n - k : SMAP_RMA_COPY_PIECE);
}

/* Both sides one dense block starting at the buffer (predefined
 * contiguous types): the copy is one smap_rma_copy, no type-map walk. */
#define PLAIN_PAIR(x, y) \
    ((((x)->flags & (y)->flags) & (SMAP_DT_PREDEF | SMAP_DT_CONTIG)) == \
     (SMAP_DT_PREDEF | SMAP_DT_CONTIG))

static int node_put(MPI_Win h, int target, const struct smap_rma_op_args *a)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    struct where o;
    int rc = locate(w, target, a->taddr, a->tcount, a->ttype, &o);
    if (rc)
        return rc;
    if (SMAP_LIKELY(o.path == SMAP_RMA_DIRECT)) {
        if (PLAIN_PAIR(a->ttype, a->otype))
            smap_rma_copy(o.local, a->oaddr, (size_t)(a->tcount * a->ttype->size));
        else
            smap_dtype_copy(o.local, a->tcount, a->ttype, a->oaddr, a->ocount, a->otype);
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)(a->ocount * a->otype->size);
    char *s = scratch(bytes);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    smap_dtype_pack(a->oaddr, a->ocount, a->otype, s, 0, (MPI_Count)bytes);
    rc = o.path == SMAP_RMA_CMA ? cma_scatter(&o, a->tcount, a->ttype, s)
                                : am_scatter(w, target, &o, a->tcount, a->ttype, s);
    free(s);
    return rc;
}

static int node_get(MPI_Win h, int target, const struct smap_rma_op_args *a)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    struct where o;
    int rc = locate(w, target, a->taddr, a->tcount, a->ttype, &o);
    if (rc)
        return rc;
    if (SMAP_LIKELY(o.path == SMAP_RMA_DIRECT)) {
        if (PLAIN_PAIR(a->ttype, a->rtype))
            smap_rma_copy(a->raddr, o.local, (size_t)(a->tcount * a->ttype->size));
        else
            smap_dtype_copy(a->raddr, a->rcount, a->rtype, o.local, a->tcount, a->ttype);
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)(a->tcount * a->ttype->size);
    char *s = scratch(bytes);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    rc = o.path == SMAP_RMA_CMA ? cma_gather(&o, a->tcount, a->ttype, s)
                                : am_gather(w, target, &o, a->tcount, a->ttype, s);
    if (!rc)
        smap_dtype_unpack(s, (MPI_Count)bytes, a->raddr, a->rcount, a->rtype, 0);
    free(s);
    return rc;
}

/* ---- element atomics ---- */

struct acc_plan {
    int opx;
    int integer;             /* BAND is defined on the type: fetch_and & co apply */
    smap_op_loop_fn *fn;     /* the op's kernel (not REPLACE / NO_OP) */
    size_t esize;
    size_t span;             /* bytes an element covers: MPI_SHORT_INT's 8, hole included */
    size_t ext, align;       /* the basic type's extent and alignment */
};

#define ATOMIC_RMW(T, p, in, res, plan)                                                      \
    do {                                                                                     \
        _Atomic T *q_ = (_Atomic T *)(p);                                                    \
        T v_ = 0, old_;                                                                      \
        if (in)                                                                              \
            memcpy(&v_, (in), sizeof v_);                                                    \
        switch ((plan)->opx) {                                                               \
        case SMAP_OPX_NO_OP: old_ = atomic_load_explicit(q_, memory_order_acquire); break;   \
        case SMAP_OPX_REPLACE: old_ = atomic_exchange_explicit(q_, v_, memory_order_acq_rel); break; \
        case SMAP_OPX_SUM:                                                                   \
            if ((plan)->integer) {                                                           \
                old_ = atomic_fetch_add_explicit(q_, v_, memory_order_acq_rel);              \
                break;                                                                       \
            }                                                                                \
            goto cas_;                                                                       \
        case SMAP_OPX_BAND: old_ = atomic_fetch_and_explicit(q_, v_, memory_order_acq_rel); break; \
        case SMAP_OPX_BOR: old_ = atomic_fetch_or_explicit(q_, v_, memory_order_acq_rel); break; \
        case SMAP_OPX_BXOR: old_ = atomic_fetch_xor_explicit(q_, v_, memory_order_acq_rel); break; \
        default:                                                                             \
        cas_:                                                                                \
            old_ = atomic_load_explicit(q_, memory_order_relaxed);                           \
            for (;;) {                                                                       \
                T nv_ = old_;                                                                \
                (plan)->fn(&v_, &nv_, 1);                                                    \
                if (atomic_compare_exchange_weak_explicit(q_, &old_, nv_, memory_order_acq_rel, \
                                                          memory_order_relaxed))             \
                    break;                                                                   \
            }                                                                                \
        }                                                                                    \
        if (res)                                                                             \
            memcpy((res), &old_, sizeof old_);                                               \
    } while (0)

/* Whether an element at p can be combined atomically. */
static inline int atomic_ok(const struct acc_plan *pl, const void *p)
{
    size_t s = pl->esize;
    return (s == 1 || s == 2 || s == 4 || s == 8) && ((uintptr_t)p & (s - 1)) == 0;
}

static void atomic1(const struct acc_plan *pl, void *p, const void *in, void *res)
{
    ATOMIC_RMW(uint8_t, p, in, res, pl);
}
static void atomic2(const struct acc_plan *pl, void *p, const void *in, void *res)
{
    ATOMIC_RMW(uint16_t, p, in, res, pl);
}
static void atomic4(const struct acc_plan *pl, void *p, const void *in, void *res)
{
    ATOMIC_RMW(uint32_t, p, in, res, pl);
}
static void atomic8(const struct acc_plan *pl, void *p, const void *in, void *res)
{
    ATOMIC_RMW(uint64_t, p, in, res, pl);
}

static void atomic_elem(const struct acc_plan *pl, void *p, const void *in, void *res)
{
    switch (pl->esize) {
    case 1: atomic1(pl, p, in, res); break;
    case 2: atomic2(pl, p, in, res); break;
    case 4: atomic4(pl, p, in, res); break;
    default: atomic8(pl, p, in, res); break;
    }
}

/* inout[0..n) = in op inout through the op's loop, which loads typed
 * values: misaligned buffers (derived types, disp_unit 1 windows) go
 * through aligned copies. */
static void apply_loop(const struct acc_plan *pl, const char *in, char *inout, MPI_Count n)
{
    if (SMAP_LIKELY((((uintptr_t)in | (uintptr_t)inout) & (pl->align - 1)) == 0)) {
        pl->fn(in, inout, n);
        return;
    }
    _Alignas(64) char ta[2048], tb[2048];
    MPI_Count per = (MPI_Count)(sizeof ta / pl->ext);
    while (n > 0) {
        MPI_Count k = n < per ? n : per;
        size_t bytes = (size_t)k * pl->ext;
        memcpy(ta, in, bytes);
        memcpy(tb, inout, bytes);
        pl->fn(ta, tb, k);
        memcpy(inout, tb, bytes);
        in += bytes;
        inout += bytes;
        n -= k;
    }
}

/* Non-atomic element: under the accumulate lock. */
static void locked_elem(const struct acc_plan *pl, void *p, const void *in, void *res)
{
    if (res)
        memcpy(res, p, pl->span);
    if (pl->opx == SMAP_OPX_REPLACE)
        memcpy(p, in, pl->span);
    else if (pl->opx != SMAP_OPX_NO_OP)
        apply_loop(pl, in, p, 1);
}

/* ---- accumulate ----
 *
 * Two ways to combine elements at a target whose memory every origin
 * reaches with atomics, and they must stay atomic per element against
 * each other:
 *   - element atomics (small accumulates, fetch_and_op, compare_and_swap):
 *     the origin sets its busy flag in the target's control block (one
 *     cache line per origin, seq_cst), checks that the accumulate lock is
 *     not held as DRAIN, runs its atomics and clears the flag;
 *   - bulk (accumulates of ACC_BULK_MIN elements or more): the origin takes
 *     the accumulate lock as DRAIN (seq_cst), waits until every busy flag
 *     is clear, and combines with the op's plain (vectorised) loop, letting
 *     the lock go every ACC_BULK_CHUNK bytes so small accumulates wait
 *     little.
 * Flag store then lock load on one side, lock exchange then flag loads on
 * the other (all seq_cst): at least one side sees the other, so no atomic
 * element races a plain loop.  Elements that are never atomic (wide,
 * misaligned, or memory not every rank loads) are combined under the lock
 * held as PLAIN, which does not wait for the flags; an origin drops its
 * flag before it waits for the lock (a DRAIN holder may wait for that
 * flag), and needs none while it holds the lock. */

#define ACC_BULK_MIN 8
#define ACC_BULK_CHUNK ((size_t)64 << 10)

struct acc_ctx {
    const struct acc_plan *pl;
    const char *in;            /* the origin's elements in b's layout, NULL for NO_OP */
    char *res;                 /* the old values, same layout, or NULL */
    size_t ext, size;          /* b's extent, the bytes an element covers (span) */
    struct smap_rma_cb *cb;
    _Atomic uint64_t *busy;    /* our busy flag at the target */
    int n;                     /* ranks of the window: their flags */
    int atomics, locked, flagged;
    size_t budget;             /* bulk: bytes before the lock is let go */
    /* served target, b with a hole (am_pair) */
    struct MPI_ABI_Win *w;
    int target;
    MPI_Op op;
    smap_dtype_t *b;
};

/* Enters the element atomics: busy flag up while no DRAIN holder works. */
static int atomics_enter(struct acc_ctx *c)
{
    for (;;) {
        /* an exchange, not a store: xchg rather than mov + mfence */
        atomic_exchange_explicit(c->busy, 1, memory_order_seq_cst);
        if (SMAP_LIKELY(atomic_load_explicit(&c->cb->acc_lock, memory_order_seq_cst) !=
                        SMAP_RMA_ACC_DRAIN)) {
            c->flagged = 1;
            return MPI_SUCCESS;
        }
        atomic_store_explicit(c->busy, 0, memory_order_release);
        struct smap_rma_backoff b;
        smap_rma_backoff_init(&b);
        while (atomic_load_explicit(&c->cb->acc_lock, memory_order_relaxed) ==
               SMAP_RMA_ACC_DRAIN) {
            int rc = smap_rma_backoff(&b);
            if (rc)
                return rc;
        }
    }
}

static inline void atomics_leave(struct acc_ctx *c)
{
    atomic_store_explicit(c->busy, 0, memory_order_release);
    c->flagged = 0;
}

/* Runs of consecutive elements of b in (count, t) at base: fn(ctx, p, i,
 * k) gets k elements at p, b's extent apart (as in the stream in b's
 * layout), the first being stream element i. */
typedef int run_fn(struct acc_ctx *c, char *p, MPI_Count i, MPI_Count k);
static int each_run(char *base, MPI_Count count, smap_dtype_t *t, smap_dtype_t *b, run_fn *fn,
                    struct acc_ctx *c)
{
    if (t == b)
        return fn(c, base, 0, count);
    if (smap_dtype_is_contiguous(t) && b->extent == b->size)
        return fn(c, base + smap_dtype_data_offset(t), 0, count * (t->size / b->size));
    const struct smap_dtype_flat *f = smap_dtype_flat(t);
    if (!f)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory compiling the datatype");
    /* Element i starts where the packed stream reaches i * size: a derived
     * type holds whole copies of b, so b's own layout (a pair's hole,
     * MPI_SHORT_INT's, included) holds from there, even when b's bytes
     * are cut into several blocks. */
    int dense = b->extent == b->size;
    MPI_Count i = 0, size = b->size, pos = 0;
    for (MPI_Count e = 0; e < count; e++)
        for (MPI_Count r = 0; r < f->nblk; r++) {
            const struct smap_dtype_block *bl = &f->blk[r];
            for (MPI_Count k = 0; k < bl->n; k++, pos += bl->len) {
                char *p = base + e * t->extent + bl->off + k * bl->stride;
                int rc = MPI_SUCCESS;
                if (dense) {
                    rc = fn(c, p, i, bl->len / size);
                    i += bl->len / size;
                } else {
                    for (MPI_Count x = (size - pos % size) % size; x < bl->len && !rc; x += size)
                        rc = fn(c, p + x, i++, 1);
                }
                if (rc)
                    return rc;
            }
        }
    return MPI_SUCCESS;
}

/* Element by element: atomics where the element allows, else locked. */
static int run_elems(struct acc_ctx *c, char *p, MPI_Count i, MPI_Count k)
{
    for (MPI_Count j = 0; j < k; j++, i++, p += c->ext) {
        const char *in = c->in ? c->in + i * c->ext : NULL;
        char *res = c->res ? c->res + i * c->ext : NULL;
        if (c->atomics && atomic_ok(c->pl, p)) {
            if (!c->locked && !c->flagged) {
                int rc = atomics_enter(c);
                if (rc)
                    return rc;
            }
            atomic_elem(c->pl, p, in, res);
            continue;
        }
        if (!c->locked) {
            if (c->flagged)
                atomics_leave(c);
            int rc = smap_rma_acc_lock(c->cb);
            if (rc)
                return rc;
            c->locked = 1;
        }
        locked_elem(c->pl, p, in, res);
    }
    return MPI_SUCCESS;
}

/* dst <- src for k elements of b, extent apart, touching no padding. */
static void copy_elems(char *dst, const char *src, MPI_Count k, const struct acc_ctx *c)
{
    if (c->ext == c->size) {
        memcpy(dst, src, (size_t)k * c->size);
        return;
    }
    for (MPI_Count j = 0; j < k; j++)
        memcpy(dst + j * c->ext, src + j * c->ext, c->size);
}

/* In bulk: the op's own loop under the lock, chunk by chunk. */
static int run_bulk(struct acc_ctx *c, char *p, MPI_Count i, MPI_Count k)
{
    const struct acc_plan *pl = c->pl;
    while (k > 0) {
        if (!c->locked) {
            int rc = c->atomics ? smap_rma_acc_lock_drain(c->cb, c->n) : smap_rma_acc_lock(c->cb);
            if (rc)
                return rc;
            c->locked = 1;
            c->budget = ACC_BULK_CHUNK;
        }
        MPI_Count m = k, fit = (MPI_Count)(c->budget / c->ext);
        if (m > fit)
            m = fit ? fit : 1;
        size_t bytes = (size_t)m * c->ext;
        if (c->res)
            copy_elems(c->res + i * c->ext, p, m, c);
        if (pl->opx == SMAP_OPX_REPLACE)
            copy_elems(p, c->in + i * c->ext, m, c);
        else if (pl->opx != SMAP_OPX_NO_OP)
            apply_loop(pl, c->in + i * c->ext, p, m);
        c->budget = bytes < c->budget ? c->budget - bytes : 0;
        if (!c->budget) {
            smap_rma_acc_unlock(c->cb);
            c->locked = 0;
        }
        p += bytes;
        i += m;
        k -= m;
    }
    return MPI_SUCCESS;
}

static int opx_of(MPI_Op op)
{
    struct MPI_ABI_Op *o = smap_op_get(op);
    return o ? o->opx : -1;
}

/* An accumulate through the target's mailbox: the origin's stream, block
 * after block of the target layout, in chunks of whole elements of b; the
 * target combines under its accumulate lock. */
struct acc_am_ctx {
    struct MPI_ABI_Win *w;
    int target, gacc;
    MPI_Op op;
    smap_dtype_t *b;
    const char *in;   /* packed origin stream, NULL for MPI_NO_OP */
    char *res;        /* packed result stream, or NULL */
};

static int acc_am_block(void *ctx, uintptr_t addr, size_t len, size_t off)
{
    struct acc_am_ctx *c = ctx;
    size_t es = (size_t)c->b->size, chunk = SMAP_RMA_AM_BYTES / es * es;
    for (size_t k = 0; k < len; k += chunk) {
        size_t n = len - k < chunk ? len - k : chunk;
        int rc = smap_rma_am_call(c->w, c->target, c->gacc ? SMAP_AM_GACC : SMAP_AM_ACC, addr + k,
                                  n, c->op, smap_dtype_handle(c->b),
                                  c->in ? c->in + off + k : NULL, c->in ? n : 0,
                                  c->res ? c->res + off + k : NULL, c->res ? n : 0);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

static int acc_am(struct MPI_ABI_Win *w, int target, const struct where *o,
                  const struct smap_rma_op_args *a, smap_dtype_t *b)
{
    size_t bytes = (size_t)(a->tcount * a->ttype->size);
    char *in = NULL, *res = NULL;
    int rc = MPI_SUCCESS;
    if (a->op != MPI_NO_OP && !(in = scratch(bytes)))
        rc = MPI_ERR_NO_MEM;
    if (!rc && a->raddr && !(res = scratch(bytes)))
        rc = MPI_ERR_NO_MEM;
    if (rc) {
        free(in);
        return smap_fail(rc, "out of memory");
    }
    if (in)
        smap_dtype_pack(a->oaddr, a->ocount, a->otype, in, 0, (MPI_Count)bytes);
    struct acc_am_ctx c = { w, target, a->raddr != NULL, a->op, b, in, res };
    if (w->t[target].remote)
        rc = smap_rma_net_xfer(w, target, res ? SMAP_AM_GACC : SMAP_AM_ACC, a->op, b, o->taddr,
                               a->tcount, a->ttype, in, res);
    else
        rc = each_block(o->taddr, a->tcount, a->ttype, acc_am_block, &c);
    if (!rc && res)
        smap_dtype_unpack(res, (MPI_Count)bytes, a->raddr, a->rcount, a->rtype, 0);
    free(in);
    free(res);
    return rc;
}

/* Whether b has padding inside (MPI_SHORT_INT: short, 2 bytes, int): the
 * packed stream has no hole where the op's loop reads the index, and the
 * target layout's dense blocks cut each element in two. */
static inline int has_hole(const smap_dtype_t *b)
{
    return b->true_extent != b->size;
}

/* Such elements to a served target (its mailbox, or another node): one
 * request per element at its address, in b's own layout (in and res are). */
static int am_pair(struct acc_ctx *c, char *p, MPI_Count i, MPI_Count k)
{
    size_t len = (size_t)c->b->true_extent;
    for (MPI_Count j = 0; j < k; j++, i++) {
        int rc = smap_rma_am_call(c->w, c->target, c->res ? SMAP_AM_GACC : SMAP_AM_ACC,
                                  (uintptr_t)p + (uintptr_t)j * c->ext, len, c->op,
                                  smap_dtype_handle(c->b), c->in ? c->in + i * c->ext : NULL,
                                  c->in ? len : 0, c->res ? c->res + i * c->ext : NULL,
                                  c->res ? len : 0);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

/* REPLACE / NO_OP on a type mixing basic types: whole-operation put/get
 * under the accumulate lock (no element is torn by another accumulate). */
static int acc_mixed(MPI_Win h, int target, const struct smap_rma_op_args *a, int opx)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    struct smap_rma_cb *cb = w->t[target].cb;
    struct where o;
    int rc = locate(w, target, a->taddr, a->tcount, a->ttype, &o);
    if (rc)
        return rc;
    if (o.path == SMAP_RMA_AM)   /* bytes, replaced block by block by the target */
        return acc_am(w, target, &o, a, smap_dtype_get(MPI_BYTE));
    rc = smap_rma_acc_lock(cb);
    if (rc)
        return rc;
    if (a->raddr)
        rc = node_get(h, target, a);
    if (!rc && opx == SMAP_OPX_REPLACE)
        rc = node_put(h, target, a);
    smap_rma_acc_unlock(cb);
    return rc;
}

/* Whether count elements of t are the elements of b back to back, with
 * no padding: then the buffer itself is in b's layout. */
static inline int in_b_layout(smap_dtype_t *t, smap_dtype_t *b)
{
    return b->extent == b->size && (t == b || smap_dtype_is_contiguous(t));
}

static inline char *b_layout_ptr(const void *buf, smap_dtype_t *t, smap_dtype_t *b)
{
    return (char *)(uintptr_t)buf + (t == b ? 0 : smap_dtype_data_offset(t));
}

static int node_acc(MPI_Win h, int target, const struct smap_rma_op_args *a)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    int opx = opx_of(a->op);
    smap_dtype_t *b = smap_op_base_type(a->ttype);
    if (!b)
        return acc_mixed(h, target, a, opx);
    struct acc_plan pl = { .opx = opx, .esize = (size_t)b->size,
                           .span = (size_t)b->true_extent, .ext = (size_t)b->extent,
                           .align = b->align > 0 ? (size_t)b->align : 1 };
    smap_op_loop_fn *band;
    const char *why;
    smap_dtype_t *lb = smap_op_acc_type(b);   /* whose loops combine b */
    pl.integer =
        opx == SMAP_OPX_SUM && smap_op_loop(SMAP_OPX_BAND, lb, &band, &why) == MPI_SUCCESS;
    if (opx != SMAP_OPX_REPLACE && opx != SMAP_OPX_NO_OP) {
        int rc = smap_op_loop(opx, lb, &pl.fn, &why);
        if (SMAP_UNLIKELY(rc))
            return smap_fail(rc, why);
    }
    struct where o;
    int rc = locate(w, target, a->taddr, a->tcount, a->ttype, &o);
    if (rc)
        return rc;
    int holes = o.path == SMAP_RMA_AM && has_hole(b);
    if (o.path == SMAP_RMA_AM && !holes)
        return acc_am(w, target, &o, a, b);
    MPI_Count n = a->ttype->size ? a->tcount * (a->ttype->size / b->size) : 0;
    size_t bytes = (size_t)(n * b->extent);
    /* the origin's and the result's elements in b's layout: the user's
     * buffers themselves when they are, else scratch (MPI_NO_OP has no
     * origin elements) */
    _Alignas(16) char in_small[64], res_small[64];
    const char *in = NULL;
    char *in_s = NULL, *res = NULL, *res_s = NULL;
    if (opx != SMAP_OPX_NO_OP) {
        if (in_b_layout(a->otype, b)) {
            in = b_layout_ptr(a->oaddr, a->otype, b);
        } else {
            in_s = bytes <= sizeof in_small ? in_small : scratch(bytes);
            if (!in_s)
                return smap_fail(MPI_ERR_NO_MEM, "out of memory");
            smap_dtype_copy(in_s, n, b, a->oaddr, a->ocount, a->otype);
            in = in_s;
        }
    }
    if (a->raddr) {
        if (in_b_layout(a->rtype, b)) {
            res = b_layout_ptr(a->raddr, a->rtype, b);
        } else {
            res = res_s = bytes <= sizeof res_small ? res_small : scratch(bytes);
            if (!res) {
                if (in_s != in_small)
                    free(in_s);
                return smap_fail(MPI_ERR_NO_MEM, "out of memory");
            }
        }
    }
    struct smap_rma_cb *cb = w->t[target].cb;
    if (holes) {
        struct acc_ctx c = { .in = in, .res = res, .ext = (size_t)b->extent, .w = w,
                             .target = target, .op = a->op, .b = b };
        rc = each_run((char *)o.taddr, a->tcount, a->ttype, b, am_pair, &c);
    } else if (o.path == SMAP_RMA_DIRECT) {
        struct acc_ctx c = { .pl = &pl, .in = in, .res = res, .ext = (size_t)b->extent,
                             .size = pl.span, .cb = cb,
                             .busy = smap_rma_busy_flag(cb, w->n, w->me), .n = w->n,
                             .atomics = o.atomics };
        int bulk = !o.atomics || n >= ACC_BULK_MIN;
        rc = each_run(o.local, a->tcount, a->ttype, b, bulk ? run_bulk : run_elems, &c);
        if (c.flagged)
            atomics_leave(&c);
        if (c.locked)
            smap_rma_acc_unlock(cb);
    } else {
        /* CMA: gather the target elements, combine here, scatter back, all
         * under the lock (such targets never use atomics) */
        size_t sbytes = (size_t)(a->tcount * a->ttype->size);
        char *s = scratch(sbytes), *cur = scratch(bytes);
        rc = s && cur ? smap_rma_acc_lock(cb) : smap_fail(MPI_ERR_NO_MEM, "out of memory");
        if (!rc) {
            rc = cma_gather(&o, a->tcount, a->ttype, s);
            if (!rc) {
                smap_dtype_unpack(s, (MPI_Count)sbytes, cur, n, b, 0);
                if (res)
                    memcpy(res, cur, bytes);
                if (opx != SMAP_OPX_NO_OP) {
                    smap_op_apply(a->op, in, cur, n, smap_dtype_handle(lb));
                    smap_dtype_pack(cur, n, b, s, 0, (MPI_Count)sbytes);
                    rc = cma_scatter(&o, a->tcount, a->ttype, s);
                }
            }
            smap_rma_acc_unlock(cb);
        }
        free(s);
        free(cur);
    }
    if (!rc && res_s)
        smap_dtype_copy(a->raddr, a->rcount, a->rtype, res_s, n, b);
    if (in_s != in_small)
        free(in_s);
    if (res_s != res_small)
        free(res_s);
    return rc;
}

/* The fast path of MPI_Accumulate / MPI_Get_accumulate / MPI_Fetch_and_op
 * (fast.h): n elements of the predefined type b, origin and result in
 * b's layout, to a target whose memory every origin combines with
 * atomics.  Exactly what ops.c + node_acc would do, without the operation
 * block, the type-map walk and the scratch buffers: the element atomics
 * (n < ACC_BULK_MIN) or the bulk loop.  -1: not this case (the general
 * path decides and raises the precise error). */
int smap_rma_fast_acc(struct MPI_ABI_Win *w, int target, MPI_Aint disp, int opx,
                      smap_dtype_t *b, const void *in, void *res, MPI_Count n)
{
    const struct smap_rma_target *t = &w->t[target];
    if (SMAP_UNLIKELY(!t->local || !t->atomics || smap_p2p_progress_rma ||
                      b->extent != b->size || !b->size || n <= 0 || n > INT32_MAX))
        return -1;
    if (SMAP_UNLIKELY(!w->lock_all && !w->locked[target])) {
        if (!w->fence_open)
            return -1;
        w->fence_used = 1;
    }
    if (SMAP_UNLIKELY((uint64_t)(disp | t->disp_unit) > INT32_MAX))
        return -1;
    uint64_t off = (uint64_t)disp * (uint64_t)t->disp_unit;
    uint64_t bytes = (uint64_t)n * (uint64_t)b->size;
    if (SMAP_UNLIKELY(off + bytes > (uint64_t)t->size))
        return -1;
    struct acc_plan pl = { .opx = opx, .esize = (size_t)b->size, .span = (size_t)b->size,
                           .ext = (size_t)b->extent,
                           .align = b->align > 0 ? (size_t)b->align : 1 };
    if (opx != SMAP_OPX_REPLACE && opx != SMAP_OPX_NO_OP) {
        const char *why;
        smap_dtype_t *lb = smap_op_acc_type(b);
        if (SMAP_UNLIKELY(smap_op_loop(opx, lb, &pl.fn, &why) != MPI_SUCCESS))
            return -1;
        if (opx == SMAP_OPX_SUM) {
            smap_op_loop_fn *band;
            pl.integer = smap_op_loop(SMAP_OPX_BAND, lb, &band, &why) == MPI_SUCCESS;
        }
    }
    struct smap_rma_cb *cb = t->cb;
    struct acc_ctx c = { .pl = &pl, .in = opx == SMAP_OPX_NO_OP ? NULL : in, .res = res,
                         .ext = pl.ext, .size = pl.esize, .cb = cb,
                         .busy = smap_rma_busy_flag(cb, w->n, w->me), .n = w->n,
                         .atomics = 1 };
    int rc = n >= ACC_BULK_MIN ? run_bulk(&c, t->local + off, 0, n)
                               : run_elems(&c, t->local + off, 0, n);
    if (c.flagged)
        atomics_leave(&c);
    if (c.locked)
        smap_rma_acc_unlock(cb);
    return rc;
}

static int node_cas(MPI_Win h, int target, const struct smap_rma_op_args *a)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    smap_dtype_t *t = a->ttype;
    size_t s = (size_t)t->size;
    struct where o;
    int rc = locate(w, target, a->taddr, 1, t, &o);
    if (rc)
        return rc;
    struct acc_plan pl = { .esize = s, .span = s };
    char old[64];
    if (o.path == SMAP_RMA_DIRECT && o.atomics && t->extent == t->size && atomic_ok(&pl, o.local)) {
        struct smap_rma_cb *cb = w->t[target].cb;
        struct acc_ctx c = { .cb = cb, .busy = smap_rma_busy_flag(cb, w->n, w->me) };
        rc = atomics_enter(&c);
        if (rc)
            return rc;
        switch (s) {
#define CAS_AS(T)                                                                            \
    {                                                                                        \
        T e_, d_;                                                                            \
        memcpy(&e_, a->caddr, sizeof e_);                                                    \
        memcpy(&d_, a->oaddr, sizeof d_);                                                    \
        atomic_compare_exchange_strong_explicit((_Atomic T *)(void *)o.local, &e_, d_,       \
                                                memory_order_acq_rel, memory_order_acquire); \
        memcpy(a->raddr, &e_, sizeof e_);                                                    \
        break;                                                                               \
    }
        case 1: CAS_AS(uint8_t)
        case 2: CAS_AS(uint16_t)
        case 4: CAS_AS(uint32_t)
        default: CAS_AS(uint64_t)
#undef CAS_AS
        }
        atomics_leave(&c);
        return MPI_SUCCESS;
    }
    if (s > sizeof old)
        return smap_fail(MPI_ERR_TYPE, "compare-and-swap takes one basic element");
    if (o.path == SMAP_RMA_AM) {
        /* the target compares and swaps under its own accumulate lock */
        char in[16];
        memcpy(in, a->oaddr, s);
        memcpy(in + s, a->caddr, s);
        rc = smap_rma_am_call(w, target, SMAP_AM_CAS, o.taddr, s, MPI_OP_NULL,
                              smap_dtype_handle(t), in, 2 * s, old, s);
        if (!rc)
            memcpy(a->raddr, old, s);
        return rc;
    }
    struct smap_rma_cb *cb = w->t[target].cb;
    rc = smap_rma_acc_lock(cb);
    if (rc)
        return rc;
    if (o.path == SMAP_RMA_DIRECT) {
        memcpy(old, o.local, s);
        if (memcmp(old, a->caddr, s) == 0)
            memcpy(o.local, a->oaddr, s);
    } else {
        struct cma_ctx c = { o.lr, old };
        rc = each_block(o.taddr, 1, t, cma_read, &c);
        if (!rc && memcmp(old, a->caddr, s) == 0) {
            c.stream = (char *)(uintptr_t)a->oaddr;
            rc = each_block(o.taddr, 1, t, cma_write, &c);
        }
    }
    smap_rma_acc_unlock(cb);
    if (!rc)
        memcpy(a->raddr, old, s);
    return rc;
}

/* ---- passive target ---- */

/* A lock granted while the target has an exposure epoch open (between its
 * MPI_Win_post and the end of its wait) is erroneous (MPI 5.0 12.5.3):
 * give it back and say so. */
static int granted_while_exposed(struct smap_rma_cb *cb, uint64_t held)
{
    if (SMAP_LIKELY(!atomic_load_explicit(&cb->exposed, memory_order_acquire)))
        return MPI_SUCCESS;
    atomic_fetch_sub_explicit(&cb->lock, held, memory_order_release);
    return smap_fail(MPI_ERR_RMA_CONFLICT, "the target window is exposed (MPI_Win_post) "
                                               "and cannot be locked at the same time");
}

static int node_lock(MPI_Win h, int target, int type)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    _Atomic uint64_t *l = &w->t[target].cb->lock;
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    if (type == MPI_LOCK_SHARED) {
        for (;;) {
            uint64_t v = atomic_load_explicit(l, memory_order_relaxed);
            if (!(v & (SMAP_RMA_EXCL | SMAP_RMA_WAITERS)) &&
                atomic_compare_exchange_weak_explicit(l, &v, v + 1, memory_order_acquire,
                                                      memory_order_relaxed))
                return granted_while_exposed(w->t[target].cb, 1);
            int rc = smap_rma_backoff(&b);
            if (rc)
                return rc;
        }
    }
    atomic_fetch_add_explicit(l, SMAP_RMA_WAIT1, memory_order_relaxed);
    for (;;) {
        uint64_t v = atomic_load_explicit(l, memory_order_relaxed);
        if (!(v & (SMAP_RMA_EXCL | SMAP_RMA_SHARED)) &&
            atomic_compare_exchange_weak_explicit(l, &v, v - SMAP_RMA_WAIT1 + SMAP_RMA_EXCL,
                                                  memory_order_acquire, memory_order_relaxed))
            return granted_while_exposed(w->t[target].cb, SMAP_RMA_EXCL);
        int rc = smap_rma_backoff(&b);
        if (rc) {
            atomic_fetch_sub_explicit(l, SMAP_RMA_WAIT1, memory_order_relaxed);
            return rc;
        }
    }
}

static int node_unlock(MPI_Win h, int target, int type)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    _Atomic uint64_t *l = &w->t[target].cb->lock;
    atomic_fetch_sub_explicit(l, type == MPI_LOCK_SHARED ? 1 : SMAP_RMA_EXCL,
                              memory_order_release);
    return MPI_SUCCESS;
}

static int node_flush(MPI_Win h, int target)
{
    (void)h;
    (void)target;
    /* the operations are complete; make them visible before what follows */
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}

const struct smap_rma_ops smap_rma_node_ops = {
    .put = node_put,
    .get = node_get,
    .acc = node_acc,
    .cas = node_cas,
    .lock = node_lock,
    .unlock = node_unlock,
    .flush = node_flush,
};
