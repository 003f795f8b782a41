/* Pack, unpack and type-to-type copy over the compiled type maps
 * (flatten.c).  A cursor is a position in the stream of `count` elements:
 * element, run, block in the run, byte in the block. */
#include <string.h>

#include "base/compiler.h"
#include "dtype/engine.h"
#include "dtype/internal.h"

struct cursor {
    char *base;
    const struct smap_dtype_flat *f;
    MPI_Aint extent;
    MPI_Count inst, bi, k;
    MPI_Aint in;
};

static void cur_seek(struct cursor *c, char *base, const struct smap_dtype_flat *f,
                     MPI_Aint extent, MPI_Count pos)
{
    c->base = base;
    c->f = f;
    c->extent = extent;
    c->inst = pos / f->size;
    MPI_Count rem = pos % f->size;
    MPI_Count lo = 0, hi = f->nblk - 1;   /* last run with pre <= rem */
    while (lo < hi) {
        MPI_Count mid = (lo + hi + 1) / 2;
        if (f->blk[mid].pre <= rem)
            lo = mid;
        else
            hi = mid - 1;
    }
    const struct smap_dtype_block *b = &f->blk[lo];
    MPI_Count within = rem - b->pre;
    c->bi = lo;
    c->k = within / b->len;
    c->in = (MPI_Aint)(within % b->len);
}

static inline char *cur_ptr(const struct cursor *c)
{
    const struct smap_dtype_block *b = &c->f->blk[c->bi];
    return c->base + c->inst * c->extent + b->off + (MPI_Aint)c->k * b->stride + c->in;
}

static inline MPI_Aint cur_avail(const struct cursor *c)
{
    return c->f->blk[c->bi].len - c->in;
}

static inline void cur_adv(struct cursor *c, MPI_Aint n)
{
    const struct smap_dtype_block *b = &c->f->blk[c->bi];
    c->in += n;
    if (c->in < b->len)
        return;
    c->in = 0;
    if (++c->k < b->n)
        return;
    c->k = 0;
    if (++c->bi < c->f->nblk)
        return;
    c->bi = 0;
    c->inst++;
}

static inline void copy_block(char *d, const char *s, MPI_Aint len)
{
    switch (len) {   /* small fixed sizes: one load and store */
    case 1: *d = *s; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    case 16: memcpy(d, s, 16); break;
    default: memcpy(d, s, (size_t)len); break;
    }
}

/* Moves `left` bytes between the layout under c and the dense buffer buf
 * (to buf when !unpack).  Whole blocks of a run go in a tight loop. */
static inline void walk(struct cursor *c, char *buf, MPI_Count left, int unpack)
{
    while (left > 0) {
        const struct smap_dtype_block *b = &c->f->blk[c->bi];
        if (c->in == 0 && b->len <= left) {
            MPI_Count nb = b->n - c->k, fit = left / b->len;
            if (nb > fit)
                nb = fit;
            char *p = cur_ptr(c);
            MPI_Aint len = b->len, stride = b->stride;
            if (unpack)
                for (MPI_Count j = 0; j < nb; j++, p += stride, buf += len)
                    copy_block(p, buf, len);
            else
                for (MPI_Count j = 0; j < nb; j++, p += stride, buf += len)
                    copy_block(buf, p, len);
            left -= nb * len;
            c->k += nb;
            if (c->k == b->n) {
                c->k = 0;
                if (++c->bi == c->f->nblk) {
                    c->bi = 0;
                    c->inst++;
                }
            }
            continue;
        }
        MPI_Aint seg = cur_avail(c);
        if (seg > left)
            seg = (MPI_Aint)left;
        if (unpack)
            memcpy(cur_ptr(c), buf, (size_t)seg);
        else
            memcpy(buf, cur_ptr(c), (size_t)seg);
        buf += seg;
        left -= seg;
        cur_adv(c, seg);
    }
}

MPI_Aint smap_dtype_data_offset(smap_dtype_t *t)
{
    const struct smap_dtype_flat *f = smap_dtype_flat(t);
    return f && f->nblk > 0 ? f->blk[0].off : 0;
}

/* Bytes of the range [offset, offset+max) that exist in a stream of total. */
static MPI_Count clip(MPI_Count total, MPI_Count offset, MPI_Count max)
{
    if (offset >= total || max <= 0)
        return 0;
    return total - offset < max ? total - offset : max;
}

MPI_Count smap_dtype_pack(const void *src, MPI_Count count, smap_dtype_t *t, void *dst,
                          MPI_Count offset, MPI_Count max)
{
    MPI_Count n = clip(count * t->size, offset, max);
    if (n == 0)
        return 0;
    const struct smap_dtype_flat *f = smap_dtype_flat(t);
    if (SMAP_UNLIKELY(!f))
        return 0;
    if (t->flags & SMAP_DT_CONTIG) {
        memcpy(dst, (const char *)src + f->blk[0].off + offset, (size_t)n);
        return n;
    }
    struct cursor c;
    cur_seek(&c, (char *)src, f, (MPI_Aint)t->extent, offset);
    walk(&c, dst, n, 0);
    return n;
}

MPI_Count smap_dtype_unpack(const void *src, MPI_Count len, void *dst, MPI_Count count,
                            smap_dtype_t *t, MPI_Count offset)
{
    MPI_Count n = clip(count * t->size, offset, len);
    if (n == 0)
        return 0;
    const struct smap_dtype_flat *f = smap_dtype_flat(t);
    if (SMAP_UNLIKELY(!f))
        return 0;
    if (t->flags & SMAP_DT_CONTIG) {
        memcpy((char *)dst + f->blk[0].off + offset, src, (size_t)n);
        return n;
    }
    struct cursor c;
    cur_seek(&c, dst, f, (MPI_Aint)t->extent, offset);
    walk(&c, (char *)src, n, 1);
    return n;
}

MPI_Count smap_dtype_copy_range(void *dst, MPI_Count dcount, smap_dtype_t *dtype,
                                const void *src, MPI_Count scount, smap_dtype_t *stype,
                                MPI_Count offset, MPI_Count max)
{
    MPI_Count ssz = scount * stype->size, dsz = dcount * dtype->size;
    MPI_Count n = clip(ssz < dsz ? ssz : dsz, offset, max);
    if (n == 0)
        return 0;
    const struct smap_dtype_flat *sf = smap_dtype_flat(stype), *df = smap_dtype_flat(dtype);
    if (SMAP_UNLIKELY(!sf || !df))
        return 0;
    if (stype->flags & SMAP_DT_CONTIG)
        return smap_dtype_unpack((const char *)src + sf->blk[0].off + offset, n, dst, dcount,
                                 dtype, offset);
    if (dtype->flags & SMAP_DT_CONTIG)
        return smap_dtype_pack(src, scount, stype, (char *)dst + df->blk[0].off + offset,
                               offset, n);
    struct cursor s, d;
    cur_seek(&s, (char *)src, sf, (MPI_Aint)stype->extent, offset);
    cur_seek(&d, dst, df, (MPI_Aint)dtype->extent, offset);
    MPI_Count left = n;
    while (left > 0) {
        const struct smap_dtype_block *sb = &sf->blk[s.bi], *db = &df->blk[d.bi];
        if (s.in == 0 && d.in == 0 && sb->len == db->len && sb->len <= left) {
            /* both at the start of equal blocks: a tight loop over the
             * blocks the two runs have left in common */
            MPI_Count nb = sb->n - s.k, fit = left / sb->len;
            if (db->n - d.k < nb)
                nb = db->n - d.k;
            if (fit < nb)
                nb = fit;
            char *sp = cur_ptr(&s), *dp = cur_ptr(&d);
            MPI_Aint len = sb->len;
            for (MPI_Count j = 0; j < nb; j++, sp += sb->stride, dp += db->stride)
                copy_block(dp, sp, len);
            left -= nb * len;
            s.k += nb - 1;   /* cur_adv finishes the last block and moves on */
            d.k += nb - 1;
            cur_adv(&s, len);
            cur_adv(&d, len);
            continue;
        }
        MPI_Aint seg = cur_avail(&s), da = cur_avail(&d);
        if (da < seg)
            seg = da;
        if (seg > left)
            seg = (MPI_Aint)left;
        copy_block(cur_ptr(&d), cur_ptr(&s), seg);
        cur_adv(&s, seg);
        cur_adv(&d, seg);
        left -= seg;
    }
    return n;
}

MPI_Count smap_dtype_copy(void *dst, MPI_Count dcount, smap_dtype_t *dtype, const void *src,
                          MPI_Count scount, smap_dtype_t *stype)
{
    MPI_Count ssz = scount * stype->size, dsz = dcount * dtype->size;
    return smap_dtype_copy_range(dst, dcount, dtype, src, scount, stype, 0,
                                 ssz < dsz ? ssz : dsz);
}

MPI_Count smap_dtype_elements(smap_dtype_t *t, MPI_Count bytes)
{
    const struct smap_dtype_flat *f = smap_dtype_typed(t);
    if (!f)
        return -1 - MPI_ERR_NO_MEM;
    if (bytes <= 0 || t->size == 0)
        return 0;
    MPI_Count whole = bytes / t->size, rem = bytes % t->size, n = whole * f->nelem;
    for (MPI_Count i = 0; i < f->nblk && rem > 0; i++) {
        const struct smap_dtype_block *b = &f->blk[i];
        MPI_Count unit = b->esize, run = b->len * b->n;
        MPI_Count take = rem < run ? rem : run;
        if (take % unit)
            return MPI_UNDEFINED;
        n += take / unit;
        rem -= take;
    }
    return n;
}
