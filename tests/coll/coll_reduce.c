/* Reducing collectives (Reduce, Allreduce, Reduce_scatter(_block), Scan,
 * Exscan) on MPI_COMM_WORLD and MPI_COMM_SELF against results folded here
 * serially in rank order.  Every predefined op on int, the arithmetic ones
 * on double, SUM/MAX on a vector type with holes, MINLOC/MAXLOC on MPI_2INT
 * and MPI_DOUBLE_INT (padded: not contiguous), and a non-commutative user
 * op (2x2 matrix product, whose result depends on the order); sizes 0, 1,
 * odd, past the inline limit and ~4 MiB; MPI_IN_PLACE everywhere allowed.
 *
 * Arguments: "stack" (buffers on the main stack, no large sizes), "quick". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

enum kind { K_INT, K_DBL, K_VEC, K_2INT, K_DI, K_MAT, K_N };
static const int EXT[K_N] = { 4, 8, 12, 8, 16, 16 };   /* bytes per element */
static MPI_Datatype DT[K_N];
static MPI_Op MATMUL;
static int me, np, use_stack, quick;

struct di {
    double v;
    int i;
};

static void matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    unsigned *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        unsigned r0 = a[0] * b[0] + a[1] * b[2], r1 = a[0] * b[1] + a[1] * b[3];
        unsigned r2 = a[2] * b[0] + a[3] * b[2], r3 = a[2] * b[1] + a[3] * b[3];
        b[0] = r0, b[1] = r1, b[2] = r2, b[3] = r3;
    }
}

/* Rank r's input element e for op `op`. */
static void gen(enum kind k, MPI_Op op, int r, long e, char *p)
{
    int v = (int)((r * 37 + e * 11) % 2001) - 1000;
    if (op == MPI_PROD)
        v = 1 + (int)((r + e) % 2);
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        v = (r + e) % 3 == 0;
    switch (k) {
    case K_INT: memcpy(p, &v, 4); break;
    case K_DBL: { double d = v; memcpy(p, &d, 8); } break;
    case K_VEC: { int w = v + 5; memcpy(p, &v, 4); memcpy(p + 8, &w, 4); } break;
    case K_2INT: { int x[2] = { (int)((r * 7 + e) % 5), r }; memcpy(p, x, 8); } break;
    case K_DI: { struct di x = { (double)((r * 3 + e) % 4), r * 10 }; memcpy(p, &x.v, 8); memcpy(p + 8, &x.i, 4); } break;
    case K_MAT: { unsigned m[4] = { (unsigned)((r + e) % 3 + 1), (unsigned)((r * e) % 4),
                                    (unsigned)(e % 2), (unsigned)(r % 3 + 1) };
                  memcpy(p, m, 16); } break;
    default: break;
    }
}

static long lop(MPI_Op op, long a, long b)
{
    if (op == MPI_SUM) return a + b;
    if (op == MPI_PROD) return a * b;
    if (op == MPI_MAX) return a > b ? a : b;
    if (op == MPI_MIN) return a < b ? a : b;
    if (op == MPI_BAND) return a & b;
    if (op == MPI_BOR) return a | b;
    if (op == MPI_BXOR) return a ^ b;
    if (op == MPI_LAND) return a && b;
    if (op == MPI_LOR) return a || b;
    return !a != !b;   /* MPI_LXOR */
}

/* acc = acc op x (acc is the left operand). */
static void ref(enum kind k, MPI_Op op, char *acc, const char *x)
{
    switch (k) {
    case K_INT: { int a, b; memcpy(&a, acc, 4); memcpy(&b, x, 4); a = (int)lop(op, a, b); memcpy(acc, &a, 4); } break;
    case K_DBL: { double a, b; memcpy(&a, acc, 8); memcpy(&b, x, 8);
                  a = op == MPI_SUM ? a + b : op == MPI_PROD ? a * b : op == MPI_MAX ? (a > b ? a : b) : (a < b ? a : b);
                  memcpy(acc, &a, 8); } break;
    case K_VEC: for (int j = 0; j < 2; j++) { int a, b; memcpy(&a, acc + 8 * j, 4); memcpy(&b, x + 8 * j, 4); a = (int)lop(op, a, b); memcpy(acc + 8 * j, &a, 4); } break;
    case K_2INT: { int a[2], b[2]; memcpy(a, acc, 8); memcpy(b, x, 8);
                   int take = op == MPI_MINLOC ? (b[0] < a[0] || (b[0] == a[0] && b[1] < a[1]))
                                               : (b[0] > a[0] || (b[0] == a[0] && b[1] < a[1]));
                   if (take) memcpy(acc, b, 8); } break;
    case K_DI: { double av, bv; int ai, bi; memcpy(&av, acc, 8); memcpy(&bv, x, 8); memcpy(&ai, acc + 8, 4); memcpy(&bi, x + 8, 4);
                 int take = op == MPI_MINLOC ? (bv < av || (bv == av && bi < ai)) : (bv > av || (bv == av && bi < ai));
                 if (take) { memcpy(acc, x, 8); memcpy(acc + 8, x + 8, 4); } } break;
    case K_MAT: { unsigned a[4], b[4]; memcpy(a, acc, 16); memcpy(b, x, 16); int one = 1; matmul(a, b, &one, NULL); memcpy(acc, b, 16); } break;
    default: break;
    }
}

static int same(enum kind k, const char *a, const char *b)
{
    switch (k) {
    case K_VEC: return !memcmp(a, b, 4) && !memcmp(a + 8, b + 8, 4);
    case K_DI: return !memcmp(a, b, 12);
    default: return !memcmp(a, b, (size_t)EXT[k]);
    }
}

/* Expected fold of ranks lo..hi for element e into out. */
static void fold(enum kind k, MPI_Op op, int lo, int hi, long e, char *out)
{
    char x[16];
    gen(k, op, lo, e, out);
    for (int r = lo + 1; r <= hi; r++) {
        gen(k, op, r, e, x);
        ref(k, op, out, x);
    }
}

static char *pool;
static size_t pool_bytes, pool_used;
static char *get(size_t bytes)
{
    CHECK(pool_used + bytes + 64 <= pool_bytes, "test pool too small");
    char *p = pool + pool_used;
    pool_used += (bytes + 64) & ~(size_t)63;
    memset(p, 0x5a, bytes);
    return p;
}

/* Under AddressSanitizer (-O0, 8 ranks on 2 cores) the serial reference
 * of the ~4 MiB vectors costs more than the collectives: there every 13th
 * element and the last 64 are checked, which still sees every chunk. */
#if defined(__SANITIZE_ADDRESS__)
#define SPARSE 1
#else
#define SPARSE 0
#endif
static long big_cnt;

static void check_el(enum kind k, MPI_Op op, const char *got, int lo, int hi, long e,
                     const char *what, MPI_Comm comm)
{
    if (SPARSE && big_cnt > 100000 && e % 13 != 0 && e < big_cnt - 64)
        return;
    char want[16];
    int size;
    MPI_Comm_size(comm, &size);
    fold(k, op, lo, hi, e, want);
    CHECK(same(k, got, want), "%s kind %d op %p np %d: element %ld differs", what, k, (void *)op,
          size, e);
    if (k == K_VEC)
        CHECK((unsigned char)got[4] == 0x5a, "%s: hole of element %ld overwritten", what, e);
}

/* All reductions of n elements of kind k with op, in place or not. */
static void run_case(MPI_Comm comm, enum kind k, MPI_Op op, long n, int inplace, int which)
{
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    size_t ext = (size_t)EXT[k];
    int rcounts[64];
    long total = 0;
    for (int j = 0; j < size; j++)
        total += rcounts[j] = (int)(n / size + (j < n % size ? 1 : 0) + (j % 2));
    long cnt = which == 2 ? total : n;
    big_cnt = cnt;
    pool_used = 0;
    char *in = get((size_t)cnt * ext + 16), *out = get((size_t)cnt * ext + 16);
    for (long e = 0; e < cnt; e++)
        gen(k, op, rank, e, (inplace ? out : in) + e * ext);
    const void *sb = inplace ? MPI_IN_PLACE : in;
    int root = (int)(n % size);
    switch (which) {
    case 0:   /* reduce */
        if (inplace && rank != root)
            sb = in, memcpy(in, out, (size_t)cnt * ext);
        CHECK_RC(MPI_Reduce(sb, out, (int)n, DT[k], op, root, comm));
        if (rank == root)
            for (long e = 0; e < n; e++)
                check_el(k, op, out + e * ext, 0, size - 1, e, "reduce", comm);
        break;
    case 1:
        CHECK_RC(MPI_Allreduce(sb, out, (int)n, DT[k], op, comm));
        for (long e = 0; e < n; e++)
            check_el(k, op, out + e * ext, 0, size - 1, e, "allreduce", comm);
        break;
    case 2: {
        CHECK_RC(MPI_Reduce_scatter(sb, out, rcounts, DT[k], op, comm));
        long d = 0;
        for (int j = 0; j < rank; j++)
            d += rcounts[j];
        for (long e = 0; e < rcounts[rank]; e++)
            check_el(k, op, out + e * ext, 0, size - 1, d + e, "reduce_scatter", comm);
        break;
    }
    case 3: {
        long b = n / size;
        CHECK_RC(MPI_Reduce_scatter_block(sb, out, (int)b, DT[k], op, comm));
        for (long e = 0; e < b; e++)
            check_el(k, op, out + e * ext, 0, size - 1, rank * b + e, "reduce_scatter_block", comm);
        break;
    }
    case 4:
        CHECK_RC(MPI_Scan(sb, out, (int)n, DT[k], op, comm));
        for (long e = 0; e < n; e++)
            check_el(k, op, out + e * ext, 0, rank, e, "scan", comm);
        break;
    case 5:
        CHECK_RC(MPI_Exscan(sb, out, (int)n, DT[k], op, comm));
        for (long e = 0; rank > 0 && e < n; e++)
            check_el(k, op, out + e * ext, 0, rank - 1, e, "exscan", comm);
        break;
    }
}

static void run_comm(MPI_Comm comm)
{
    static const MPI_Op int_ops[] = { MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND,
                                      MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR };
    long sizes[] = { 0, 1, 7, 300, 5001 };
    int nsz = quick ? 4 : 5;
    for (int z = 0; z < nsz; z++) {
        long n = sizes[z];
        for (int w = 0; w < 6; w++)
            for (int ip = 0; ip < 2; ip++) {
                for (size_t o = 0; o < sizeof int_ops / sizeof int_ops[0]; o++)
                    if (z < 3 || o < 3 || (o + (size_t)w) % 4 == 0)
                        run_case(comm, K_INT, int_ops[o], n, ip, w);
                run_case(comm, K_DBL, (w + z) % 2 ? MPI_SUM : MPI_MAX, n, ip, w);
                run_case(comm, K_VEC, (w + ip) % 2 ? MPI_SUM : MPI_MIN, n, ip, w);
                run_case(comm, K_2INT, MPI_MINLOC, n, ip, w);
                run_case(comm, K_DI, MPI_MAXLOC, n, ip, w);
                run_case(comm, K_MAT, MATMUL, n, ip, w);
            }
    }
    if (quick || use_stack || comm == MPI_COMM_SELF)
        return;
    /* ~4 MiB vectors: the threaded and staged algorithms over many chunks */
    for (int w = 0; w < 6; w++) {
        run_case(comm, K_INT, MPI_SUM, 1L << 20, w % 2, w);
        if (w == 1 || w == 4)
            run_case(comm, K_MAT, MATMUL, 1L << 18, 0, w);
    }
    run_case(comm, K_VEC, MPI_SUM, 1L << 18, 1, 1);
    run_case(comm, K_DI, MPI_MINLOC, 1L << 18, 0, 4);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        use_stack |= !strcmp(argv[i], "stack");
        quick |= !strcmp(argv[i], "quick");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(np <= 64, "at most 64 ranks");
    MPI_Datatype vec, mat;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
    MPI_Type_commit(&mat);
    DT[K_INT] = MPI_INT, DT[K_DBL] = MPI_DOUBLE, DT[K_VEC] = vec, DT[K_2INT] = MPI_2INT;
    DT[K_DI] = MPI_DOUBLE_INT, DT[K_MAT] = mat;
    CHECK_RC(MPI_Op_create(matmul, 0, &MATMUL));
    char *heap = NULL;
    if (use_stack) {
        pool_bytes = 400000;
        pool = __builtin_alloca(pool_bytes);
    } else {
        pool_bytes = (size_t)20 << 20;
        pool = heap = malloc(pool_bytes);
    }
    run_comm(MPI_COMM_WORLD);
    run_comm(MPI_COMM_SELF);
    free(heap);
    MPI_Op_free(&MATMUL);
    MPI_Type_free(&vec);
    MPI_Type_free(&mat);
    MPI_Finalize();
    if (me == 0)
        printf("PASS coll_reduce np %d%s%s\n", np, use_stack ? " stack" : "", quick ? " quick" : "");
    return 0;
}
