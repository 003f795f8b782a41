/* Datatype constructors: size, bounds and true bounds of the new type
 * (MPI 5.0 section 5.1), its layout for the engine, its contents for
 * MPI_Type_get_contents, reference counts and freeing. */
#include <stdlib.h>
#include <string.h>

#include "base/compiler.h"
#include "base/free_later.h"
#include "dtype/dtype.h"
#include "dtype/internal.h"

static smap_dtype_t *new_type(int layout, smap_dtype_t *child)
{
    smap_dtype_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->magic = SMAP_DTYPE_MAGIC;
    atomic_init(&t->refs, 1);
    atomic_init(&t->handles, 1);
    t->layout = layout;
    t->kind = SMAP_K_NONE;
    t->align = 1;
    atomic_init(&t->flat, NULL);
    atomic_init(&t->typed, NULL);
    if (child) {
        smap_dtype_retain(child);
        t->child = child;
        t->align = child->align;
        t->flags |= child->flags & SMAP_DT_EXPLICIT;
    }
    return t;
}

/* Predefined types and MPI_Type_create_f90_*'s live to the end: no count. */
void smap_dtype_retain(smap_dtype_t *t)
{
    if (!(t->flags & (SMAP_DT_PREDEF | SMAP_DT_F90)))
        atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

void smap_dtype_release(smap_dtype_t *t)
{
    if (!t || (t->flags & (SMAP_DT_PREDEF | SMAP_DT_F90)))
        return;
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1)
        return;
    /* t->attrs is NULL here: MPI_Type_free deleted the attributes when the
     * handle went, and only the handle's holder can set them. */
    if (t->types)
        for (MPI_Count i = 0; i < t->count; i++)
            smap_dtype_release(t->types[i]);
    smap_dtype_release(t->child);
    for (int i = 0; i < t->nt; i++)
        smap_dtype_release(smap_dtype_stored(t->ctypes[i]));
    smap_dtype_flat_free(atomic_load(&t->flat));
    smap_dtype_flat_free(atomic_load(&t->typed));
    free(t->bls);
    free(t->disps);
    free(t->types);
    free(t->ints);
    free(t->addrs);
    free(t->counts);
    free(t->ctypes);
    t->magic = 0;
    smap_free_later(t);   /* a stale handle reads the cleared magic for a while */
}

void smap_dtype_give(smap_dtype_t *t)
{
    if (t->flags & (SMAP_DT_PREDEF | SMAP_DT_F90))
        return;
    smap_dtype_retain(t);
    if (atomic_fetch_add_explicit(&t->handles, 1, memory_order_relaxed) == 0)
        t->magic = SMAP_DTYPE_MAGIC;
}

void smap_dtype_drop(smap_dtype_t *t)
{
    if (atomic_fetch_sub_explicit(&t->handles, 1, memory_order_relaxed) == 1)
        t->magic = SMAP_DTYPE_HIDDEN;
    smap_dtype_release(t);
}

/* ---- bounds ---- */

struct bounds {
    int any, tany;
    MPI_Count lb, ub, tlb, tub;
};

static MPI_Count min_c(MPI_Count a, MPI_Count b) { return a < b ? a : b; }
static MPI_Count max_c(MPI_Count a, MPI_Count b) { return a > b ? a : b; }

/* n copies of c, the k-th at disp + k*step.  Each copy has its lower bound
 * at its displacement + c->lb and its upper bound at + c->lb + c->extent
 * (MPI 5.0 §5.1: lb is the least of the copies' lower bounds, ub the
 * largest of their upper bounds), even when c's extent is negative: then
 * ub < lb within one copy, and the result's extent may be small or
 * negative too (the peers agree: contiguous(3) of an extent -8 type has
 * lb -16, extent 8). */
static void add_piece(struct bounds *b, MPI_Count disp, MPI_Count n, MPI_Count step,
                      const smap_dtype_t *c)
{
    if (n <= 0)
        return;
    MPI_Count last = disp + (n - 1) * step;
    MPI_Count lo = min_c(disp, last), hi = max_c(disp, last);
    MPI_Count clb = c->lb, cub = c->lb + c->extent;
    if (!b->any || lo + clb < b->lb)
        b->lb = lo + clb;
    if (!b->any || hi + cub > b->ub)
        b->ub = hi + cub;
    b->any = 1;
    if (c->size > 0) {
        MPI_Count tlo = lo + c->true_lb, thi = hi + c->true_lb + c->true_extent;
        if (!b->tany || tlo < b->tlb)
            b->tlb = tlo;
        if (!b->tany || thi > b->tub)
            b->tub = thi;
        b->tany = 1;
    }
}

static void finish(smap_dtype_t *t, const struct bounds *b, int is_struct)
{
    t->lb = b->any ? b->lb : 0;
    t->extent = b->any ? b->ub - b->lb : 0;
    t->true_lb = b->tany ? b->tlb : 0;
    t->true_extent = b->tany ? b->tub - b->tlb : 0;
    /* struct: the extent is padded to the largest alignment inside (the
     * "epsilon" of MPI 5.0 5.1.6), unless bounds were set explicitly */
    if (is_struct && !(t->flags & SMAP_DT_EXPLICIT) && t->align > 1 && t->extent % t->align)
        t->extent += t->align - t->extent % t->align;
}

static int mul_ok(MPI_Count a, MPI_Count b, MPI_Count *r)
{
    return !smap_mul_overflow_i64(a, b, r);
}

/* ---- constructors ---- */

int smap_dtype_contiguous(MPI_Count count, smap_dtype_t *old, smap_dtype_t **out)
{
    MPI_Count size;
    if (!mul_ok(count, old->size, &size))
        return MPI_ERR_COUNT;
    smap_dtype_t *t = new_type(SMAP_L_CONTIG, old);
    if (!t)
        return MPI_ERR_NO_MEM;
    t->count = count;
    t->size = size;
    struct bounds b = {0};
    add_piece(&b, 0, count, old->extent, old);
    finish(t, &b, 0);
    *out = t;
    return MPI_SUCCESS;
}

int smap_dtype_hvector(MPI_Count count, MPI_Count bl, MPI_Aint stride, smap_dtype_t *old,
                       smap_dtype_t **out)
{
    MPI_Count n, size;
    if (!mul_ok(count, bl, &n) || !mul_ok(n, old->size, &size))
        return MPI_ERR_COUNT;
    smap_dtype_t *t = new_type(SMAP_L_HVECTOR, old);
    if (!t)
        return MPI_ERR_NO_MEM;
    t->count = count;
    t->bl = bl;
    t->stride = stride;
    t->size = size;
    struct bounds b = {0};
    if (bl > 0 && count > 0) {
        /* first and last block bound every block (they are affine in k) */
        add_piece(&b, 0, bl, old->extent, old);
        add_piece(&b, (count - 1) * stride, bl, old->extent, old);
    }
    finish(t, &b, 0);
    *out = t;
    return MPI_SUCCESS;
}

int smap_dtype_blocks(MPI_Count count, const MPI_Count *bls, MPI_Count bl_all,
                      const MPI_Aint *disps, smap_dtype_t *const *types, smap_dtype_t *old,
                      int is_struct, smap_dtype_t **out)
{
    smap_dtype_t *t = new_type(SMAP_L_BLOCKS, types ? NULL : old);
    if (!t)
        return MPI_ERR_NO_MEM;
    t->count = count;
    size_t n = count > 0 ? (size_t)count : 1;
    t->bls = malloc(n * sizeof *t->bls);
    t->disps = malloc(n * sizeof *t->disps);
    if (types)
        t->types = calloc(n, sizeof *t->types);
    if (!t->bls || !t->disps || (types && !t->types)) {
        t->count = 0;
        smap_dtype_release(t);
        return MPI_ERR_NO_MEM;
    }
    struct bounds b = {0};
    MPI_Count size = 0;
    for (MPI_Count i = 0; i < count; i++) {
        smap_dtype_t *c = types ? types[i] : old;
        MPI_Count bl = bls ? bls[i] : bl_all, s;
        t->bls[i] = bl;
        t->disps[i] = disps[i];
        if (types) {
            smap_dtype_retain(c);
            t->types[i] = c;
            if (c->align > t->align)
                t->align = c->align;
            t->flags |= c->flags & SMAP_DT_EXPLICIT;
        }
        if (!mul_ok(bl, c->size, &s) || smap_add_overflow_i64(size, s, &size)) {
            smap_dtype_release(t);
            return MPI_ERR_COUNT;
        }
        add_piece(&b, disps[i], bl, c->extent, c);
    }
    t->size = size;
    finish(t, &b, is_struct);
    *out = t;
    return MPI_SUCCESS;
}

int smap_dtype_resized(smap_dtype_t *old, MPI_Aint lb, MPI_Aint extent, smap_dtype_t **out)
{
    smap_dtype_t *t = new_type(SMAP_L_RESIZED, old);
    if (!t)
        return MPI_ERR_NO_MEM;
    t->flags |= SMAP_DT_EXPLICIT;
    t->size = old->size;
    t->lb = lb;
    t->extent = extent;
    t->true_lb = old->true_lb;
    t->true_extent = old->true_extent;
    *out = t;
    return MPI_SUCCESS;
}

/* A type equal to `impl` in everything (dup, and the types built from
 * simpler ones: subarray, darray). */
static int alias(smap_dtype_t *impl, smap_dtype_t **out)
{
    smap_dtype_t *t = new_type(SMAP_L_ALIAS, impl);
    if (!t)
        return MPI_ERR_NO_MEM;
    t->flags |= impl->flags & (SMAP_DT_EXPLICIT | SMAP_DT_CONTIG);
    t->size = impl->size;
    t->lb = impl->lb;
    t->extent = impl->extent;
    t->true_lb = impl->true_lb;
    t->true_extent = impl->true_extent;
    *out = t;
    return MPI_SUCCESS;
}

/* The duplicate starts with no attributes (new_type zeroes t->attrs):
 * MPI_Type_dup (mpi/type_api.c) copies them through the keyvals' copy
 * callbacks afterwards, which src/dtype/ may not call. */
int smap_dtype_dup(smap_dtype_t *old, smap_dtype_t **out)
{
    int rc = alias(old, out);
    if (rc == MPI_SUCCESS && smap_dtype_committed(old))
        rc = smap_dtype_commit(*out);   /* a duplicate of a committed type is committed */
    return rc;
}

/* ---- subarray and darray: built from hvector, hindexed and resized ---- */

/* Replaces cur by a new type built from it by `call` into `next` (the new
 * one holds its own reference to cur); on failure cur becomes NULL. */
#define STEP(call)                                                                         \
    do {                                                                                   \
        rc = (call);                                                                       \
        smap_dtype_release(cur);                                                           \
        cur = rc == MPI_SUCCESS ? next : NULL;                                             \
    } while (0)

/* The dimension visited at position k, fastest varying first. */
static int dim_at(int ndims, int order, int k)
{
    return order == MPI_ORDER_C ? ndims - 1 - k : k;
}

int smap_dtype_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                        const MPI_Count *starts, int order, smap_dtype_t *old,
                        smap_dtype_t **out)
{
    smap_dtype_t *cur = old, *next = NULL;
    smap_dtype_retain(cur);
    MPI_Count stride = old->extent, disp = 0;
    int rc = MPI_SUCCESS;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        int d = dim_at(ndims, order, k);
        STEP(smap_dtype_hvector(subsizes[d], 1, stride, cur, &next));
        disp += starts[d] * stride;
        stride *= sizes[d];
    }
    if (rc == MPI_SUCCESS) {
        MPI_Count one = 1;
        MPI_Aint dsp = disp;
        STEP(smap_dtype_blocks(1, &one, 1, &dsp, NULL, cur, 0, &next));
    }
    if (rc == MPI_SUCCESS)
        STEP(smap_dtype_resized(cur, old->lb, stride, &next));
    if (rc == MPI_SUCCESS)
        STEP(alias(cur, &next));
    if (rc == MPI_SUCCESS)
        *out = cur;
    return rc;
}

/* This process's runs of indices (start, length) along one dimension. */
static int darray_runs(MPI_Count g, int distrib, int darg, int p, int coord, MPI_Count **st,
                       MPI_Count **len, MPI_Count *nruns)
{
    MPI_Count b, n = 0;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        b = g;
        coord = 0;
        p = 1;
    } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
    } else {
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    }
    MPI_Count cycle = b * p, maxr = (distrib == MPI_DISTRIBUTE_CYCLIC) ? g / cycle + 1 : 1;
    *st = malloc((size_t)maxr * sizeof **st);
    *len = malloc((size_t)maxr * sizeof **len);
    if (!*st || !*len)
        return MPI_ERR_NO_MEM;
    for (MPI_Count s = (MPI_Count)coord * b; s < g && n < maxr; s += cycle) {
        (*st)[n] = s;
        (*len)[n] = min_c(b, g - s);
        n++;
    }
    *nruns = n;
    return MPI_SUCCESS;
}

int smap_dtype_darray(int size, int rank, int ndims, const MPI_Count *gsizes,
                      const int *distribs, const int *dargs, const int *psizes, int order,
                      smap_dtype_t *old, smap_dtype_t **out)
{
    (void)size;
    /* process coordinates: the grid is always row-major */
    int coords[ndims > 0 ? ndims : 1];
    for (int d = ndims - 1, r = rank; d >= 0; d--) {
        coords[d] = r % psizes[d];
        r /= psizes[d];
    }
    smap_dtype_t *cur = old, *next = NULL;
    smap_dtype_retain(cur);
    MPI_Count stride = old->extent;
    int rc = MPI_SUCCESS;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        int d = dim_at(ndims, order, k);
        MPI_Count *st = NULL, *len = NULL, n = 0;
        rc = darray_runs(gsizes[d], distribs[d], dargs[d], psizes[d], coords[d], &st, &len, &n);
        if (rc == MPI_SUCCESS) {
            /* copies of cur one `stride` apart: resize it to that extent */
            STEP(smap_dtype_resized(cur, 0, stride, &next));
        }
        if (rc == MPI_SUCCESS) {
            MPI_Aint *disp = malloc((size_t)(n > 0 ? n : 1) * sizeof *disp);
            if (!disp) {
                rc = MPI_ERR_NO_MEM;
            } else {
                for (MPI_Count i = 0; i < n; i++)
                    disp[i] = st[i] * stride;
                STEP(smap_dtype_blocks(n, len, 0, disp, NULL, cur, 0, &next));
                free(disp);
            }
        }
        free(st);
        free(len);
        stride *= gsizes[d];
    }
    if (rc == MPI_SUCCESS)
        STEP(smap_dtype_resized(cur, old->lb, stride, &next));
    if (rc == MPI_SUCCESS)
        STEP(alias(cur, &next));
    if (rc == MPI_SUCCESS)
        *out = cur;
    else
        smap_dtype_release(cur);
    return rc;
}

/* ---- contents ---- */

static void *dup_array(const void *src, size_t n, size_t elem, int *ok)
{
    if (n == 0)
        return NULL;
    void *p = malloc(n * elem);
    if (!p)
        *ok = 0;
    else
        memcpy(p, src, n * elem);
    return p;
}

int smap_dtype_set_contents(smap_dtype_t *t, int combiner, int large, int ni, const int *ints,
                            int na, const MPI_Aint *addrs, int nc, const MPI_Count *counts,
                            int nt, const MPI_Datatype *types)
{
    int ok = 1;
    t->combiner = combiner;
    if (large)
        t->flags |= SMAP_DT_LARGE;
    t->ints = dup_array(ints, (size_t)ni, sizeof *ints, &ok);
    t->addrs = dup_array(addrs, (size_t)na, sizeof *addrs, &ok);
    t->counts = dup_array(counts, (size_t)nc, sizeof *counts, &ok);
    t->ctypes = dup_array(types, (size_t)nt, sizeof *types, &ok);
    if (!ok)
        return MPI_ERR_NO_MEM;
    t->ni = ni;
    t->na = na;
    t->nc = nc;
    t->nt = nt;
    for (int i = 0; i < nt; i++)
        smap_dtype_retain(smap_dtype_stored(types[i]));
    return MPI_SUCCESS;
}
