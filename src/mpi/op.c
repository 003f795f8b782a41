/* Reduction op objects and the engine that applies them (src/mpi/op.h).
 * The typed loops themselves live in op_types.c. */
#include <limits.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/compiler.h"
#include "base/free_later.h"
#include "dtype/engine.h"
#include "mpi/comm.h"
#include "mpi/handles.h"
#include "mpi/op.h"
#include "mpi/op_internal.h"

/* ---- objects ---- */

/* Indexed by handle - SMAP_OP_PREDEF_BASE; the offsets are the standard
 * ABI's values (MPI_SUM = 0x21 ...; tests/ops checks every name). */
#define PREDEF(off, x, nm)                                                         \
    [off] = {.magic = SMAP_OP_MAGIC, .predefined = 1, .opx = SMAP_OPX_##x,         \
             .commute = 1, .name = nm}
static struct MPI_ABI_Op predef_ops[SMAP_OP_PREDEF_N] = {
    PREDEF(0x01, SUM, "MPI_SUM"),       PREDEF(0x02, MIN, "MPI_MIN"),
    PREDEF(0x03, MAX, "MPI_MAX"),       PREDEF(0x04, PROD, "MPI_PROD"),
    PREDEF(0x08, BAND, "MPI_BAND"),     PREDEF(0x09, BOR, "MPI_BOR"),
    PREDEF(0x0a, BXOR, "MPI_BXOR"),     PREDEF(0x10, LAND, "MPI_LAND"),
    PREDEF(0x11, LOR, "MPI_LOR"),       PREDEF(0x12, LXOR, "MPI_LXOR"),
    PREDEF(0x18, MINLOC, "MPI_MINLOC"), PREDEF(0x19, MAXLOC, "MPI_MAXLOC"),
    PREDEF(0x1c, REPLACE, "MPI_REPLACE"), PREDEF(0x1d, NO_OP, "MPI_NO_OP"),
};

struct MPI_ABI_Op *smap_op_get(MPI_Op h)
{
    uintptr_t v = (uintptr_t)h;
    if (v - SMAP_OP_PREDEF_BASE < SMAP_OP_PREDEF_N) {
        struct MPI_ABI_Op *o = &predef_ops[v - SMAP_OP_PREDEF_BASE];
        return o->magic == SMAP_OP_MAGIC ? o : NULL;
    }
    if (!smap_plausible_object(h, alignof(struct MPI_ABI_Op)))
        return NULL;
    struct MPI_ABI_Op *o = (struct MPI_ABI_Op *)h;
    return o->magic == SMAP_OP_MAGIC ? o : NULL;
}

const char *smap_op_name(MPI_Op h)
{
    if (h == MPI_OP_NULL)
        return "MPI_OP_NULL";
    struct MPI_ABI_Op *o = smap_op_get(h);
    return o ? o->name : "an invalid op";
}

struct MPI_ABI_Op *smap_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute)
{
    struct MPI_ABI_Op *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->magic = SMAP_OP_MAGIC;
    o->opx = -1;
    o->commute = commute != 0;
    o->large = fn_c != NULL;
    o->fn = fn;
    o->fn_c = fn_c;
    o->name = "user-defined op";
    atomic_init(&o->refs, 1);
    return o;
}

struct MPI_ABI_Op *smap_op_create_ctx(smap_op_ctx_fn *fn_ctx, void *ctx, int large, int commute)
{
    struct MPI_ABI_Op *o = smap_op_create(NULL, NULL, commute);
    if (o) {
        o->large = large != 0;
        o->fn_ctx = fn_ctx;
        o->ctx = ctx;
    }
    return o;
}

void smap_op_retain(struct MPI_ABI_Op *op)
{
    if (!op->predefined)
        atomic_fetch_add(&op->refs, 1);
}

void smap_op_release(struct MPI_ABI_Op *op)
{
    if (op->predefined || atomic_fetch_sub(&op->refs, 1) != 1)
        return;
    smap_handle_forget(op);
    op->magic = 0;
    smap_free_later(op);   /* a stale handle reads the cleared magic for a while */
}

/* ---- which basic type a datatype is made of ---- */

/* The single predefined type t is built from, or NULL when it mixes
 * several (or holds none). */
static smap_dtype_t *base_of(smap_dtype_t *t)
{
    if (t->flags & SMAP_DT_PREDEF)
        return t;
    if (t->layout == SMAP_L_BLOCKS && t->types) {
        smap_dtype_t *b = NULL;
        for (MPI_Count i = 0; i < t->count; i++) {
            smap_dtype_t *x = base_of(t->types[i]);
            if (!x || (b && x != b))
                return NULL;
            b = x;
        }
        return b;
    }
    return t->child ? base_of(t->child) : NULL;
}

smap_dtype_t *smap_op_base_type(smap_dtype_t *t)
{
    return base_of(t);
}

/* The loop of predefined op opx on type t, and t's basic type. */
static int resolve(int opx, smap_dtype_t *t, smap_dtype_t **base, smap_op_loop_fn **fn,
                   const char **why)
{
    *base = base_of(t);
    if (!*base) {
        *why = "the derived datatype is not built from a single predefined datatype";
        return MPI_ERR_TYPE;
    }
    if (*base != t && smap_op_is_pair(*base)) {
        *why = "derived datatypes of value-index pairs (MPI_2INT ...) cannot be reduced "
               "by predefined ops here";
        return MPI_ERR_TYPE;
    }
    return smap_op_loop(opx, *base, fn, why);
}

int smap_op_check(MPI_Op op, MPI_Datatype type, const char **why)
{
    const char *dummy;
    struct MPI_ABI_Op *o = smap_op_get(op);
    smap_dtype_t *t = smap_dtype_stored(type), *base;
    smap_op_loop_fn *fn;
    if (!why)
        why = &dummy;
    if (!o || !t) {
        *why = !o ? "invalid op" : "invalid datatype";
        return !o ? MPI_ERR_OP : MPI_ERR_TYPE;
    }
    if (!o->predefined || o->opx == SMAP_OPX_REPLACE || o->opx == SMAP_OPX_NO_OP)
        return MPI_SUCCESS;
    return resolve(o->opx, t, &base, &fn, why);
}

/* One-sided accumulates only: MPI_BYTE also takes the arithmetic ops, as
 * the unsigned 8-bit integers it holds.  MPICH and Open MPI accept them
 * there (mpi4py probes one-sided support with MPI_SUM on MPI_BYTE), so
 * smartmap does too (D14); reductions keep the standard's table. */
static int acc_arith(int opx)
{
    return opx == SMAP_OPX_SUM || opx == SMAP_OPX_PROD || opx == SMAP_OPX_MIN ||
           opx == SMAP_OPX_MAX;
}

smap_dtype_t *smap_op_acc_type(smap_dtype_t *b)
{
    return b == smap_dtype_get(MPI_BYTE) ? smap_dtype_get(MPI_UINT8_T) : b;
}

int smap_op_check_acc(MPI_Op op, MPI_Datatype type, const char **why)
{
    struct MPI_ABI_Op *o = smap_op_get(op);
    smap_dtype_t *t = smap_dtype_get(type);
    smap_dtype_t *b = o && t && o->predefined ? base_of(t) : NULL;
    if (b && acc_arith(o->opx) && b == smap_dtype_get(MPI_BYTE))
        return MPI_SUCCESS;
    /* derived types of value-index pairs: src/rma walks them pair by pair
     * (MPICH and Open MPI accept MPI_MAXLOC on a vector of pairs there) */
    if (b && b != t && smap_op_is_pair(b) && o->opx != SMAP_OPX_REPLACE &&
        o->opx != SMAP_OPX_NO_OP) {
        const char *dummy;
        smap_op_loop_fn *fn;
        return smap_op_loop(o->opx, b, &fn, why ? why : &dummy);
    }
    return smap_op_check(op, type, why);
}

/* ---- applying ---- */

/* n elements of `base` at a and b: straight through the loop when both
 * are aligned for the type, else through aligned bounce buffers (derived
 * types may place elements anywhere; misaligned loads are undefined). */
static void run(smap_op_loop_fn *fn, const smap_dtype_t *base, const char *a, char *b,
                MPI_Count n)
{
    uintptr_t mis = ((uintptr_t)a | (uintptr_t)b) & (uintptr_t)(base->align - 1);
    if (SMAP_LIKELY(mis == 0)) {
        fn(a, b, n);
        return;
    }
    alignas(max_align_t) char ta[2048], tb[2048];
    MPI_Count ext = base->extent, per = (MPI_Count)sizeof ta / ext;
    while (n > 0) {
        MPI_Count k = n < per ? n : per;
        memcpy(ta, a, (size_t)(k * ext));
        memcpy(tb, b, (size_t)(k * ext));
        fn(ta, tb, k);
        memcpy(b, tb, (size_t)(k * ext));
        a += k * ext;
        b += k * ext;
        n -= k;
    }
}

/* A derived type: element after element, run after run of its compiled
 * type map (both buffers have the same layout). */
static int apply_derived(smap_op_loop_fn *fn, smap_dtype_t *base, const char *in, char *inout,
                         MPI_Count count, smap_dtype_t *t)
{
    if (smap_dtype_is_contiguous(t) && smap_dtype_committed(t)) {
        MPI_Aint off = smap_dtype_data_offset(t);
        run(fn, base, in + off, inout + off, count * (t->size / base->size));
        return MPI_SUCCESS;
    }
    const struct smap_dtype_flat *f = smap_dtype_typed(t);
    if (!f)
        return MPI_ERR_NO_MEM;
    for (MPI_Count e = 0; e < count; e++) {
        MPI_Aint at = (MPI_Aint)(e * t->extent);
        for (MPI_Count i = 0; i < f->nblk; i++) {
            const struct smap_dtype_block *bl = &f->blk[i];
            for (MPI_Count k = 0; k < bl->n; k++) {
                MPI_Aint off = at + bl->off + (MPI_Aint)k * bl->stride;
                run(fn, base, in + off, inout + off, bl->len / base->size);
            }
        }
    }
    return MPI_SUCCESS;
}

/* User functions get the buffers and type as given; an int-count function
 * sees at most INT_MAX elements per call. */
static void apply_user(struct MPI_ABI_Op *o, const char *in, char *inout, MPI_Count count,
                       MPI_Datatype type, MPI_Count extent)
{
    MPI_Datatype dt = type;
    if (o->large) {
        MPI_Count len = count;
        if (o->fn_ctx)
            o->fn_ctx(o->ctx, (void *)in, inout, len, dt);
        else
            o->fn_c((void *)in, inout, &len, &dt);
        return;
    }
    while (count > 0) {
        int len = count > INT_MAX ? INT_MAX : (int)count;
        if (o->fn_ctx)
            o->fn_ctx(o->ctx, (void *)in, inout, len, dt);
        else
            o->fn((void *)in, inout, &len, &dt);
        in += (MPI_Count)len * extent;
        inout += (MPI_Count)len * extent;
        count -= len;
    }
}

int smap_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype type)
{
    struct MPI_ABI_Op *o = smap_op_get(op);
    smap_dtype_t *t = smap_dtype_stored(type), *base;
    smap_op_loop_fn *fn;
    const char *why;
    if (!o || !t)
        return !o ? MPI_ERR_OP : MPI_ERR_TYPE;
    if (!o->predefined) {
        if (count > 0)  /* a zero-length call would only surprise the function */
            apply_user(o, in, inout, count, type, t->extent);
        return MPI_SUCCESS;
    }
    if (o->opx == SMAP_OPX_NO_OP || count <= 0)
        return o->opx == SMAP_OPX_NO_OP ? MPI_SUCCESS : smap_op_check(op, type, NULL);
    if (o->opx == SMAP_OPX_REPLACE) {
        smap_dtype_copy(inout, count, t, in, count, t);
        return MPI_SUCCESS;
    }
    int rc = resolve(o->opx, t, &base, &fn, &why);
    if (rc != MPI_SUCCESS)
        return rc;
    if (base == t) {
        run(fn, base, in, inout, count);
        return MPI_SUCCESS;
    }
    return apply_derived(fn, base, in, inout, count, t);
}
