/* The predefined datatypes of the standard ABI, sized from the C types
 * (Fortran types from the usual gfortran kinds: INTEGER/REAL/LOGICAL 4
 * bytes, DOUBLE PRECISION 8, CHARACTER 1).  Filled when the library is
 * loaded, so handles work even before MPI_Init (as MPI allows for the
 * inquiry functions). */
#include <complex.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "base/compiler.h"
#include "dtype/dtype.h"
#include "dtype/internal.h"

smap_dtype_t smap_dtype_predef[SMAP_DTYPE_PREDEF_N];

/* Static compiled forms of the predefined types: one block (two for the
 * pairs whose parts are not adjacent). */
static struct smap_dtype_block predef_blk[SMAP_DTYPE_PREDEF_N][2];
static struct smap_dtype_flat predef_flat[SMAP_DTYPE_PREDEF_N];
static struct smap_dtype_block predef_tblk[SMAP_DTYPE_PREDEF_N][2];
static struct smap_dtype_flat predef_typed[SMAP_DTYPE_PREDEF_N];

static int kind_for(size_t unit)
{
    switch (unit) {
    case 1: return SMAP_K_BYTE;
    case 2: return SMAP_K_SWAP2;
    case 4: return SMAP_K_SWAP4;
    case 8: return SMAP_K_SWAP8;
    default: return SMAP_K_SWAP16;
    }
}

/* external32 size of one unit of kind k, native size of one unit. */
static const int kind_native[SMAP_K_COUNT_] = {
    [SMAP_K_BYTE] = 1, [SMAP_K_SWAP2] = 2, [SMAP_K_SWAP4] = 4, [SMAP_K_SWAP8] = 8,
    [SMAP_K_SWAP16] = 16, [SMAP_K_LONG] = sizeof(long), [SMAP_K_ULONG] = sizeof(unsigned long),
    [SMAP_K_WCHAR] = sizeof(wchar_t), [SMAP_K_LDOUBLE] = sizeof(long double)};
static const int kind_ext[SMAP_K_COUNT_] = {
    [SMAP_K_BYTE] = 1, [SMAP_K_SWAP2] = 2, [SMAP_K_SWAP4] = 4, [SMAP_K_SWAP8] = 8,
    [SMAP_K_SWAP16] = 16, [SMAP_K_LONG] = 4, [SMAP_K_ULONG] = 4, [SMAP_K_WCHAR] = 2,
    [SMAP_K_LDOUBLE] = 16};

int smap_dtype_kind_native(int k) { return kind_native[k]; }
int smap_dtype_kind_ext(int k) { return kind_ext[k]; }

static void set_flat(int i, const smap_dtype_t *t, int nblk, const MPI_Aint *off,
                     const MPI_Aint *len, const int *kinds)
{
    /* each part of a predefined type is one basic element */
    MPI_Count pre = 0, xsize = 0, nelem = 0;
    for (int b = 0; b < nblk; b++) {
        predef_blk[i][b] = (struct smap_dtype_block){.off = off[b], .len = len[b], .n = 1,
                                                     .pre = pre, .kind = 0};
        predef_tblk[i][b] = predef_blk[i][b];
        predef_tblk[i][b].kind = kinds[b];
        predef_tblk[i][b].esize = (int)len[b];
        pre += len[b];
        nelem += 1;
        xsize += len[b] / kind_native[kinds[b]] * kind_ext[kinds[b]];
    }
    /* adjacent parts form one block in the untyped form */
    int nb = nblk;
    if (nblk == 2 && off[0] + len[0] == off[1]) {
        predef_blk[i][0].len += len[1];
        nb = 1;
    }
    predef_flat[i] = (struct smap_dtype_flat){.nblk = nb, .blk = predef_blk[i], .size = t->size};
    predef_typed[i] = (struct smap_dtype_flat){.nblk = nblk, .blk = predef_tblk[i], .size = t->size,
                                               .xsize = xsize, .nelem = nelem};
}

static smap_dtype_t *slot(MPI_Datatype h)
{
    return &smap_dtype_predef[(uintptr_t)h - SMAP_DTYPE_PREDEF_BASE];
}

/* A basic type: size bytes, alignment, converted in units of `unit`
 * bytes (complex: the component), or with a special kind. */
static void basic(MPI_Datatype h, const char *name, size_t size, size_t align, int kind)
{
    smap_dtype_t *t = slot(h);
    int i = (int)(t - smap_dtype_predef);
    *t = (smap_dtype_t){.magic = SMAP_DTYPE_MAGIC, .flags = SMAP_DT_PREDEF | SMAP_DT_COMMITTED |
                                                            SMAP_DT_CONTIG,
                        .combiner = MPI_COMBINER_NAMED, .kind = kind, .align = (int)align,
                        .size = (MPI_Count)size, .lb = 0, .extent = (MPI_Count)size,
                        .true_lb = 0, .true_extent = (MPI_Count)size, .layout = SMAP_L_PREDEF};
    snprintf(t->name, sizeof t->name, "%s", name);
    MPI_Aint off = 0, len = (MPI_Aint)size;
    set_flat(i, t, 1, &off, &len, &kind);
    atomic_store(&t->flat, &predef_flat[i]);
    atomic_store(&t->typed, &predef_typed[i]);
}

#define BASIC(h, ctype, unit) basic(h, #h, sizeof(ctype), _Alignof(ctype), kind_for(unit))
#define BASICK(h, ctype, kind) basic(h, #h, sizeof(ctype), _Alignof(ctype), kind)
#define FORTRAN(h, size, unit) basic(h, #h, size, unit, kind_for(unit))

/* A value-index pair: struct { V value; I index; } with its padding. */
static void pair(MPI_Datatype h, const char *name, size_t vsize, int vkind, size_t ioff,
                 size_t isize, int ikind, size_t extent, size_t align)
{
    smap_dtype_t *t = slot(h);
    int i = (int)(t - smap_dtype_predef);
    *t = (smap_dtype_t){.magic = SMAP_DTYPE_MAGIC, .flags = SMAP_DT_PREDEF | SMAP_DT_COMMITTED |
                                                            SMAP_DT_PAIR,
                        .combiner = MPI_COMBINER_NAMED, .kind = SMAP_K_NONE, .align = (int)align,
                        .size = (MPI_Count)(vsize + isize), .lb = 0, .extent = (MPI_Count)extent,
                        .true_lb = 0, .true_extent = (MPI_Count)(ioff + isize),
                        .layout = SMAP_L_PREDEF};
    if (t->size == t->extent)
        t->flags |= SMAP_DT_CONTIG;
    snprintf(t->name, sizeof t->name, "%s", name);
    MPI_Aint off[2] = {0, (MPI_Aint)ioff}, len[2] = {(MPI_Aint)vsize, (MPI_Aint)isize};
    int kinds[2] = {vkind, ikind};
    set_flat(i, t, 2, off, len, kinds);
    atomic_store(&t->flat, &predef_flat[i]);
    atomic_store(&t->typed, &predef_typed[i]);
}

#define PAIR(h, V, vkind, I, ikind)                                                          \
    do {                                                                                     \
        struct p_ { V v; I i; };                                                             \
        pair(h, #h, sizeof(V), vkind, offsetof(struct p_, i), sizeof(I), ikind,              \
             sizeof(struct p_), _Alignof(struct p_));                                        \
    } while (0)

static void predef_init(void)
{
    BASIC(MPI_AINT, MPI_Aint, sizeof(MPI_Aint));
    BASIC(MPI_COUNT, MPI_Count, sizeof(MPI_Count));
    BASIC(MPI_OFFSET, MPI_Offset, sizeof(MPI_Offset));
    BASIC(MPI_PACKED, char, 1);
    BASIC(MPI_SHORT, short, sizeof(short));
    BASIC(MPI_INT, int, sizeof(int));
    BASICK(MPI_LONG, long, sizeof(long) == 4 ? SMAP_K_SWAP4 : SMAP_K_LONG);
    BASIC(MPI_LONG_LONG, long long, sizeof(long long));
    BASIC(MPI_UNSIGNED_SHORT, unsigned short, sizeof(short));
    BASIC(MPI_UNSIGNED, unsigned, sizeof(unsigned));
    BASICK(MPI_UNSIGNED_LONG, unsigned long, sizeof(long) == 4 ? SMAP_K_SWAP4 : SMAP_K_ULONG);
    BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long, sizeof(long long));
    BASIC(MPI_FLOAT, float, sizeof(float));
    BASIC(MPI_C_FLOAT_COMPLEX, float _Complex, sizeof(float));
    BASIC(MPI_DOUBLE, double, sizeof(double));
    BASIC(MPI_C_DOUBLE_COMPLEX, double _Complex, sizeof(double));
    BASICK(MPI_LONG_DOUBLE, long double, SMAP_K_LDOUBLE);
    BASICK(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, SMAP_K_LDOUBLE);
    BASIC(MPI_C_BOOL, bool, 1);
    BASICK(MPI_WCHAR, wchar_t, sizeof(wchar_t) == 2 ? SMAP_K_SWAP2 : SMAP_K_WCHAR);
    BASIC(MPI_INT8_T, int8_t, 1);
    BASIC(MPI_UINT8_T, uint8_t, 1);
    BASIC(MPI_CHAR, char, 1);
    BASIC(MPI_SIGNED_CHAR, signed char, 1);
    BASIC(MPI_UNSIGNED_CHAR, unsigned char, 1);
    BASIC(MPI_BYTE, unsigned char, 1);
    BASIC(MPI_INT16_T, int16_t, 2);
    BASIC(MPI_UINT16_T, uint16_t, 2);
    BASIC(MPI_INT32_T, int32_t, 4);
    BASIC(MPI_UINT32_T, uint32_t, 4);
    BASIC(MPI_INT64_T, int64_t, 8);
    BASIC(MPI_UINT64_T, uint64_t, 8);
    BASIC(MPI_CXX_FLOAT_COMPLEX, float _Complex, sizeof(float));
    BASIC(MPI_CXX_DOUBLE_COMPLEX, double _Complex, sizeof(double));
    BASICK(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex, SMAP_K_LDOUBLE);
    BASIC(MPI_CXX_BOOL, bool, 1);

    /* Fortran (gfortran's default kinds) */
    FORTRAN(MPI_LOGICAL, 4, 4);
    FORTRAN(MPI_INTEGER, 4, 4);
    FORTRAN(MPI_REAL, 4, 4);
    FORTRAN(MPI_COMPLEX, 8, 4);
    FORTRAN(MPI_DOUBLE_PRECISION, 8, 8);
    FORTRAN(MPI_DOUBLE_COMPLEX, 16, 8);
    FORTRAN(MPI_CHARACTER, 1, 1);
    FORTRAN(MPI_LOGICAL1, 1, 1);
    FORTRAN(MPI_LOGICAL2, 2, 2);
    FORTRAN(MPI_LOGICAL4, 4, 4);
    FORTRAN(MPI_LOGICAL8, 8, 8);
    FORTRAN(MPI_LOGICAL16, 16, 16);
    FORTRAN(MPI_INTEGER1, 1, 1);
    FORTRAN(MPI_INTEGER2, 2, 2);
    FORTRAN(MPI_INTEGER4, 4, 4);
    FORTRAN(MPI_INTEGER8, 8, 8);
    FORTRAN(MPI_INTEGER16, 16, 16);
    FORTRAN(MPI_REAL2, 2, 2);
    FORTRAN(MPI_REAL4, 4, 4);
    FORTRAN(MPI_REAL8, 8, 8);
    FORTRAN(MPI_REAL16, 16, 16);
    FORTRAN(MPI_COMPLEX4, 4, 2);
    FORTRAN(MPI_COMPLEX8, 8, 4);
    FORTRAN(MPI_COMPLEX16, 16, 8);
    FORTRAN(MPI_COMPLEX32, 32, 16);

    /* value-index pairs (C) */
    PAIR(MPI_FLOAT_INT, float, SMAP_K_SWAP4, int, SMAP_K_SWAP4);
    PAIR(MPI_DOUBLE_INT, double, SMAP_K_SWAP8, int, SMAP_K_SWAP4);
    PAIR(MPI_LONG_INT, long, sizeof(long) == 4 ? SMAP_K_SWAP4 : SMAP_K_LONG, int, SMAP_K_SWAP4);
    PAIR(MPI_2INT, int, SMAP_K_SWAP4, int, SMAP_K_SWAP4);
    PAIR(MPI_SHORT_INT, short, SMAP_K_SWAP2, int, SMAP_K_SWAP4);
    PAIR(MPI_LONG_DOUBLE_INT, long double, SMAP_K_LDOUBLE, int, SMAP_K_SWAP4);
    /* value-index pairs (Fortran): two of the same, no padding */
    pair(MPI_2REAL, "MPI_2REAL", 4, SMAP_K_SWAP4, 4, 4, SMAP_K_SWAP4, 8, 4);
    pair(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 8, SMAP_K_SWAP8, 8, 8, SMAP_K_SWAP8, 16, 8);
    pair(MPI_2INTEGER, "MPI_2INTEGER", 4, SMAP_K_SWAP4, 4, 4, SMAP_K_SWAP4, 8, 4);
}

MPI_Datatype smap_dtype_match_size(int typeclass, int size)
{
    static const MPI_Datatype ints[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8,
                                        MPI_INTEGER16};
    static const MPI_Datatype reals[] = {MPI_REAL2, MPI_REAL4, MPI_REAL8, MPI_REAL16};
    static const MPI_Datatype cplx[] = {MPI_COMPLEX4, MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32};
    const MPI_Datatype *list;
    size_t n;
    switch (typeclass) {
    case MPI_TYPECLASS_INTEGER: list = ints; n = SMAP_ARRAY_SIZE(ints); break;
    case MPI_TYPECLASS_REAL: list = reals; n = SMAP_ARRAY_SIZE(reals); break;
    case MPI_TYPECLASS_COMPLEX: list = cplx; n = SMAP_ARRAY_SIZE(cplx); break;
    default: return MPI_DATATYPE_NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (slot(list[i])->size == size)
            return list[i];
    return MPI_DATATYPE_NULL;
}

/* The table is filled at load time where the compiler has constructors,
 * and in any case by MPI_Init before any datatype can be used. */
static pthread_once_t predef_once = PTHREAD_ONCE_INIT;

void smap_dtype_init(void)
{
    pthread_once(&predef_once, predef_init);
}

SMAP_CONSTRUCTOR static void predef_init_at_load(void)
{
    smap_dtype_init();
}
