/* Every non-blocking collective against results computed serially: sizes
 * 0, 1, odd and large, types int, double and a strided vector, MPI_IN_PLACE
 * where MPI allows it, MPI_SUM and a non-commutative user op (affine map
 * composition), on MPI_COMM_WORLD.  Arguments: "quick" skips the large
 * size; "blocking" runs the blocking collectives on a communicator without
 * a control block instead (the schedule fallback: WORLD's dups until the
 * 8 blocks are gone). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

typedef struct {
    MPI_Datatype t;
    int dbl, ext, nb, offs[2];
    const char *name;
} ty_t;

static ty_t T[3];
static int me, np;
static MPI_Comm comm;

static double val(int r, long e, int k)
{
    return (double)((r * 1009 + e * 7 + k * 3) % 97 + 1);
}

static double get(const void *b, const ty_t *t, long e, int k)
{
    long u = e * t->ext + t->offs[k];
    return t->dbl ? ((const double *)b)[u] : ((const int *)b)[u];
}

static void set(void *b, const ty_t *t, long e, int k, double v)
{
    long u = e * t->ext + t->offs[k];
    if (t->dbl)
        ((double *)b)[u] = v;
    else
        ((int *)b)[u] = (int)v;
}

static void *alloc(const ty_t *t, long n)
{
    size_t units = (size_t)(n > 0 ? n : 1) * (size_t)t->ext;
    void *b = malloc(units * (t->dbl ? sizeof(double) : sizeof(int)));
    CHECK(b, "out of memory");
    for (size_t u = 0; u < units; u++)
        if (t->dbl)
            ((double *)b)[u] = -1;
        else
            ((int *)b)[u] = -1;
    return b;
}

/* Element e of rank r's contribution, at position at of buf. */
static void fill(void *b, const ty_t *t, long at, long n, int r, long e0)
{
    for (long e = 0; e < n; e++)
        for (int k = 0; k < t->nb; k++)
            set(b, t, at + e, k, val(r, e0 + e, k));
}

static void expect(const void *b, const ty_t *t, long at, long e, int k, double want,
                   const char *what)
{
    double got = get(b, t, at + e, k);
    CHECK(got == want, "%s %s np %d: element %ld.%d = %g, expected %g", what, t->name, np, e, k,
          got, want);
}

static void done(MPI_Request *r)
{
    if (comm != MPI_COMM_WORLD && *r == MPI_REQUEST_NULL)
        return;   /* blocking mode */
    /* alternate Wait and a Test loop */
    static int flip;
    if (flip++ & 1) {
        CHECK_RC(MPI_Wait(r, MPI_STATUS_IGNORE));
    } else {
        int f = 0;
        while (!f)
            CHECK_RC(MPI_Test(r, &f, MPI_STATUS_IGNORE));
    }
    CHECK(*r == MPI_REQUEST_NULL, "request not freed");
}

static int blocking;
#define RUN(nb, b) (blocking ? (b) : (nb))

static void t_bcast(const ty_t *t, long n)
{
    int root = (int)(n % np);
    void *b = alloc(t, n);
    if (me == root)
        fill(b, t, 0, n, root, 0);
    MPI_Request r = MPI_REQUEST_NULL;
    CHECK_RC(RUN(MPI_Ibcast(b, (int)n, t->t, root, comm, &r), MPI_Bcast(b, (int)n, t->t, root, comm)));
    done(&r);
    for (long e = 0; e < n; e++)
        for (int k = 0; k < t->nb; k++)
            expect(b, t, 0, e, k, val(root, e, k), "bcast");
    free(b);
}

static double sum_all(long e, int k, int from, int to)
{
    double s = 0;
    for (int r = from; r < to; r++)
        s += val(r, e, k);
    return s;
}

static void t_reduce(const ty_t *t, long n, int inplace)
{
    int root = np - 1;
    void *s = alloc(t, n), *b = alloc(t, n);
    fill(me == root && inplace ? b : s, t, 0, n, me, 0);
    const void *sb = me == root && inplace ? MPI_IN_PLACE : s;
    MPI_Request r = MPI_REQUEST_NULL;
    CHECK_RC(RUN(MPI_Ireduce(sb, b, (int)n, t->t, MPI_SUM, root, comm, &r),
                 MPI_Reduce(sb, b, (int)n, t->t, MPI_SUM, root, comm)));
    done(&r);
    if (me == root)
        for (long e = 0; e < n; e++)
            for (int k = 0; k < t->nb; k++)
                expect(b, t, 0, e, k, sum_all(e, k, 0, np), "reduce");
    for (long e = 0; e < n && !(me == root && inplace); e++)
        expect(s, t, 0, e, 0, val(me, e, 0), "reduce sendbuf");
    free(s);
    free(b);
}

static void t_allreduce(const ty_t *t, long n, int inplace)
{
    void *s = alloc(t, n), *b = alloc(t, n);
    fill(inplace ? b : s, t, 0, n, me, 0);
    MPI_Request r = MPI_REQUEST_NULL;
    const void *sb = inplace ? MPI_IN_PLACE : s;
    CHECK_RC(RUN(MPI_Iallreduce(sb, b, (int)n, t->t, MPI_SUM, comm, &r),
                 MPI_Allreduce(sb, b, (int)n, t->t, MPI_SUM, comm)));
    done(&r);
    for (long e = 0; e < n; e++)
        for (int k = 0; k < t->nb; k++)
            expect(b, t, 0, e, k, sum_all(e, k, 0, np), "allreduce");
    free(s);
    free(b);
}

static void t_scan(const ty_t *t, long n, int inplace, int ex)
{
    void *s = alloc(t, n), *b = alloc(t, n);
    fill(inplace ? b : s, t, 0, n, me, 0);
    MPI_Request r = MPI_REQUEST_NULL;
    const void *sb = inplace ? MPI_IN_PLACE : s;
    if (ex)
        CHECK_RC(RUN(MPI_Iexscan(sb, b, (int)n, t->t, MPI_SUM, comm, &r),
                     MPI_Exscan(sb, b, (int)n, t->t, MPI_SUM, comm)));
    else
        CHECK_RC(RUN(MPI_Iscan(sb, b, (int)n, t->t, MPI_SUM, comm, &r),
                     MPI_Scan(sb, b, (int)n, t->t, MPI_SUM, comm)));
    done(&r);
    if (!ex || me > 0)
        for (long e = 0; e < n; e++)
            for (int k = 0; k < t->nb; k++)
                expect(b, t, 0, e, k, sum_all(e, k, 0, ex ? me : me + 1), ex ? "exscan" : "scan");
    free(s);
    free(b);
}

/* Block j of a "v" layout: count j%3 + n, placed in reverse rank order. */
static long vcount(int j, long n) { return n ? n + j % 3 : 0; }
static long vdispl(int j, long n)
{
    long d = 0;
    for (int i = np - 1; i > j; i--)
        d += vcount(i, n) + 1;
    return d;
}

static void t_redscat(const ty_t *t, long n, int inplace, int block)
{
    int rc[64];
    long total = 0, off = 0;
    for (int j = 0; j < np; j++) {
        rc[j] = (int)(block ? n : vcount(j, n));
        if (j < me)
            off += rc[j];
        total += rc[j];
    }
    void *s = alloc(t, total), *b = alloc(t, inplace ? total : rc[me]);
    fill(inplace ? b : s, t, 0, total, me, 0);
    MPI_Request r = MPI_REQUEST_NULL;
    const void *sb = inplace ? MPI_IN_PLACE : s;
    if (block)
        CHECK_RC(RUN(MPI_Ireduce_scatter_block(sb, b, (int)n, t->t, MPI_SUM, comm, &r),
                     MPI_Reduce_scatter_block(sb, b, (int)n, t->t, MPI_SUM, comm)));
    else
        CHECK_RC(RUN(MPI_Ireduce_scatter(sb, b, rc, t->t, MPI_SUM, comm, &r),
                     MPI_Reduce_scatter(sb, b, rc, t->t, MPI_SUM, comm)));
    done(&r);
    for (long e = 0; e < rc[me]; e++)
        for (int k = 0; k < t->nb; k++)
            expect(b, t, 0, e, k, sum_all(off + e, k, 0, np), "reduce_scatter");
    free(s);
    free(b);
}

/* The contribution of rank j in the data-moving collectives: val(j, ...) */
static void t_gather(const ty_t *t, long n, int inplace, int v)
{
    int root = 1 % np, rc[64], dp[64];
    long total = 0;
    for (int j = 0; j < np; j++) {
        rc[j] = (int)(v ? vcount(j, n) : n);
        dp[j] = (int)(v ? vdispl(j, n) : j * n);
        total = dp[j] + rc[j] > total ? dp[j] + rc[j] : total;
    }
    void *s = alloc(t, rc[me]), *b = alloc(t, total);
    fill(s, t, 0, rc[me], me, 0);
    if (inplace && me == root)
        fill(b, t, dp[me], rc[me], me, 0);
    const void *sb = inplace && me == root ? MPI_IN_PLACE : s;
    MPI_Request r = MPI_REQUEST_NULL;
    if (v)
        CHECK_RC(RUN(MPI_Igatherv(sb, rc[me], t->t, b, rc, dp, t->t, root, comm, &r),
                     MPI_Gatherv(sb, rc[me], t->t, b, rc, dp, t->t, root, comm)));
    else
        CHECK_RC(RUN(MPI_Igather(sb, (int)n, t->t, b, (int)n, t->t, root, comm, &r),
                     MPI_Gather(sb, (int)n, t->t, b, (int)n, t->t, root, comm)));
    done(&r);
    if (me == root)
        for (int j = 0; j < np; j++)
            for (long e = 0; e < rc[j]; e++)
                expect(b, t, dp[j], e, t->nb - 1, val(j, e, t->nb - 1), v ? "gatherv" : "gather");
    free(s);
    free(b);
}

static void t_scatter(const ty_t *t, long n, int inplace, int v)
{
    int root = np / 2, sc[64], dp[64];
    long total = 0;
    for (int j = 0; j < np; j++) {
        sc[j] = (int)(v ? vcount(j, n) : n);
        dp[j] = (int)(v ? vdispl(j, n) : j * n);
        total = dp[j] + sc[j] > total ? dp[j] + sc[j] : total;
    }
    void *s = alloc(t, total), *b = alloc(t, sc[me]);
    if (me == root)
        for (int j = 0; j < np; j++)
            fill(s, t, dp[j], sc[j], j, 0);
    void *rb = inplace && me == root ? MPI_IN_PLACE : b;
    MPI_Request r = MPI_REQUEST_NULL;
    if (v)
        CHECK_RC(RUN(MPI_Iscatterv(s, sc, dp, t->t, rb, sc[me], t->t, root, comm, &r),
                     MPI_Scatterv(s, sc, dp, t->t, rb, sc[me], t->t, root, comm)));
    else
        CHECK_RC(RUN(MPI_Iscatter(s, (int)n, t->t, rb, (int)n, t->t, root, comm, &r),
                     MPI_Scatter(s, (int)n, t->t, rb, (int)n, t->t, root, comm)));
    done(&r);
    if (rb != MPI_IN_PLACE)
        for (long e = 0; e < sc[me]; e++)
            for (int k = 0; k < t->nb; k++)
                expect(b, t, 0, e, k, val(me, e, k), v ? "scatterv" : "scatter");
    free(s);
    free(b);
}

static void t_allgather(const ty_t *t, long n, int inplace, int v)
{
    int rc[64], dp[64];
    long total = 0;
    for (int j = 0; j < np; j++) {
        rc[j] = (int)(v ? vcount(j, n) : n);
        dp[j] = (int)(v ? vdispl(j, n) : j * n);
        total = dp[j] + rc[j] > total ? dp[j] + rc[j] : total;
    }
    void *s = alloc(t, rc[me]), *b = alloc(t, total);
    fill(inplace ? b : s, t, inplace ? dp[me] : 0, rc[me], me, 0);
    const void *sb = inplace ? MPI_IN_PLACE : s;
    MPI_Request r = MPI_REQUEST_NULL;
    if (v)
        CHECK_RC(RUN(MPI_Iallgatherv(sb, rc[me], t->t, b, rc, dp, t->t, comm, &r),
                     MPI_Allgatherv(sb, rc[me], t->t, b, rc, dp, t->t, comm)));
    else
        CHECK_RC(RUN(MPI_Iallgather(sb, (int)n, t->t, b, (int)n, t->t, comm, &r),
                     MPI_Allgather(sb, (int)n, t->t, b, (int)n, t->t, comm)));
    done(&r);
    for (int j = 0; j < np; j++)
        for (long e = 0; e < rc[j]; e++)
            for (int k = 0; k < t->nb; k++)
                expect(b, t, dp[j], e, k, val(j, e, k), v ? "allgatherv" : "allgather");
    free(s);
    free(b);
}

/* kind 0 alltoall, 1 v, 2 w.  Block from i to j: count n + (i+j)%2 (v, w),
 * element e of it val(i*64+j, e). */
static void t_alltoall(const ty_t *t, long n, int inplace, int kind)
{
    int sc[64], sd[64], rc[64], rd[64], sdb[64], rdb[64];
    MPI_Datatype ts[64];
    long stot = 0, rtot = 0;
    int ub = t->ext * (t->dbl ? 8 : 4);
    for (int j = 0; j < np; j++) {
        sc[j] = (int)(kind && n ? n + (me + j) % 2 : n);
        rc[j] = (int)(kind && n ? n + (j + me) % 2 : n);
        ts[j] = t->t;
    }
    /* reverse order displacements */
    for (int j = np - 1; j >= 0; j--) {
        sd[j] = (int)(kind ? stot : j * n);
        rd[j] = (int)(kind ? rtot : j * n);
        stot += sc[j];
        rtot += rc[j];
        sdb[j] = sd[j] * ub;
        rdb[j] = rd[j] * ub;
    }
    if (inplace)
        for (int j = 0; j < np; j++)
            sc[j] = rc[j];
    void *s = alloc(t, stot + rtot), *b = alloc(t, rtot);
    for (int j = 0; j < np; j++)
        fill(inplace ? b : s, t, inplace ? rd[j] : sd[j], inplace ? rc[j] : sc[j], me * 64 + j, 0);
    const void *sb = inplace ? MPI_IN_PLACE : s;
    MPI_Request r = MPI_REQUEST_NULL;
    if (kind == 0)
        CHECK_RC(RUN(MPI_Ialltoall(sb, (int)n, t->t, b, (int)n, t->t, comm, &r),
                     MPI_Alltoall(sb, (int)n, t->t, b, (int)n, t->t, comm)));
    else if (kind == 1)
        CHECK_RC(RUN(MPI_Ialltoallv(sb, sc, sd, t->t, b, rc, rd, t->t, comm, &r),
                     MPI_Alltoallv(sb, sc, sd, t->t, b, rc, rd, t->t, comm)));
    else
        CHECK_RC(RUN(MPI_Ialltoallw(sb, sc, sdb, ts, b, rc, rdb, ts, comm, &r),
                     MPI_Alltoallw(sb, sc, sdb, ts, b, rc, rdb, ts, comm)));
    done(&r);
    for (int j = 0; j < np; j++)
        for (long e = 0; e < rc[j]; e++)
            for (int k = 0; k < t->nb; k++)
                expect(b, t, rd[j], e, k, val(j * 64 + me, e, k), "alltoall");
    free(s);
    free(b);
}

/* ---- the non-commutative user op: pairs (m, c), x -> m x + c; in op inout
 * = inout after in (in holds the lower ranks). */
#define P 9973
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        int m = (int)((long)a[2 * i] * b[2 * i] % P);
        int c = (int)(((long)a[2 * i + 1] * b[2 * i] + b[2 * i + 1]) % P);
        b[2 * i] = m;
        b[2 * i + 1] = c;
    }
}

static void pair_of(int r, long e, int out[2])
{
    out[0] = 1 + (int)((r + e) % 5);
    out[1] = (int)((r * 13 + e) % 101);
}

/* Fold of ranks [from, to) for element e. */
static void fold(int from, int to, long e, int out[2])
{
    pair_of(from, e, out);
    for (int r = from + 1; r < to; r++) {
        int x[2], len = 1;
        pair_of(r, e, x);
        affine(out, x, &len, NULL);
        out[0] = x[0];
        out[1] = x[1];
    }
}

static void t_userop(MPI_Op op, MPI_Datatype pair, long n)
{
    int *s = malloc((size_t)(n * np + 1) * 2 * sizeof(int));
    int *b = malloc((size_t)(n * np + 1) * 2 * sizeof(int));
    for (long e = 0; e < n * np; e++)
        pair_of(me, e, &s[2 * e]);
    int want[2];
    MPI_Request r = MPI_REQUEST_NULL;
    for (int which = 0; which < 5; which++) {
        int cnt = (int)n;
        if (which == 0)
            CHECK_RC(RUN(MPI_Ireduce(s, b, cnt, pair, op, 0, comm, &r),
                         MPI_Reduce(s, b, cnt, pair, op, 0, comm)));
        else if (which == 1)
            CHECK_RC(RUN(MPI_Iallreduce(s, b, cnt, pair, op, comm, &r),
                         MPI_Allreduce(s, b, cnt, pair, op, comm)));
        else if (which == 2)
            CHECK_RC(RUN(MPI_Iscan(s, b, cnt, pair, op, comm, &r),
                         MPI_Scan(s, b, cnt, pair, op, comm)));
        else if (which == 3)
            CHECK_RC(RUN(MPI_Iexscan(s, b, cnt, pair, op, comm, &r),
                         MPI_Exscan(s, b, cnt, pair, op, comm)));
        else
            CHECK_RC(RUN(MPI_Ireduce_scatter_block(s, b, cnt, pair, op, comm, &r),
                         MPI_Reduce_scatter_block(s, b, cnt, pair, op, comm)));
        done(&r);
        if ((which == 0 && me != 0) || (which == 3 && me == 0))
            continue;
        for (long e = 0; e < n; e++) {
            long ge = which == 4 ? me * n + e : e;
            fold(0, which == 2 ? me + 1 : which == 3 ? me : np, ge, want);
            CHECK(b[2 * e] == want[0] && b[2 * e + 1] == want[1],
                  "user op %d np %d elem %ld: (%d,%d) expected (%d,%d)", which, np, e, b[2 * e],
                  b[2 * e + 1], want[0], want[1]);
        }
    }
    free(s);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int quick = argc > 1 && !strcmp(argv[1], "quick");
    blocking = argc > 1 && !strcmp(argv[1], "blocking");
    comm = MPI_COMM_WORLD;
    MPI_Comm extra[8];
    int nextra = 0;
    if (blocking) {
        /* WORLD and SELF hold 2 of the 8 control blocks, 6 dups the rest:
         * the 7th dup has none and runs its collectives as schedules */
        for (nextra = 0; nextra < 7; nextra++)
            CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &extra[nextra]));
        comm = extra[6];
    }
    MPI_Datatype vec, pair;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    T[0] = (ty_t){ MPI_INT, 0, 1, 1, { 0, 0 }, "int" };
    T[1] = (ty_t){ MPI_DOUBLE, 1, 1, 1, { 0, 0 }, "double" };
    T[2] = (ty_t){ vec, 0, 3, 2, { 0, 2 }, "vector" };
    long sizes[4] = { 0, 1, 7, 131072 };
    int nsizes = quick ? 3 : 4;
    for (int ti = 0; ti < 3; ti++) {
        for (int si = 0; si < nsizes; si++) {
            long n = sizes[si], nb = si == 3 ? n / np : n;
            t_bcast(&T[ti], n);
            for (int ip = 0; ip < 2; ip++) {
                t_reduce(&T[ti], n, ip);
                t_allreduce(&T[ti], n, ip);
                t_scan(&T[ti], n, ip, 0);
                t_scan(&T[ti], n, ip, 1);
                t_redscat(&T[ti], nb, ip, 1);
                t_redscat(&T[ti], nb, ip, 0);
                for (int v = 0; v < 2; v++) {
                    t_gather(&T[ti], nb, ip, v);
                    t_scatter(&T[ti], nb, ip, v);
                    t_allgather(&T[ti], nb, ip, v);
                }
                for (int k = 0; k < 3; k++)
                    t_alltoall(&T[ti], si == 3 ? nb / np : nb, ip, k);
            }
        }
    }
    MPI_Op op;
    MPI_Op_create(affine, 0, &op);
    t_userop(op, pair, 1);
    t_userop(op, pair, 5);
    if (!quick)
        t_userop(op, pair, 20000);
    MPI_Op_free(&op);
    MPI_Type_free(&vec);
    MPI_Type_free(&pair);
    for (int i = 0; i < nextra; i++)
        MPI_Comm_free(&extra[i]);
    MPI_Finalize();
    return 0;
}
