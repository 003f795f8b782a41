/* Compiling a datatype: its type map flattened into runs of equal,
 * equally spaced contiguous blocks (struct smap_dtype_block), in type-map
 * order.  Adjacent blocks merge into one; blocks of one length at a
 * constant distance merge into one strided run, so a vector, a subarray
 * row set or a contiguous array costs one run whatever its count. */
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "dtype/internal.h"

struct list {
    struct smap_dtype_block *b;
    MPI_Count n, cap;
    int typed, oom;
};

static void push(struct list *l, MPI_Aint off, MPI_Aint len, MPI_Count n, MPI_Aint stride,
                 int kind, int esize)
{
    if (len <= 0 || n <= 0 || l->oom)
        return;
    if (n == 1) {
        stride = 0;
    } else if (stride == len) {
        len *= (MPI_Aint)n;
        n = 1;
        stride = 0;
    }
    if (l->n > 0) {
        struct smap_dtype_block *L = &l->b[l->n - 1];
        if (!l->typed || (L->kind == kind && L->esize == esize)) {
            if (L->n == 1 && n == 1 && L->off + L->len == off) {
                L->len += len;
                return;
            }
            if (L->n == 1 && n == 1 && L->len == len) {
                L->n = 2;
                L->stride = off - L->off;
                return;
            }
            if (L->n > 1 && L->len == len && off == L->off + (MPI_Aint)L->n * L->stride &&
                (n == 1 || stride == L->stride)) {
                L->n += n;
                return;
            }
        }
    }
    if (l->n == l->cap) {
        MPI_Count cap = l->cap ? 2 * l->cap : 8;
        struct smap_dtype_block *nb = realloc(l->b, (size_t)cap * sizeof *nb);
        if (!nb) {
            l->oom = 1;
            return;
        }
        l->b = nb;
        l->cap = cap;
    }
    l->b[l->n++] = (struct smap_dtype_block){.off = off, .len = len, .n = n, .stride = stride,
                                             .kind = l->typed ? kind : 0,
                                             .esize = l->typed ? esize : 0};
}

/* r copies of the compiled form f, the j-th at base + j*step. */
static void rep(struct list *l, const struct smap_dtype_flat *f, MPI_Aint base, MPI_Count r,
                MPI_Aint step)
{
    if (!f) {
        l->oom = 1;
        return;
    }
    if (r <= 0 || f->nblk == 0)
        return;
    if (f->nblk == 1 && f->blk[0].n == 1) {
        const struct smap_dtype_block *b = &f->blk[0];
        push(l, base + b->off, b->len, r, step, b->kind, b->esize);
        return;
    }
    for (MPI_Count j = 0; j < r && !l->oom; j++)
        for (MPI_Count i = 0; i < f->nblk; i++) {
            const struct smap_dtype_block *b = &f->blk[i];
            push(l, base + (MPI_Aint)j * step + b->off, b->len, b->n, b->stride, b->kind,
                 b->esize);
        }
}

static const struct smap_dtype_flat *form(smap_dtype_t *t, int typed)
{
    return typed ? smap_dtype_typed(t) : smap_dtype_flat(t);
}

struct smap_dtype_flat *smap_dtype_flatten(smap_dtype_t *t, int typed)
{
    struct list l = {.typed = typed};
    switch (t->layout) {
    case SMAP_L_CONTIG:
        rep(&l, form(t->child, typed), 0, t->count, t->child->extent);
        break;
    case SMAP_L_HVECTOR: {
        const struct smap_dtype_flat *f = form(t->child, typed);
        for (MPI_Count i = 0; i < t->count && !l.oom; i++)
            rep(&l, f, (MPI_Aint)i * t->stride, t->bl, t->child->extent);
        break;
    }
    case SMAP_L_BLOCKS:
        for (MPI_Count i = 0; i < t->count && !l.oom; i++) {
            smap_dtype_t *c = t->types ? t->types[i] : t->child;
            rep(&l, form(c, typed), t->disps[i], t->bls[i], c->extent);
        }
        break;
    case SMAP_L_RESIZED:
    case SMAP_L_ALIAS:
        rep(&l, form(t->child, typed), 0, 1, 0);
        break;
    default: /* predefined types have static forms */
        l.oom = 1;
        break;
    }
    struct smap_dtype_flat *f = calloc(1, sizeof *f);
    if (l.oom || !f) {
        free(l.b);
        free(f);
        return NULL;
    }
    f->blk = l.b;
    f->nblk = l.n;
    MPI_Count pre = 0;
    for (MPI_Count i = 0; i < l.n; i++) {
        struct smap_dtype_block *b = &l.b[i];
        b->pre = pre;
        pre += b->len * b->n;
        if (typed) {
            MPI_Count units = b->len / smap_dtype_kind_native(b->kind) * b->n;
            f->nelem += b->len / b->esize * b->n;
            f->xsize += units * smap_dtype_kind_ext(b->kind);
        }
    }
    f->size = pre;
    return f;
}

void smap_dtype_flat_free(struct smap_dtype_flat *f)
{
    if (!f)
        return;
    free(f->blk);
    free(f);
}

static const struct smap_dtype_flat *cached(smap_dtype_t *t, struct smap_dtype_flat *_Atomic *slot,
                                            int typed)
{
    struct smap_dtype_flat *f = atomic_load_explicit(slot, memory_order_acquire);
    if (f)
        return f;
    f = smap_dtype_flatten(t, typed);
    if (!f)
        return NULL;
    struct smap_dtype_flat *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(slot, &expected, f, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        smap_dtype_flat_free(f);
        return expected;
    }
    return f;
}

const struct smap_dtype_flat *smap_dtype_flat(smap_dtype_t *t)
{
    return cached(t, &t->flat, 0);
}

const struct smap_dtype_flat *smap_dtype_typed(smap_dtype_t *t)
{
    return cached(t, &t->typed, 1);
}

int smap_dtype_commit(smap_dtype_t *t)
{
    if (t->flags & SMAP_DT_COMMITTED)
        return MPI_SUCCESS;
    const struct smap_dtype_flat *f = smap_dtype_flat(t);
    if (!f)
        return MPI_ERR_NO_MEM;
    if (f->nblk == 0 || (f->nblk == 1 && f->blk[0].n == 1 && f->blk[0].len == t->extent))
        t->flags |= SMAP_DT_CONTIG;
    t->flags |= SMAP_DT_COMMITTED;
    return MPI_SUCCESS;
}
