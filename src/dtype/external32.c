/* external32 (MPI 5.0 section 14.5.2): big-endian, IEEE formats, the
 * standard's sizes (long and unsigned long 4 bytes, wchar_t 2, long double
 * 16 = IEEE binary128).  Walks the typed compiled form, element by element:
 * this is for MPI_Pack_external, not for the fast paths. */
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "dtype/engine.h"
#include "dtype/internal.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG 1
#else
#define HOST_BIG 0
#endif

/* Copies `n` bytes reversing them on a little-endian host. */
static void to_big(unsigned char *d, const unsigned char *s, int n)
{
    if (HOST_BIG)
        memcpy(d, s, (size_t)n);
    else
        for (int i = 0; i < n; i++)
            d[i] = s[n - 1 - i];
}

static int conv_long_double(unsigned char *d, const unsigned char *s, int pack)
{
#if defined(__SIZEOF_FLOAT128__) && !defined(__clang__)
    if (pack) {
        long double v;
        memcpy(&v, s, sizeof v);
        __float128 q = (__float128)v;
        to_big(d, (const unsigned char *)&q, 16);
    } else {
        __float128 q;
        to_big((unsigned char *)&q, s, 16);
        long double v = (long double)q;
        memcpy(d, &v, sizeof v);
    }
    return MPI_SUCCESS;
#else
    if (sizeof(long double) == 16 && __LDBL_MANT_DIG__ == 113) {
        to_big(d, s, 16);
        return MPI_SUCCESS;
    }
    (void)d;
    (void)s;
    (void)pack;
    return MPI_ERR_CONVERSION;
#endif
}

/* One unit of kind k: native s -> external d (pack) or back. */
static int conv(int k, unsigned char *d, const unsigned char *s, int pack)
{
    switch (k) {
    case SMAP_K_BYTE: *d = *s; return MPI_SUCCESS;
    case SMAP_K_SWAP2: to_big(d, s, 2); return MPI_SUCCESS;
    case SMAP_K_SWAP4: to_big(d, s, 4); return MPI_SUCCESS;
    case SMAP_K_SWAP8: to_big(d, s, 8); return MPI_SUCCESS;
    case SMAP_K_SWAP16: to_big(d, s, 16); return MPI_SUCCESS;
    case SMAP_K_LONG:
    case SMAP_K_ULONG:
    case SMAP_K_WCHAR: {
        int nat = smap_dtype_kind_native(k), ext = smap_dtype_kind_ext(k);
        if (pack) {
            int64_t v = 0;
            if (k == SMAP_K_LONG) { long x; memcpy(&x, s, sizeof x); v = x; }
            else if (k == SMAP_K_ULONG) { unsigned long x; memcpy(&x, s, sizeof x); v = (int64_t)x; }
            else { wchar_t x; memcpy(&x, s, sizeof x); v = x; }
            int32_t lo32 = (int32_t)v;
            int16_t lo16 = (int16_t)v;
            if (ext == 4)
                to_big(d, (const unsigned char *)&lo32, 4);
            else
                to_big(d, (const unsigned char *)&lo16, 2);
            if ((k == SMAP_K_LONG && v != lo32) || (k == SMAP_K_ULONG && (uint64_t)v > UINT32_MAX) ||
                (k == SMAP_K_WCHAR && (v < 0 || v > 0xffff)))
                return MPI_ERR_CONVERSION;   /* does not fit the external size */
        } else {
            unsigned char buf[8];
            to_big(buf, s, ext);
            if (k == SMAP_K_LONG) { int32_t x; memcpy(&x, buf, 4); long y = x; memcpy(d, &y, (size_t)nat); }
            else if (k == SMAP_K_ULONG) { uint32_t x; memcpy(&x, buf, 4); unsigned long y = x; memcpy(d, &y, (size_t)nat); }
            else { uint16_t x; memcpy(&x, buf, 2); wchar_t y = (wchar_t)x; memcpy(d, &y, (size_t)nat); }
        }
        return MPI_SUCCESS;
    }
    case SMAP_K_LDOUBLE: return conv_long_double(d, s, pack);
    default: return MPI_ERR_INTERN;
    }
}

MPI_Count smap_dtype_external_size(smap_dtype_t *t)
{
    const struct smap_dtype_flat *f = smap_dtype_typed(t);
    return f ? f->xsize : -1;
}

static int walk_ext(unsigned char *buf, MPI_Count count, smap_dtype_t *t, unsigned char *packed,
                    int pack)
{
    const struct smap_dtype_flat *f = smap_dtype_typed(t);
    if (!f)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (MPI_Count e = 0; e < count; e++) {
        unsigned char *elem = buf + e * t->extent;
        for (MPI_Count i = 0; i < f->nblk; i++) {
            const struct smap_dtype_block *b = &f->blk[i];
            int nat = smap_dtype_kind_native(b->kind), ext = smap_dtype_kind_ext(b->kind);
            for (MPI_Count k = 0; k < b->n; k++) {
                unsigned char *p = elem + b->off + (MPI_Aint)k * b->stride;
                for (MPI_Aint u = 0; u < b->len; u += nat, packed += ext) {
                    int r = pack ? conv(b->kind, packed, p + u, 1) : conv(b->kind, p + u, packed, 0);
                    if (r != MPI_SUCCESS && rc == MPI_SUCCESS)
                        rc = r;
                }
            }
        }
    }
    return rc;
}

int smap_dtype_pack_external(const void *src, MPI_Count count, smap_dtype_t *t, void *dst)
{
    return walk_ext((unsigned char *)src, count, t, dst, 1);
}

int smap_dtype_unpack_external(const void *src, void *dst, MPI_Count count, smap_dtype_t *t)
{
    return walk_ext(dst, count, t, (unsigned char *)src, 0);
}
