/* Every predefined reduction op on every predefined datatype through
 * MPI_Reduce_local: allowed pairs against a naive reference on random data
 * (exact for integers and logicals, tolerant for floating point), every
 * other pair must raise MPI_ERR_OP (MPI 5.0 §6.9.2). */
#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "smap_test.h"

enum cls { CI = 1, FI = 2, FP = 4, LG = 8, CX = 16, BY = 32, ML = 64, PR = 128, NONE = 0 };
enum form { SINT, UINT, REALF, CPLX, BOOLV, PAIR };

struct ty {
    MPI_Datatype t;
    const char *name;
    int cls, form;
    size_t size;     /* SINT/UINT/REALF/CPLX: one value (CPLX: one component) */
    int pair_kind;   /* PAIR: see pair_* below */
};

#define T(h, c, f, s) {h, #h, c, f, s, 0}
#define P(h, k) {h, #h, PR, PAIR, 0, k}
enum { P_FLOAT_INT, P_DOUBLE_INT, P_LONG_INT, P_2INT, P_SHORT_INT, P_LDOUBLE_INT, P_2REAL,
       P_2DOUBLE };

static const struct ty types[] = {
    T(MPI_INT, CI, SINT, sizeof(int)), T(MPI_LONG, CI, SINT, sizeof(long)),
    T(MPI_SHORT, CI, SINT, sizeof(short)), T(MPI_UNSIGNED_SHORT, CI, UINT, sizeof(short)),
    T(MPI_UNSIGNED, CI, UINT, sizeof(int)), T(MPI_UNSIGNED_LONG, CI, UINT, sizeof(long)),
    T(MPI_LONG_LONG, CI, SINT, sizeof(long long)),
    T(MPI_UNSIGNED_LONG_LONG, CI, UINT, sizeof(long long)),
    T(MPI_SIGNED_CHAR, CI, SINT, 1), T(MPI_UNSIGNED_CHAR, CI, UINT, 1),
    T(MPI_INT8_T, CI, SINT, 1), T(MPI_UINT8_T, CI, UINT, 1), T(MPI_INT16_T, CI, SINT, 2),
    T(MPI_UINT16_T, CI, UINT, 2), T(MPI_INT32_T, CI, SINT, 4), T(MPI_UINT32_T, CI, UINT, 4),
    T(MPI_INT64_T, CI, SINT, 8), T(MPI_UINT64_T, CI, UINT, 8),
    T(MPI_INTEGER, FI, SINT, 4), T(MPI_INTEGER1, FI, SINT, 1), T(MPI_INTEGER2, FI, SINT, 2),
    T(MPI_INTEGER4, FI, SINT, 4), T(MPI_INTEGER8, FI, SINT, 8),
    T(MPI_AINT, ML, SINT, sizeof(MPI_Aint)), T(MPI_OFFSET, ML, SINT, 8),
    T(MPI_COUNT, ML, SINT, 8),
    T(MPI_FLOAT, FP, REALF, sizeof(float)), T(MPI_DOUBLE, FP, REALF, sizeof(double)),
    T(MPI_LONG_DOUBLE, FP, REALF, sizeof(long double)), T(MPI_REAL, FP, REALF, 4),
    T(MPI_DOUBLE_PRECISION, FP, REALF, 8), T(MPI_REAL4, FP, REALF, 4),
    T(MPI_REAL8, FP, REALF, 8),
    T(MPI_C_BOOL, LG, BOOLV, 1), T(MPI_CXX_BOOL, LG, BOOLV, 1),
    T(MPI_LOGICAL, LG, SINT, 4), T(MPI_LOGICAL1, LG, SINT, 1), T(MPI_LOGICAL2, LG, SINT, 2),
    T(MPI_LOGICAL4, LG, SINT, 4), T(MPI_LOGICAL8, LG, SINT, 8),
    T(MPI_C_FLOAT_COMPLEX, CX, CPLX, sizeof(float)),
    T(MPI_C_DOUBLE_COMPLEX, CX, CPLX, sizeof(double)),
    T(MPI_C_LONG_DOUBLE_COMPLEX, CX, CPLX, sizeof(long double)),
    T(MPI_CXX_FLOAT_COMPLEX, CX, CPLX, sizeof(float)),
    T(MPI_CXX_DOUBLE_COMPLEX, CX, CPLX, sizeof(double)),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX, CX, CPLX, sizeof(long double)),
    T(MPI_COMPLEX, CX, CPLX, 4), T(MPI_DOUBLE_COMPLEX, CX, CPLX, 8),
    T(MPI_COMPLEX8, CX, CPLX, 4), T(MPI_COMPLEX16, CX, CPLX, 8),
    T(MPI_BYTE, BY, UINT, 1),
    /* beyond the standard, as Open MPI and MPICH (DESIGN D14): the char
     * types reduce as integers of the platform's signedness */
    T(MPI_CHAR, CI, CHAR_MIN != 0 ? SINT : UINT, 1),
    T(MPI_WCHAR, CI, WCHAR_MIN != 0 ? SINT : UINT, sizeof(wchar_t)),
    T(MPI_CHARACTER, FI, UINT, 1), T(MPI_PACKED, NONE, UINT, 1),
    P(MPI_FLOAT_INT, P_FLOAT_INT), P(MPI_DOUBLE_INT, P_DOUBLE_INT),
    P(MPI_LONG_INT, P_LONG_INT), P(MPI_2INT, P_2INT), P(MPI_SHORT_INT, P_SHORT_INT),
    P(MPI_LONG_DOUBLE_INT, P_LDOUBLE_INT), P(MPI_2REAL, P_2REAL),
    P(MPI_2DOUBLE_PRECISION, P_2DOUBLE), P(MPI_2INTEGER, P_2INT),
};
#define NTYPES (sizeof types / sizeof types[0])

enum { O_SUM, O_MIN, O_MAX, O_PROD, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR, O_MINLOC,
       O_MAXLOC, NOPS };
static const struct { MPI_Op op; const char *name; int cls; } ops[NOPS] = {
    {MPI_SUM, "SUM", CI | FI | FP | CX | ML}, {MPI_MIN, "MIN", CI | FI | FP | ML},
    {MPI_MAX, "MAX", CI | FI | FP | ML}, {MPI_PROD, "PROD", CI | FI | FP | CX | ML},
    /* logical ops on Fortran integers and address/offset/count: as the peers */
    {MPI_LAND, "LAND", CI | FI | LG | ML}, {MPI_LOR, "LOR", CI | FI | LG | ML},
    {MPI_LXOR, "LXOR", CI | FI | LG | ML},
    {MPI_BAND, "BAND", CI | FI | BY | ML}, {MPI_BOR, "BOR", CI | FI | BY | ML},
    {MPI_BXOR, "BXOR", CI | FI | BY | ML}, {MPI_MINLOC, "MINLOC", PR},
    {MPI_MAXLOC, "MAXLOC", PR},
};

#define N 67
static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* ---- integers: read/write any size as 64 bits ---- */
static uint64_t get_u(const unsigned char *p, size_t sz)
{
    uint8_t a; uint16_t b; uint32_t c; uint64_t d;
    switch (sz) {
    case 1: memcpy(&a, p, 1); return a;
    case 2: memcpy(&b, p, 2); return b;
    case 4: memcpy(&c, p, 4); return c;
    default: memcpy(&d, p, 8); return d;
    }
}
static int64_t get_s(const unsigned char *p, size_t sz)
{
    uint64_t v = get_u(p, sz);
    unsigned bits = (unsigned)sz * 8;
    if (bits < 64 && (v >> (bits - 1)) & 1)
        v |= ~0ull << bits;
    return (int64_t)v;
}

static uint64_t int_ref(int op, uint64_t a, uint64_t b, int is_signed, size_t sz)
{
    int64_t sa = get_s((unsigned char *)&a, 8), sb = get_s((unsigned char *)&b, 8);
    (void)sz;
    switch (op) {
    case O_SUM: return a + b;
    case O_PROD: return a * b;
    case O_MIN: return is_signed ? (uint64_t)(sa < sb ? sa : sb) : (a < b ? a : b);
    case O_MAX: return is_signed ? (uint64_t)(sa > sb ? sa : sb) : (a > b ? a : b);
    case O_LAND: return a && b;
    case O_LOR: return a || b;
    case O_LXOR: return !a != !b;
    case O_BAND: return a & b;
    case O_BOR: return a | b;
    default: return a ^ b;
    }
}

static void fill(const struct ty *t, unsigned char *buf, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        buf[i] = (unsigned char)rnd();
    if (t->form == BOOLV) {
        for (size_t i = 0; i < bytes; i++)
            buf[i] &= 1;
    } else if (t->form == SINT && t->cls == LG) { /* Fortran logicals: mostly 0/1 */
        for (size_t i = 0; i < bytes; i += t->size)
            memset(buf + i, 0, t->size), buf[i] = (unsigned char)(rnd() % 3 == 0 ? 0 : 1);
    } else if (t->form == SINT || t->form == UINT) {
        for (size_t i = 0; i < bytes; i += t->size)  /* some zeros for the logical ops */
            if (rnd() % 5 == 0)
                memset(buf + i, 0, t->size);
    }
}

static int check_int(int op, const struct ty *t, const unsigned char *a,
                     const unsigned char *b0, const unsigned char *b)
{
    for (size_t i = 0; i < N; i++) {
        size_t o = i * t->size;
        int sg = t->form == SINT;
        uint64_t x = sg ? (uint64_t)get_s(a + o, t->size) : get_u(a + o, t->size);
        uint64_t y = sg ? (uint64_t)get_s(b0 + o, t->size) : get_u(b0 + o, t->size);
        uint64_t want = int_ref(op, x, y, sg, t->size), got = get_u(b + o, t->size);
        uint64_t mask = t->size == 8 ? ~0ull : (1ull << (8 * t->size)) - 1;
        CHECK((want & mask) == got, "%s %s [%zu]: %llx op %llx = %llx, want %llx", ops[op].name,
              t->name, i, (unsigned long long)x, (unsigned long long)y,
              (unsigned long long)got, (unsigned long long)(want & mask));
    }
    return 0;
}

static long double get_f(const unsigned char *p, size_t sz)
{
    float f; double d; long double l;
    if (sz == sizeof(float)) { memcpy(&f, p, sz); return f; }
    if (sz == sizeof(double)) { memcpy(&d, p, sz); return d; }
    memcpy(&l, p, sz);
    return l;
}
static void put_f(unsigned char *p, size_t sz, long double v)
{
    float f = (float)v; double d = (double)v;
    if (sz == sizeof(float)) memcpy(p, &f, sz);
    else if (sz == sizeof(double)) memcpy(p, &d, sz);
    else memcpy(p, &v, sz);
}
static long double labs_(long double x) { return x < 0 ? -x : x; }

static int close_enough(long double got, long double want, size_t sz)
{
    long double tol = sz == sizeof(float) ? 1e-5L : 1e-12L;
    return labs_(got - want) <= tol * (1 + labs_(want));
}

static void fill_real(const struct ty *t, unsigned char *buf, size_t nvals)
{
    for (size_t i = 0; i < nvals; i++)
        put_f(buf + i * t->size, t->size, (long double)((int)(rnd() % 2001) - 1000) / 8);
}

static void check_real(int op, const struct ty *t, const unsigned char *a,
                       const unsigned char *b0, const unsigned char *b)
{
    for (size_t i = 0; i < N; i++) {
        size_t o = i * t->size;
        long double x = get_f(a + o, t->size), y = get_f(b0 + o, t->size), want;
        want = op == O_SUM ? x + y : op == O_PROD ? x * y : op == O_MIN ? (x < y ? x : y) : (x > y ? x : y);
        long double got = get_f(b + o, t->size);
        CHECK(close_enough(got, want, t->size), "%s %s [%zu]: %Lg op %Lg = %Lg, want %Lg",
              ops[op].name, t->name, i, x, y, got, want);
    }
}

static void check_cplx(int op, const struct ty *t, const unsigned char *a,
                       const unsigned char *b0, const unsigned char *b)
{
    size_t s = t->size;
    for (size_t i = 0; i < N; i++) {
        size_t o = i * 2 * s;
        long double xr = get_f(a + o, s), xi = get_f(a + o + s, s);
        long double yr = get_f(b0 + o, s), yi = get_f(b0 + o + s, s);
        long double wr = op == O_SUM ? xr + yr : xr * yr - xi * yi;
        long double wi = op == O_SUM ? xi + yi : xr * yi + xi * yr;
        CHECK(close_enough(get_f(b + o, s), wr, s) && close_enough(get_f(b + o + s, s), wi, s),
              "%s %s [%zu]", ops[op].name, t->name, i);
    }
}

#define PAIR_CASE(k, V, I)                                                         \
    case k: {                                                                      \
        struct pr { V v; I i; } *pa = (void *)a, *pb = (void *)b;                  \
        const struct pr *p0 = (const void *)b0;                                    \
        if (fill_only) {                                                           \
            for (size_t j = 0; j < N; j++) {                                       \
                pa[j].v = (V)(rnd() % 5); pa[j].i = (I)(rnd() % 7);                \
                pb[j].v = (V)(rnd() % 5); pb[j].i = (I)(rnd() % 7);                \
            }                                                                      \
            return sizeof(struct pr);                                              \
        }                                                                          \
        for (size_t j = 0; j < N; j++) {                                           \
            V wv = pa[j].v; I wi = pa[j].i;                                        \
            int take_b = op == O_MINLOC ? p0[j].v < pa[j].v : p0[j].v > pa[j].v;   \
            if (take_b) { wv = p0[j].v; wi = p0[j].i; }                            \
            else if (p0[j].v == pa[j].v && p0[j].i < wi) wi = p0[j].i;             \
            CHECK(pb[j].v == wv && pb[j].i == wi, "%s %s [%zu]", ops[op].name,     \
                  t->name, j);                                                     \
        }                                                                          \
        return sizeof(struct pr);                                                  \
    }

/* fill_only: fills a and b with values with many ties; else checks b. */
static size_t pair_do(int op, const struct ty *t, void *a, const void *b0, void *b, int fill_only)
{
    switch (t->pair_kind) {
    PAIR_CASE(P_FLOAT_INT, float, int)
    PAIR_CASE(P_DOUBLE_INT, double, int)
    PAIR_CASE(P_LONG_INT, long, int)
    PAIR_CASE(P_2INT, int, int)
    PAIR_CASE(P_SHORT_INT, short, int)
    PAIR_CASE(P_LDOUBLE_INT, long double, int)
    PAIR_CASE(P_2REAL, float, float)
    PAIR_CASE(P_2DOUBLE, double, double)
    }
    return 0;
}

static _Alignas(64) unsigned char A[N * 64], B0[N * 64], B[N * 64];

static void one(int op, const struct ty *t)
{
    MPI_Aint lb, ext;
    CHECK_RC(MPI_Type_get_extent(t->t, &lb, &ext));
    size_t bytes = (size_t)ext * N;
    memset(A, 0, sizeof A);
    memset(B0, 0, sizeof B0);
    if (t->form == PAIR) {
        pair_do(op, t, A, NULL, B0, 1);
    } else if (t->form == REALF || t->form == CPLX) {
        size_t nv = bytes / t->size;
        fill_real(t, A, nv);
        fill_real(t, B0, nv);
    } else {
        fill(t, A, bytes);
        fill(t, B0, bytes);
    }
    memcpy(B, B0, sizeof B);
    int rc = MPI_Reduce_local(A, B, N, t->t, ops[op].op);
    if (!(ops[op].cls & t->cls)) {
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_OP, "%s on %s: class %d, want MPI_ERR_OP", ops[op].name, t->name,
              cls);
        CHECK(memcmp(B, B0, sizeof B) == 0, "%s on %s touched the buffer", ops[op].name,
              t->name);
        return;
    }
    CHECK(rc == MPI_SUCCESS, "%s on %s returned %d", ops[op].name, t->name, rc);
    switch (t->form) {
    case PAIR: pair_do(op, t, A, B0, B, 0); break;
    case REALF: check_real(op, t, A, B0, B); break;
    case CPLX: check_cplx(op, t, A, B0, B); break;
    case BOOLV:
        for (size_t i = 0; i < N; i++)
            CHECK(B[i] == int_ref(op, A[i], B0[i], 0, 1), "%s %s [%zu]", ops[op].name, t->name, i);
        break;
    default: check_int(op, t, A, B0, B);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int pairs = 0, rejected = 0;
    for (int round = 0; round < 3; round++) {
        for (size_t t = 0; t < NTYPES; t++) {
            for (int op = 0; op < NOPS; op++) {
                one(op, &types[t]);
                if (round == 0)
                    (ops[op].cls & types[t].cls) ? pairs++ : rejected++;
            }
        }
    }
    /* RMA-only ops are refused by MPI_Reduce_local */
    int x = 1, y = 2, cls;
    MPI_Error_class(MPI_Reduce_local(&x, &y, 1, MPI_INT, MPI_REPLACE), &cls);
    CHECK(cls == MPI_ERR_OP, "REPLACE: class %d", cls);
    MPI_Error_class(MPI_Reduce_local(&x, &y, 1, MPI_INT, MPI_NO_OP), &cls);
    CHECK(cls == MPI_ERR_OP, "NO_OP: class %d", cls);
    /* an optional type this build cannot compute on */
    long double q[4] = {0};
    MPI_Error_class(MPI_Reduce_local(q, q + 2, 1, MPI_REAL16, MPI_SUM), &cls);
    CHECK(cls == MPI_ERR_TYPE, "REAL16: class %d", cls);
    /* the message names both the op and the type */
    char msg[MPI_MAX_ERROR_STRING];
    float fx = 1, fy = 2;
    int len, rc = MPI_Reduce_local(&fx, &fy, 1, MPI_FLOAT, MPI_BAND);
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, "MPI_BAND") && strstr(msg, "MPI_FLOAT"), "message: %s", msg);
    printf("ops_predef: %d allowed pairs checked, %d refused (x3 rounds)\n", pairs, rejected);
    MPI_Finalize();
    return 0;
}
