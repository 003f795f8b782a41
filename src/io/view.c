/* File views (MPI 5.0 §14.3): the displacement, the etype and the
 * filetype, flattened once by src/dtype (the compiled map is cached in
 * the type) and walked here to turn a position of the view's data stream
 * into a file offset.
 *
 * Stream byte s of the view lies in tile s / fsize (tile k starts at
 * disp + k * extent of the filetype), at the (s % fsize)-th data byte of
 * the filetype's map: a binary search over the map's runs (each run is n
 * blocks of len bytes, `pre` data bytes before it) finds it. */
#include <string.h>

#include "dtype/engine.h"
#include "io/io.h"

/* Takes over one reference to each shadow (fet, fft). */
static void set_types(struct smap_io_view *v, MPI_Offset disp, smap_dtype_t *et,
                      smap_dtype_t *ft, smap_dtype_t *fet, smap_dtype_t *fft,
                      const struct smap_dtype_flat *fl)
{
    smap_dtype_retain(et);
    smap_dtype_retain(ft);
    v->disp = disp;
    v->etype = et;
    v->ftype = ft;
    v->fet = fet;
    v->fft = fft;
    v->esize = smap_dtype_size(fet);
    v->fsize = smap_dtype_size(fft);
    v->fext = smap_dtype_extent(fft);
    v->flat = fl;
    const struct smap_dtype_block *b = fl->blk;
    v->contig = fl->nblk == 1 && b[0].n == 1 && b[0].len == v->fsize && v->fext == v->fsize;
    v->cbase = v->contig ? disp + b[0].off : 0;
}

void smap_io_view_default(struct smap_io_view *v)
{
    smap_dtype_t *b = smap_dtype_get(MPI_BYTE);
    set_types(v, 0, b, b, b, b, smap_dtype_flat(b));
    v->rep = NULL;
    strcpy(v->datarep, "native");
}

void smap_io_view_release(struct smap_io_view *v)
{
    if (v->etype)
        smap_dtype_release(v->etype);
    if (v->ftype)
        smap_dtype_release(v->ftype);
    smap_dtype_release(v->fet);
    smap_dtype_release(v->fft);
    v->etype = v->ftype = v->fet = v->fft = NULL;
}

/* MPI 5.0 §14.3: a filetype's displacements are non-negative and
 * monotonically non-decreasing, so that the view's stream runs forward
 * through the file. */
static int check_filetype(const struct smap_dtype_flat *fl, MPI_Count ext)
{
    MPI_Aint last = 0;
    for (MPI_Count i = 0; i < fl->nblk; i++) {
        const struct smap_dtype_block *b = &fl->blk[i];
        MPI_Aint lo = b->off, hi = b->off + (b->n - 1) * b->stride;
        if (b->n > 1 && b->stride < b->len)
            lo = -1;
        if (lo < last || hi < lo)
            return smap_failf(MPI_ERR_TYPE, "the filetype's displacements must be "
                                              "non-negative and non-decreasing, without "
                                              "overlapping blocks");
        last = hi + b->len;
    }
    if (ext <= 0)
        return smap_failf(MPI_ERR_TYPE, "the filetype's extent must be positive");
    return MPI_SUCCESS;
}

int smap_io_set_view(struct MPI_ABI_File *f, MPI_Offset disp, smap_dtype_t *et,
                     smap_dtype_t *ft, const char *datarep, const struct MPI_ABI_Info *info)
{
    int mine = 0;
    const struct smap_dtype_flat *fl = NULL;
    struct smap_io_datarep *rep = NULL;
    smap_dtype_t *fet = NULL, *fft = NULL;   /* the file shadows (datarep.c) */
    if (f->split)
        mine = smap_failf(MPI_ERR_OTHER, "a split collective is in progress on the file");
    else if (strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        mine = smap_failf(MPI_ERR_UNSUPPORTED_DATAREP, "datarep is longer than "
                            "MPI_MAX_DATAREP_STRING - 1 characters");
    else if ((mine = smap_io_datarep_find(datarep, &rep)))
        ;
    else if (disp == MPI_DISPLACEMENT_CURRENT && !(f->amode & MPI_MODE_SEQUENTIAL))
        mine = smap_failf(MPI_ERR_ARG, "MPI_DISPLACEMENT_CURRENT needs a file opened with "
                                         "MPI_MODE_SEQUENTIAL");
    else if (disp < 0 && disp != MPI_DISPLACEMENT_CURRENT)
        mine = smap_failf(MPI_ERR_ARG, "disp %lld is negative", (long long)disp);
    else if ((mine = smap_io_datarep_shadow(rep, et, &fet)) ||
             (mine = smap_io_datarep_shadow(rep, ft, &fft)))
        ;
    else if (smap_dtype_size(fet) <= 0)
        mine = smap_failf(MPI_ERR_TYPE, "the etype has size 0");
    else if (smap_dtype_size(fft) <= 0 || smap_dtype_size(fft) % smap_dtype_size(fet))
        mine = smap_failf(MPI_ERR_TYPE, "the filetype's size (%lld) is not a positive "
                            "multiple of the etype's (%lld)", (long long)smap_dtype_size(fft),
                            (long long)smap_dtype_size(fet));
    else if (!(fl = smap_dtype_flat(fft)))
        mine = smap_failf(MPI_ERR_NO_MEM, "out of memory flattening the filetype");
    else
        mine = check_filetype(fl, smap_dtype_extent(fft));
    /* MPI_DISPLACEMENT_CURRENT: the shared pointer's place in bytes,
     * through the old view, read before the agreement (after it, rank 0
     * may already reset the counter for the new view) */
    MPI_Offset sp = disp == MPI_DISPLACEMENT_CURRENT ? smap_io_shared_peek(f) : 0;
    int rc = smap_io_agree(f, mine);
    if (rc) {
        smap_dtype_release(fet);
        smap_dtype_release(fft);
        return rc;
    }
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        MPI_Offset av;
        disp = smap_io_view_map(&f->v, sp * f->v.esize, 1, &av);
    }
    struct smap_io_view old = f->v;
    set_types(&f->v, disp, et, ft, fet, fft, fl);
    smap_io_view_release(&old);
    f->v.rep = rep;
    strcpy(f->v.datarep, datarep);
    f->fp = 0;
    /* whether some rank's independent writes may sieve: then every
     * rank's plain writes lock (access.c); a failed MAX assumes so */
    long long h = !f->v.contig, any = 1;
    if (smap_io_max(f->c, &h, &any, 1))
        any = 1;
    f->holes = any != 0;
    smap_io_hints_apply(f, info);   /* collective: also without info */
    return smap_io_shared_reset(f, 0);
}

int smap_io_type_extent(const struct MPI_ABI_File *f, smap_dtype_t *t, MPI_Count *extent)
{
    smap_dtype_t *s;
    int rc = smap_io_datarep_shadow(f->v.rep, t, &s);
    if (rc)
        return rc;
    *extent = smap_dtype_extent(s);
    smap_dtype_release(s);
    return MPI_SUCCESS;
}

/* The data byte w (< fsize) of the filetype's map: its offset from the
 * tile's start and the bytes left in its block. */
static MPI_Offset map_in_tile(const struct smap_dtype_flat *fl, MPI_Count w, MPI_Offset *left)
{
    MPI_Count lo = 0, hi = fl->nblk - 1;
    while (lo < hi) {   /* the last run with pre <= w */
        MPI_Count mid = (lo + hi + 1) / 2;
        if (fl->blk[mid].pre <= w)
            lo = mid;
        else
            hi = mid - 1;
    }
    const struct smap_dtype_block *b = &fl->blk[lo];
    MPI_Count in = w - b->pre, j = in / b->len, r = in % b->len;
    *left = b->len - r;
    return b->off + j * b->stride + r;
}

static MPI_Offset map1(const struct smap_io_view *v, MPI_Offset s, MPI_Offset *avail)
{
    MPI_Offset tile = s / v->fsize;
    return v->disp + tile * v->fext + map_in_tile(v->flat, s % v->fsize, avail);
}

MPI_Offset smap_io_view_map(const struct smap_io_view *v, MPI_Offset s, MPI_Offset max,
                            MPI_Offset *avail)
{
    if (v->contig) {
        *avail = max;
        return v->cbase + s;
    }
    MPI_Offset n, off = map1(v, s, &n);
    /* pieces that continue each other in the file are one piece */
    while (n < max) {
        MPI_Offset m, next = map1(v, s + n, &m);
        if (next != off + n)
            break;
        n += m;
    }
    *avail = n < max ? n : max;
    return off;
}

/* Data bytes of one tile's map lying below offset rem of the tile. */
static MPI_Offset tile_bytes_below(const struct smap_dtype_flat *fl, MPI_Offset rem)
{
    MPI_Offset got = 0;
    for (MPI_Count i = 0; i < fl->nblk; i++) {
        const struct smap_dtype_block *b = &fl->blk[i];
        if (rem <= b->off)
            break;
        MPI_Count full;
        if (b->n == 1 || b->stride <= 0)
            full = rem - b->off >= b->len ? b->n : 0;
        else
            full = rem - b->off - b->len >= 0 ? (rem - b->off - b->len) / b->stride + 1 : 0;
        if (full > b->n)
            full = b->n;
        got += full * b->len;
        if (full < b->n) {
            MPI_Offset part = rem - (b->off + full * b->stride);
            if (part > 0)
                got += part < b->len ? part : b->len;
            break;
        }
    }
    return got;
}

MPI_Offset smap_io_view_bytes_below(const struct smap_io_view *v, MPI_Offset size)
{
    if (v->contig)
        return size > v->cbase ? size - v->cbase : 0;
    MPI_Offset base = size - v->disp;
    if (base <= 0)
        return 0;
    MPI_Offset k = base / v->fext, rem = base % v->fext;
    return k * v->fsize + tile_bytes_below(v->flat, rem);
}

int smap_io_seek(struct MPI_ABI_File *f, MPI_Offset off, int whence)
{
    MPI_Offset base = 0;
    if (whence == MPI_SEEK_CUR) {
        base = f->fp;
    } else if (whence == MPI_SEEK_END) {
        MPI_Offset size;
        int rc = smap_io_get_size(f, &size);
        if (rc)
            return rc;
        MPI_Offset b = smap_io_view_bytes_below(&f->v, size);
        base = (b + f->v.esize - 1) / f->v.esize;
    }
    MPI_Offset to;
    if (__builtin_add_overflow(base, off, &to) || to < 0)
        return smap_failf(MPI_ERR_ARG, "the new position (%lld %+lld etypes) would be "
                            "negative", (long long)base, (long long)off);
    f->fp = to;
    return MPI_SUCCESS;
}
