/* The typed loops of the predefined reduction ops and the table of which
 * op accepts which predefined datatype (MPI 5.0 §6.9.2), widened to what
 * Open MPI 4.1 and MPICH 4.0 both accept (DESIGN D14): MPI_CHAR, MPI_WCHAR
 * and MPI_CHARACTER reduce as the integers they are (OSU 7 reduces MPI_CHAR
 * by default), and the logical ops also take Fortran integers and
 * MPI_AINT/MPI_OFFSET/MPI_COUNT.  Still refused: logical or bitwise ops on
 * floating point, MIN/MAX on complex, anything on MPI_PACKED, arithmetic on
 * logicals, and MINLOC/MAXLOC off the value-index pairs.
 *
 * Loops are generated per C storage type ("kind"): the predefined datatypes
 * map onto kinds by size and signedness (MPI_LONG and MPI_INT64_T share one
 * loop), so every allowed pair is a plain counted loop the compiler can
 * vectorise.  Signed integer SUM/PROD are computed in the matching unsigned
 * type, at least `unsigned int` wide, so that overflow wraps instead of
 * being undefined behaviour (the conversion back to the signed type is
 * modular on every compiler we support; C calls it implementation-defined). */
#include <complex.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <wchar.h>

#include "base/compiler.h"
#include "mpi/op_internal.h"

/* Storage kinds. */
enum kind {
    K_NONE,
    K_I8, K_U8, K_I16, K_U16, K_I32, K_U32, K_I64, K_U64,
    K_F32, K_F64, K_FLD,
    K_C32, K_C64, K_CLD,
    K_BOOL,
    K_P_FLOAT_INT, K_P_DOUBLE_INT, K_P_LONG_INT, K_P_2INT, K_P_SHORT_INT, K_P_LDOUBLE_INT,
    K_P_2FLOAT, K_P_2DOUBLE,
    K_UNSUPPORTED, /* an optional type with no C counterpart here (REAL2, REAL16 ...) */
    K_N
};

/* The type classes of §6.9.2, as bits. */
enum {
    C_INT = 1u << 0, F_INT = 1u << 1, FLOATING = 1u << 2, LOGICAL = 1u << 3,
    COMPLEX = 1u << 4, BYTE = 1u << 5, MULTI = 1u << 6, PAIR = 1u << 7
};

/* Which classes each op accepts. */
static const unsigned allowed[SMAP_OPX_N] = {
    [SMAP_OPX_SUM] = C_INT | F_INT | FLOATING | COMPLEX | MULTI,
    [SMAP_OPX_PROD] = C_INT | F_INT | FLOATING | COMPLEX | MULTI,
    [SMAP_OPX_MIN] = C_INT | F_INT | FLOATING | MULTI,
    [SMAP_OPX_MAX] = C_INT | F_INT | FLOATING | MULTI,
    [SMAP_OPX_LAND] = C_INT | F_INT | LOGICAL | MULTI,
    [SMAP_OPX_LOR] = C_INT | F_INT | LOGICAL | MULTI,
    [SMAP_OPX_LXOR] = C_INT | F_INT | LOGICAL | MULTI,
    [SMAP_OPX_BAND] = C_INT | F_INT | BYTE | MULTI,
    [SMAP_OPX_BOR] = C_INT | F_INT | BYTE | MULTI,
    [SMAP_OPX_BXOR] = C_INT | F_INT | BYTE | MULTI,
    [SMAP_OPX_MINLOC] = PAIR,
    [SMAP_OPX_MAXLOC] = PAIR,
};

/* ---- the loops ---- */

#define LOOP(name, T, expr)                                                        \
    static void name(const void *in_, void *io_, MPI_Count n)                      \
    {                                                                              \
        const T *restrict a = in_;                                                 \
        T *restrict b = io_;                                                       \
        for (MPI_Count i = 0; i < n; i++)                                          \
            b[i] = (expr);                                                         \
    }

#define MINMAX_LOOPS(k, T)                                                         \
    LOOP(min_##k, T, a[i] < b[i] ? a[i] : b[i])                                    \
    LOOP(max_##k, T, a[i] > b[i] ? a[i] : b[i])

/* Integers: U is the unsigned type the arithmetic wraps in. */
#define INT_LOOPS(k, T, U)                                                         \
    LOOP(sum_##k, T, (T)((U)a[i] + (U)b[i]))                                       \
    LOOP(prod_##k, T, (T)((U)a[i] * (U)b[i]))                                      \
    MINMAX_LOOPS(k, T)                                                             \
    LOOP(land_##k, T, (T)(a[i] && b[i]))                                           \
    LOOP(lor_##k, T, (T)(a[i] || b[i]))                                            \
    LOOP(lxor_##k, T, (T)(!a[i] != !b[i]))                                         \
    LOOP(band_##k, T, (T)(a[i] & b[i]))                                            \
    LOOP(bor_##k, T, (T)(a[i] | b[i]))                                             \
    LOOP(bxor_##k, T, (T)(a[i] ^ b[i]))

INT_LOOPS(K_I8, int8_t, unsigned)
INT_LOOPS(K_U8, uint8_t, unsigned)
INT_LOOPS(K_I16, int16_t, unsigned)
INT_LOOPS(K_U16, uint16_t, unsigned)
INT_LOOPS(K_I32, int32_t, uint32_t)
INT_LOOPS(K_U32, uint32_t, uint32_t)
INT_LOOPS(K_I64, int64_t, uint64_t)
INT_LOOPS(K_U64, uint64_t, uint64_t)

#define FLOAT_LOOPS(k, T)                                                          \
    LOOP(sum_##k, T, a[i] + b[i])                                                  \
    LOOP(prod_##k, T, a[i] * b[i])                                                 \
    MINMAX_LOOPS(k, T)

FLOAT_LOOPS(K_F32, float)
FLOAT_LOOPS(K_F64, double)
FLOAT_LOOPS(K_FLD, long double)

#define COMPLEX_LOOPS(k, T)                                                        \
    LOOP(sum_##k, T, a[i] + b[i])                                                  \
    LOOP(prod_##k, T, a[i] * b[i])

COMPLEX_LOOPS(K_C32, float _Complex)
COMPLEX_LOOPS(K_C64, double _Complex)
COMPLEX_LOOPS(K_CLD, long double _Complex)

LOOP(land_K_BOOL, bool, a[i] && b[i])
LOOP(lor_K_BOOL, bool, a[i] || b[i])
LOOP(lxor_K_BOOL, bool, a[i] != b[i])

/* Value-index pairs, laid out as src/dtype/predef.c declares them.  A tie
 * keeps the smaller index (MPI's definition of MINLOC/MAXLOC). */
#define PAIR_LOOPS(k, V, I)                                                        \
    struct pair_##k { V v; I i; };                                                 \
    static void minloc_##k(const void *in_, void *io_, MPI_Count n)                \
    {                                                                              \
        const struct pair_##k *restrict a = in_;                                   \
        struct pair_##k *restrict b = io_;                                         \
        for (MPI_Count j = 0; j < n; j++) {                                        \
            if (a[j].v < b[j].v || (a[j].v == b[j].v && a[j].i < b[j].i)) {        \
                b[j].v = a[j].v;                                                   \
                b[j].i = a[j].i;                                                   \
            }                                                                      \
        }                                                                          \
    }                                                                              \
    static void maxloc_##k(const void *in_, void *io_, MPI_Count n)                \
    {                                                                              \
        const struct pair_##k *restrict a = in_;                                   \
        struct pair_##k *restrict b = io_;                                         \
        for (MPI_Count j = 0; j < n; j++) {                                        \
            if (a[j].v > b[j].v || (a[j].v == b[j].v && a[j].i < b[j].i)) {        \
                b[j].v = a[j].v;                                                   \
                b[j].i = a[j].i;                                                   \
            }                                                                      \
        }                                                                          \
    }

PAIR_LOOPS(K_P_FLOAT_INT, float, int)
PAIR_LOOPS(K_P_DOUBLE_INT, double, int)
PAIR_LOOPS(K_P_LONG_INT, long, int)
PAIR_LOOPS(K_P_2INT, int, int)
PAIR_LOOPS(K_P_SHORT_INT, short, int)
PAIR_LOOPS(K_P_LDOUBLE_INT, long double, int)
PAIR_LOOPS(K_P_2FLOAT, float, float)
PAIR_LOOPS(K_P_2DOUBLE, double, double)

/* ---- the dispatch table: loops[op][kind], NULL where no loop exists ---- */

#define INT_ROW(op)                                                                \
    [K_I8] = op##_K_I8, [K_U8] = op##_K_U8, [K_I16] = op##_K_I16,                  \
    [K_U16] = op##_K_U16, [K_I32] = op##_K_I32, [K_U32] = op##_K_U32,              \
    [K_I64] = op##_K_I64, [K_U64] = op##_K_U64
#define FLOAT_ROW(op) [K_F32] = op##_K_F32, [K_F64] = op##_K_F64, [K_FLD] = op##_K_FLD
#define COMPLEX_ROW(op) [K_C32] = op##_K_C32, [K_C64] = op##_K_C64, [K_CLD] = op##_K_CLD
#define PAIR_ROW(op)                                                               \
    [K_P_FLOAT_INT] = op##_K_P_FLOAT_INT, [K_P_DOUBLE_INT] = op##_K_P_DOUBLE_INT,  \
    [K_P_LONG_INT] = op##_K_P_LONG_INT, [K_P_2INT] = op##_K_P_2INT,                \
    [K_P_SHORT_INT] = op##_K_P_SHORT_INT, [K_P_LDOUBLE_INT] = op##_K_P_LDOUBLE_INT, \
    [K_P_2FLOAT] = op##_K_P_2FLOAT, [K_P_2DOUBLE] = op##_K_P_2DOUBLE

static smap_op_loop_fn *const loops[SMAP_OPX_N][K_N] = {
    [SMAP_OPX_SUM] = {INT_ROW(sum), FLOAT_ROW(sum), COMPLEX_ROW(sum)},
    [SMAP_OPX_PROD] = {INT_ROW(prod), FLOAT_ROW(prod), COMPLEX_ROW(prod)},
    [SMAP_OPX_MIN] = {INT_ROW(min), FLOAT_ROW(min)},
    [SMAP_OPX_MAX] = {INT_ROW(max), FLOAT_ROW(max)},
    [SMAP_OPX_LAND] = {INT_ROW(land), [K_BOOL] = land_K_BOOL},
    [SMAP_OPX_LOR] = {INT_ROW(lor), [K_BOOL] = lor_K_BOOL},
    [SMAP_OPX_LXOR] = {INT_ROW(lxor), [K_BOOL] = lxor_K_BOOL},
    [SMAP_OPX_BAND] = {INT_ROW(band)},
    [SMAP_OPX_BOR] = {INT_ROW(bor)},
    [SMAP_OPX_BXOR] = {INT_ROW(bxor)},
    [SMAP_OPX_MINLOC] = {PAIR_ROW(minloc)},
    [SMAP_OPX_MAXLOC] = {PAIR_ROW(maxloc)},
};

/* ---- predefined datatype -> (kind, class), filled once ---- */

struct tinfo {
    unsigned char kind, cls;
};
static struct tinfo tinfo[SMAP_DTYPE_PREDEF_N];
static pthread_once_t tinfo_once = PTHREAD_ONCE_INIT;

/* The integer kind of a C integer of `size` bytes. */
static unsigned char int_kind(size_t size, int is_signed)
{
    switch (size) {
    case 1: return is_signed ? K_I8 : K_U8;
    case 2: return is_signed ? K_I16 : K_U16;
    case 4: return is_signed ? K_I32 : K_U32;
    case 8: return is_signed ? K_I64 : K_U64;
    default: return K_UNSUPPORTED;
    }
}

static void set(MPI_Datatype h, unsigned char kind, unsigned cls)
{
    tinfo[(uintptr_t)h - SMAP_DTYPE_PREDEF_BASE] = (struct tinfo){kind, (unsigned char)cls};
}

/* signedness given explicitly: a (T)-1 < 0 test trips -Wtype-limits */
#define SETI(h, T, sgn, cls) set(h, int_kind(sizeof(T), sgn), cls)

static void tinfo_init(void)
{
    SETI(MPI_INT, int, 1, C_INT);
    SETI(MPI_LONG, long, 1, C_INT);
    SETI(MPI_SHORT, short, 1, C_INT);
    SETI(MPI_UNSIGNED_SHORT, unsigned short, 0, C_INT);
    SETI(MPI_UNSIGNED, unsigned, 0, C_INT);
    SETI(MPI_UNSIGNED_LONG, unsigned long, 0, C_INT);
    SETI(MPI_LONG_LONG, long long, 1, C_INT);
    SETI(MPI_UNSIGNED_LONG_LONG, unsigned long long, 0, C_INT);
    SETI(MPI_SIGNED_CHAR, signed char, 1, C_INT);
    SETI(MPI_UNSIGNED_CHAR, unsigned char, 0, C_INT);
    /* beyond the standard, as the peers (D14); plain char and wchar_t
     * have the platform's signedness (char is unsigned on aarch64) */
    SETI(MPI_CHAR, char, CHAR_MIN != 0, C_INT);
    SETI(MPI_WCHAR, wchar_t, WCHAR_MIN != 0, C_INT);
    set(MPI_CHARACTER, K_U8, F_INT);
    set(MPI_INT8_T, K_I8, C_INT);
    set(MPI_UINT8_T, K_U8, C_INT);
    set(MPI_INT16_T, K_I16, C_INT);
    set(MPI_UINT16_T, K_U16, C_INT);
    set(MPI_INT32_T, K_I32, C_INT);
    set(MPI_UINT32_T, K_U32, C_INT);
    set(MPI_INT64_T, K_I64, C_INT);
    set(MPI_UINT64_T, K_U64, C_INT);
    /* Fortran integers (gfortran kinds, as src/dtype/predef.c sizes them) */
    set(MPI_INTEGER, K_I32, F_INT);
    set(MPI_INTEGER1, K_I8, F_INT);
    set(MPI_INTEGER2, K_I16, F_INT);
    set(MPI_INTEGER4, K_I32, F_INT);
    set(MPI_INTEGER8, K_I64, F_INT);
    set(MPI_INTEGER16, K_UNSUPPORTED, F_INT);
    /* multi-language types */
    SETI(MPI_AINT, MPI_Aint, 1, MULTI);
    SETI(MPI_OFFSET, MPI_Offset, 1, MULTI);
    SETI(MPI_COUNT, MPI_Count, 1, MULTI);
    /* floating point */
    set(MPI_FLOAT, K_F32, FLOATING);
    set(MPI_DOUBLE, K_F64, FLOATING);
    set(MPI_LONG_DOUBLE, K_FLD, FLOATING);
    set(MPI_REAL, K_F32, FLOATING);
    set(MPI_DOUBLE_PRECISION, K_F64, FLOATING);
    set(MPI_REAL4, K_F32, FLOATING);
    set(MPI_REAL8, K_F64, FLOATING);
    set(MPI_REAL2, K_UNSUPPORTED, FLOATING);
    set(MPI_REAL16, K_UNSUPPORTED, FLOATING);   /* gfortran: binary128, not long double */
    /* logical: Fortran LOGICAL is an integer, true = nonzero */
    set(MPI_C_BOOL, K_BOOL, LOGICAL);
    set(MPI_CXX_BOOL, K_BOOL, LOGICAL);
    set(MPI_LOGICAL, K_I32, LOGICAL);
    set(MPI_LOGICAL1, K_I8, LOGICAL);
    set(MPI_LOGICAL2, K_I16, LOGICAL);
    set(MPI_LOGICAL4, K_I32, LOGICAL);
    set(MPI_LOGICAL8, K_I64, LOGICAL);
    set(MPI_LOGICAL16, K_UNSUPPORTED, LOGICAL);
    /* complex */
    set(MPI_C_FLOAT_COMPLEX, K_C32, COMPLEX);
    set(MPI_C_DOUBLE_COMPLEX, K_C64, COMPLEX);
    set(MPI_C_LONG_DOUBLE_COMPLEX, K_CLD, COMPLEX);
    set(MPI_CXX_FLOAT_COMPLEX, K_C32, COMPLEX);
    set(MPI_CXX_DOUBLE_COMPLEX, K_C64, COMPLEX);
    set(MPI_CXX_LONG_DOUBLE_COMPLEX, K_CLD, COMPLEX);
    set(MPI_COMPLEX, K_C32, COMPLEX);
    set(MPI_DOUBLE_COMPLEX, K_C64, COMPLEX);
    set(MPI_COMPLEX8, K_C32, COMPLEX);
    set(MPI_COMPLEX16, K_C64, COMPLEX);
    set(MPI_COMPLEX4, K_UNSUPPORTED, COMPLEX);
    set(MPI_COMPLEX32, K_UNSUPPORTED, COMPLEX);
    /* byte */
    set(MPI_BYTE, K_U8, BYTE);
    /* value-index pairs */
    set(MPI_FLOAT_INT, K_P_FLOAT_INT, PAIR);
    set(MPI_DOUBLE_INT, K_P_DOUBLE_INT, PAIR);
    set(MPI_LONG_INT, K_P_LONG_INT, PAIR);
    set(MPI_2INT, K_P_2INT, PAIR);
    set(MPI_SHORT_INT, K_P_SHORT_INT, PAIR);
    set(MPI_LONG_DOUBLE_INT, K_P_LDOUBLE_INT, PAIR);
    set(MPI_2REAL, K_P_2FLOAT, PAIR);
    set(MPI_2DOUBLE_PRECISION, K_P_2DOUBLE, PAIR);
    set(MPI_2INTEGER, K_P_2INT, PAIR);
}

int smap_op_loop(int opx, const smap_dtype_t *t, smap_op_loop_fn **fn, const char **why)
{
    pthread_once(&tinfo_once, tinfo_init);
    struct tinfo ti = tinfo[t - smap_dtype_predef];
    if (!(allowed[opx] & ti.cls)) {
        *why = "the standard does not define this op on this datatype";
        return MPI_ERR_OP;
    }
    if (ti.kind == K_UNSUPPORTED) {
        *why = "this optional datatype has no C counterpart here; it cannot be reduced";
        return MPI_ERR_TYPE;
    }
    *fn = loops[opx][ti.kind];
    if (!*fn) {  /* a class/kind mismatch in the tables above: our bug */
        *why = "no loop for this op and datatype";
        return MPI_ERR_INTERN;
    }
    return MPI_SUCCESS;
}
