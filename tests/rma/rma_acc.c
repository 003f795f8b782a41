/* Accumulates: every predefined op on integer, floating, complex and
 * value-index types (atomic and locked paths: 1-8 byte elements, long
 * double, double complex, MPI_DOUBLE_INT), contiguous and derived on both
 * sides, all ranks accumulating into one target at once; then atomicity
 * under contention: fetch-and-op counters (fetched values must be a
 * permutation), compare-and-swap mutexes, exclusive locks around a
 * non-atomic read-modify-write, get_accumulate with MPI_REPLACE/NO_OP.
 * Windows from MPI_Win_allocate and MPI_Win_create over the heap (at
 * SMAP_COPY=bounce the latter is served by the targets themselves). */
#include <complex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#define N 24

static int me, np;

enum { T_INT, T_LONG, T_SHORT, T_ULL, T_U8, T_FLOAT, T_DOUBLE, T_LDOUBLE, T_DCOMPLEX, T_2INT,
       T_FLOAT_INT, T_DOUBLE_INT, T_N };
static const char *tname[] = { "int", "long", "short", "ull", "uint8", "float", "double",
                               "long double", "double complex", "2int", "float_int",
                               "double_int" };
static MPI_Datatype ttype(int t)
{
    static MPI_Datatype m[T_N];
    m[T_INT] = MPI_INT, m[T_LONG] = MPI_LONG, m[T_SHORT] = MPI_SHORT,
    m[T_ULL] = MPI_UNSIGNED_LONG_LONG, m[T_U8] = MPI_UINT8_T, m[T_FLOAT] = MPI_FLOAT,
    m[T_DOUBLE] = MPI_DOUBLE, m[T_LDOUBLE] = MPI_LONG_DOUBLE,
    m[T_DCOMPLEX] = MPI_C_DOUBLE_COMPLEX, m[T_2INT] = MPI_2INT, m[T_FLOAT_INT] = MPI_FLOAT_INT,
    m[T_DOUBLE_INT] = MPI_DOUBLE_INT;
    return m[t];
}
static int is_int(int t) { return t <= T_U8; }
static int is_pair(int t) { return t >= T_2INT; }

struct di { double d; int i; };
struct fi { float f; int i; };

static void set(int t, void *p, int v, int idx)
{
    switch (t) {
    case T_INT: *(int *)p = v; break;
    case T_LONG: *(long *)p = v; break;
    case T_SHORT: *(short *)p = (short)v; break;
    case T_ULL: *(unsigned long long *)p = (unsigned long long)(v < 0 ? -v : v); break;
    case T_U8: *(uint8_t *)p = (uint8_t)(v < 0 ? -v : v); break;
    case T_FLOAT: *(float *)p = (float)v; break;
    case T_DOUBLE: *(double *)p = v; break;
    case T_LDOUBLE: *(long double *)p = v; break;
    case T_DCOMPLEX: *(double complex *)p = v + 0.5 * v * I; break;
    case T_2INT: ((int *)p)[0] = v, ((int *)p)[1] = idx; break;
    case T_FLOAT_INT: ((struct fi *)p)->f = (float)v, ((struct fi *)p)->i = idx; break;
    case T_DOUBLE_INT: ((struct di *)p)->d = v, ((struct di *)p)->i = idx; break;
    }
}

static int same(int t, const void *a, const void *b)
{
    switch (t) {
    case T_LDOUBLE: return *(const long double *)a == *(const long double *)b;
    case T_DCOMPLEX: return *(const double complex *)a == *(const double complex *)b;
    case T_FLOAT_INT:
        return ((const struct fi *)a)->f == ((const struct fi *)b)->f &&
               ((const struct fi *)a)->i == ((const struct fi *)b)->i;
    case T_DOUBLE_INT:
        return ((const struct di *)a)->d == ((const struct di *)b)->d &&
               ((const struct di *)a)->i == ((const struct di *)b)->i;
    default: {
        int s;
        MPI_Type_size(ttype(t), &s);
        return memcmp(a, b, (size_t)s) == 0;
    }
    }
}

static int value(int r, int i, int op_is_prod)
{
    int v = (r * 7 + i * 3) % 5 - 1;   /* -1 .. 3 */
    if (op_is_prod && v == 0)
        v = 2;
    return v;
}

static void ops_of(int t, MPI_Op *ops, int *n)
{
    int k = 0;
    ops[k++] = MPI_REPLACE;
    if (is_pair(t)) {
        ops[k++] = MPI_MINLOC;
        ops[k++] = MPI_MAXLOC;
    } else {
        ops[k++] = MPI_SUM;
        ops[k++] = MPI_PROD;
        if (t != T_DCOMPLEX) {
            ops[k++] = MPI_MIN;
            ops[k++] = MPI_MAX;
        }
        if (is_int(t)) {
            ops[k++] = MPI_LAND, ops[k++] = MPI_LOR, ops[k++] = MPI_LXOR;
            ops[k++] = MPI_BAND, ops[k++] = MPI_BOR, ops[k++] = MPI_BXOR;
        }
    }
    *n = k;
}

/* All ranks accumulate into rank 0 (contiguous), and into rank
 * (me+1)%np through derived types on both sides; the targets check. */
static void acc_all(MPI_Win win, char *mem, int t, MPI_Op op, int derived)
{
    MPI_Datatype T = ttype(t);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(T, &lb, &ext);
    int prod = op == MPI_PROD;
    char *src = malloc((size_t)(3 * N * ext)), *want = malloc((size_t)(N * ext)),
         *tmp = malloc((size_t)(3 * N * ext));
    for (int i = 0; i < N; i++)
        set(t, mem + i * ext, prod ? 1 : value(100, i, 0), 1000);
    CHECK_RC(MPI_Win_fence(0, win));
    int target = derived ? (me + 1) % np : 0, cnt = derived ? N / 2 : N;
    if (!derived) {
        for (int i = 0; i < N; i++)
            set(t, src + i * ext, value(me, i, prod), me);
        CHECK_RC(MPI_Accumulate(src, N, T, 0, 0, N, T, op, win));
    } else {
        /* origin: every 3rd element; target: every 2nd */
        for (int i = 0; i < cnt; i++)
            set(t, src + 3 * i * ext, value(me, i, prod), me);
        MPI_Datatype o3, t2;
        MPI_Type_create_hvector(cnt, 1, 3 * ext, T, &o3);
        MPI_Type_create_hvector(cnt, 1, 2 * ext, T, &t2);
        MPI_Type_commit(&o3);
        MPI_Type_commit(&t2);
        CHECK_RC(MPI_Accumulate(src, 1, o3, target, 0, 1, t2, op, win));
        MPI_Type_free(&o3);
        MPI_Type_free(&t2);
    }
    CHECK_RC(MPI_Win_fence(0, win));
    if (derived || me == 0) {
        /* who accumulated here, serially */
        for (int i = 0; i < N; i++)
            set(t, want + i * ext, prod ? 1 : value(100, i, 0), 1000);
        int first = derived ? (me + np - 1) % np : 0, n = derived ? 1 : np;
        for (int k = 0; k < n; k++) {
            int r = first + k;
            for (int i = 0; i < cnt; i++)
                set(t, tmp + i * ext, value(r, i, prod), r);
            for (int i = 0; i < cnt; i++) {
                char *w = want + (derived ? 2 * i : i) * ext;
                if (op == MPI_REPLACE && (derived || r == 0))
                    memcpy(w, tmp + i * ext, (size_t)ext);
                else if (op != MPI_REPLACE)
                    CHECK_RC(MPI_Reduce_local(tmp + i * ext, w, 1, T, op));
            }
        }
        for (int i = 0; i < N; i++) {
            if (op == MPI_REPLACE && !derived && i < cnt) {
                /* some rank's value, whole */
                int ok = 0;
                for (int r = 0; r < np && !ok; r++) {
                    set(t, tmp, value(r, i, 0), r);
                    ok = same(t, tmp, mem + i * ext);
                }
                CHECK(ok, "%s REPLACE: element %d is no rank's value", tname[t], i);
                continue;
            }
            CHECK(same(t, want + i * ext, mem + i * ext), "%s op %d %s: element %d differs",
                  tname[t], (int)(intptr_t)op, derived ? "derived" : "contiguous", i);
        }
    }
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    free(src);
    free(want);
    free(tmp);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Fetch-and-op +1 from everybody on one counter of rank 0: the fetched
 * values, over all ranks, are exactly 0 .. np*K-1. */
static void fetch_counter(MPI_Win win, char *mem, MPI_Datatype T, int K)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(T, &lb, &ext);
    memset(mem, 0, (size_t)ext);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    long *seen = malloc(sizeof(long) * (size_t)K), *all = malloc(sizeof(long) * (size_t)(K * np));
    char one[32], old[32];
    memset(one, 0, sizeof one);
    if (T == MPI_INT) *(int *)one = 1;
    else if (T == MPI_DOUBLE) *(double *)one = 1;
    else *(long double *)one = 1;
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int k = 0; k < K; k++) {
        CHECK_RC(MPI_Fetch_and_op(one, old, T, 0, 0, MPI_SUM, win));
        seen[k] = T == MPI_INT ? *(int *)old
                  : T == MPI_DOUBLE ? (long)*(double *)old : (long)*(long double *)old;
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Allgather(seen, K, MPI_LONG, all, K, MPI_LONG, MPI_COMM_WORLD));
    qsort(all, (size_t)(K * np), sizeof *all, cmp_long);
    for (int i = 0; i < K * np; i++)
        CHECK(all[i] == i, "fetch_and_op: fetched values are not a permutation (%ld at %d)",
              all[i], i);
    free(seen);
    free(all);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

/* A CAS spin lock on mem[0] of rank 0 protecting a non-atomic counter
 * (get, flush, put) at mem[1]. */
static void cas_mutex(MPI_Win win, int *mem, int K)
{
    mem[0] = mem[1] = 0;
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int k = 0; k < K; k++) {
        int mine = me + 1, zero = 0, old = -1, c;
        do {
            CHECK_RC(MPI_Compare_and_swap(&mine, &zero, &old, MPI_INT, 0, 0, win));
            CHECK_RC(MPI_Win_flush(0, win));
        } while (old != 0);
        CHECK_RC(MPI_Get(&c, 1, MPI_INT, 0, sizeof(int), 1, MPI_INT, win));
        CHECK_RC(MPI_Win_flush(0, win));
        c++;
        CHECK_RC(MPI_Put(&c, 1, MPI_INT, 0, sizeof(int), 1, MPI_INT, win));
        CHECK_RC(MPI_Win_flush(0, win));
        CHECK_RC(MPI_Compare_and_swap(&zero, &mine, &old, MPI_INT, 0, 0, win));
        CHECK(old == mine, "CAS mutex held by %d, not by us", old);
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        CHECK(mem[1] == np * K && mem[0] == 0, "CAS mutex: counter %d, want %d", mem[1], np * K);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

/* Exclusive locks around get / put of a counter; shared locks beside. */
static void lock_counter(MPI_Win win, int *mem, int K)
{
    mem[1] = 0;
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < K; k++) {
        int c;
        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_RC(MPI_Get(&c, 1, MPI_INT, 0, sizeof(int), 1, MPI_INT, win));
        CHECK_RC(MPI_Win_flush_local(0, win));
        c++;
        CHECK_RC(MPI_Put(&c, 1, MPI_INT, 0, sizeof(int), 1, MPI_INT, win));
        CHECK_RC(MPI_Win_unlock(0, win));
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK_RC(MPI_Get(&c, 1, MPI_INT, 0, sizeof(int), 1, MPI_INT, win));
        CHECK_RC(MPI_Win_flush_local_all(win));
        CHECK_RC(MPI_Win_unlock(0, win));
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        CHECK(mem[1] == np * K, "locked counter %d, want %d", mem[1], np * K);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

/* Swaps through get_accumulate(REPLACE): the values fetched by all ranks
 * and the final one are the initial value and every rank's id, once. */
static void swap_chain(MPI_Win win, long *mem)
{
    mem[2] = -1;
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    long mine = me, old = -7, now = -7, all[2 * 64];
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_RC(MPI_Get_accumulate(&mine, 1, MPI_LONG, &old, 1, MPI_LONG, 0, 2 * sizeof(long), 1, MPI_LONG,
                                MPI_REPLACE, win));
    MPI_Request r;
    CHECK_RC(MPI_Rget_accumulate(NULL, 0, MPI_DATATYPE_NULL, &now, 1, MPI_LONG, 0, 2 * sizeof(long), 1,
                                 MPI_LONG, MPI_NO_OP, win, &r));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Win_unlock(0, win));
    CHECK(now >= 0 && now < np, "NO_OP fetched %ld", now);
    CHECK_RC(MPI_Allgather(&old, 1, MPI_LONG, all, 1, MPI_LONG, MPI_COMM_WORLD));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        all[np] = mem[2];
        qsort(all, (size_t)np + 1, sizeof *all, cmp_long);
        for (int i = 0; i <= np; i++)
            CHECK(all[i] == i - 1, "swap chain: %ld at %d", all[i], i);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    /* Raccumulate + request */
    CHECK_RC(MPI_Win_lock_all(0, win));
    long one = 1;
    CHECK_RC(MPI_Raccumulate(&one, 1, MPI_LONG, 0, 3 * sizeof(long), 1, MPI_LONG, MPI_SUM, win, &r));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

static void run(MPI_Win win, char *mem)
{
    for (int t = 0; t < T_N; t++) {
        MPI_Op ops[16];
        int nops;
        ops_of(t, ops, &nops);
        for (int o = 0; o < nops; o++) {
            acc_all(win, mem, t, ops[o], 0);
            if (!is_pair(t))
                acc_all(win, mem, t, ops[o], 1);
        }
    }
    int K = np > 4 ? 30 : 100;
    fetch_counter(win, mem, MPI_INT, K);
    fetch_counter(win, mem, MPI_DOUBLE, K);
    fetch_counter(win, mem, MPI_LONG_DOUBLE, K / 2);
    cas_mutex(win, (int *)(void *)mem, K / 2);
    lock_counter(win, (int *)(void *)mem, K / 2);
    ((long *)(void *)mem)[3] = 0;
    swap_chain(win, (long *)(void *)mem);
    if (me == 0)
        CHECK(((long *)(void *)mem)[3] == np, "Raccumulate: %ld", ((long *)(void *)mem)[3]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    size_t bytes = 3 * N * 32;
    char *mem;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    run(win, mem);
    CHECK_RC(MPI_Win_free(&win));
    /* SMAP_COPY=bounce: peers reach this one only through the target */
    mem = malloc(bytes);
    CHECK_RC(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    run(win, mem);
    CHECK_RC(MPI_Win_free(&win));
    free(mem);
    MPI_Finalize();
    return 0;
}
