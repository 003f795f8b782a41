/* Data-moving collectives (Bcast, Gather(v), Scatter(v), Allgather(v),
 * Alltoall(v,w)) on MPI_COMM_WORLD and MPI_COMM_SELF, against results
 * computed here serially.  Sizes 0, 1, odd, mid and ~4 MiB in all; types
 * MPI_INT and a vector type with holes (2 ints in a 3-int extent) on either
 * side (the holes must stay untouched); MPI_IN_PLACE wherever allowed.
 *
 * Arguments: "stack" puts every buffer on the main thread's stack (and
 * drops the large sizes); "quick" only runs the small sizes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#define SENT (-777777)

static int me, np, use_stack, quick;
static char ctx[96];   /* the case being run, for failure messages */
static MPI_Datatype VEC;   /* 2 ints at 0 and 2: extent 3 ints */

/* A buffer type: how many ints one element carries and where. */
struct ty {
    MPI_Datatype dt;
    int per, ext;          /* stream ints per element, extent in ints */
    const char *name;
};
static struct ty T_INT, T_VEC;

static int V(int who, long k)
{
    return who * 100003 + (int)(k % 99991);
}

/* Writes stream ints f(k), k = first.. into n elements at buf. */
static void put(int *buf, const struct ty *t, long n, int who, long first)
{
    for (long e = 0; e < n; e++)
        for (int j = 0; j < t->per; j++)
            buf[e * t->ext + (t->ext == 1 ? 0 : 2 * j)] = V(who, first + e * t->per + j);
}

static void expect(const int *buf, const struct ty *t, long n, int who, long first,
                   const char *what)
{
    for (long e = 0; e < n; e++)
        for (int j = 0; j < t->per; j++) {
            int got = buf[e * t->ext + (t->ext == 1 ? 0 : 2 * j)];
            int want = V(who, first + e * t->per + j);
            CHECK(got == want, "%s (%s) np %d [%s]: element %ld.%d is %d, want %d", what,
                  t->name, np, ctx, e, j, got, want);
        }
    if (t->ext == 3)
        for (long e = 0; e < n; e++)
            CHECK(buf[e * 3 + 1] == SENT, "%s: hole of element %ld overwritten", what, e);
}

/* One buffer pool: heap (exposed) or the main stack (alloca in main). */
static int *pool;
static size_t pool_ints, pool_used;

static int *get(size_t ints)
{
    CHECK(pool_used + ints + 16 <= pool_ints, "test pool too small (%zu ints)", ints);
    int *p = pool + pool_used;
    pool_used += ints + 16;
    for (size_t i = 0; i < ints; i++)
        p[i] = SENT;
    return p;
}

static void bcast_case(MPI_Comm comm, const struct ty *t, long n, int root)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    pool_used = 0;
    snprintf(ctx, sizeof ctx, "count %ld root %d", n, root);
    int *b = get((size_t)(n * t->ext));
    if (rank == root)
        put(b, t, n, root, 0);
    CHECK_RC(MPI_Bcast(b, (int)n, t->dt, root, comm));
    expect(b, t, n, root, 0, "bcast");
}

/* Elements of type t that carry `pairs` pairs of ints. */
static long el(long pairs, const struct ty *t)
{
    return pairs * 2 / t->per;
}

/* Gather / Gatherv (vec: i%3 + n pairs from rank i, blocks in reverse order
 * with gaps).  n counts pairs of ints. */
static void gather_case(MPI_Comm comm, const struct ty *st, const struct ty *rt, long n, int root,
                        int vec, int inplace)
{
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    pool_used = 0;
    int counts[64], displs[64];
    long total = 0;
    for (int i = size - 1; i >= 0; i--) {
        counts[i] = (int)el(vec ? n + i % 3 : n, rt);
        displs[i] = (int)total;
        total += counts[i] + (vec ? 1 : 0);
    }
    if (!vec)
        for (int i = 0; i < size; i++)
            displs[i] = i * counts[0];
    long mine = el(vec ? n + rank % 3 : n, st);
    int *s = get((size_t)(mine * st->ext));
    int *r = get((size_t)((total + 1) * rt->ext));
    put(s, st, mine, rank, 0);
    const void *sb = s;
    if (inplace && rank == root) {
        put(r + displs[rank] * rt->ext, rt, counts[rank], rank, 0);
        sb = MPI_IN_PLACE;
    }
    if (vec)
        CHECK_RC(MPI_Gatherv(sb, (int)mine, st->dt, r, counts, displs, rt->dt, root, comm));
    else
        CHECK_RC(MPI_Gather(sb, (int)mine, st->dt, r, counts[0], rt->dt, root, comm));
    if (rank == root)
        for (int i = 0; i < size; i++)
            expect(r + displs[i] * rt->ext, rt, counts[i], i, 0, vec ? "gatherv" : "gather");
}

static void scatter_case(MPI_Comm comm, const struct ty *st, const struct ty *rt, long n,
                         int root, int vec, int inplace)
{
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    pool_used = 0;
    int counts[64], displs[64];
    long total = 0;
    for (int i = size - 1; i >= 0; i--) {
        counts[i] = (int)el(vec ? n + i % 3 : n, st);
        displs[i] = vec ? (int)total : i * counts[i];
        total += counts[i] + (vec ? 2 : 0);
    }
    if (!vec)
        total = (long)size * counts[0];
    long mine = el(vec ? n + rank % 3 : n, rt);
    int *s = get((size_t)((total + 1) * st->ext));
    int *r = get((size_t)(mine * rt->ext));
    if (rank == root)
        for (int i = 0; i < size; i++)
            put(s + displs[i] * st->ext, st, counts[i], 1000 + i, 0);
    void *rb = inplace && rank == root ? MPI_IN_PLACE : (void *)r;
    if (vec)
        CHECK_RC(MPI_Scatterv(s, counts, displs, st->dt, rb, (int)mine, rt->dt, root, comm));
    else
        CHECK_RC(MPI_Scatter(s, counts[0], st->dt, rb, (int)mine, rt->dt, root, comm));
    if (rb == MPI_IN_PLACE)
        expect(s + displs[rank] * st->ext, st, counts[rank], 1000 + rank, 0, "scatter in place");
    else
        expect(r, rt, mine, 1000 + rank, 0, vec ? "scatterv" : "scatter");
}

static void allgather_case(MPI_Comm comm, const struct ty *st, const struct ty *rt, long n,
                           int vec, int inplace)
{
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    pool_used = 0;
    int counts[64], displs[64];
    long total = 0;
    for (int i = size - 1; i >= 0; i--) {
        counts[i] = (int)el(vec ? n + i % 3 : n, rt);
        displs[i] = vec ? (int)total : i * counts[i];
        total += counts[i] + (vec ? 1 : 0);
    }
    if (!vec)
        total = (long)size * counts[0];
    long mine = el(vec ? n + rank % 3 : n, st);
    int *s = get((size_t)(mine * st->ext));
    int *r = get((size_t)((total + 1) * rt->ext));
    put(s, st, mine, rank, 0);
    const void *sb = s;
    if (inplace) {
        put(r + displs[rank] * rt->ext, rt, counts[rank], rank, 0);
        sb = MPI_IN_PLACE;
    }
    if (vec)
        CHECK_RC(MPI_Allgatherv(sb, (int)mine, st->dt, r, counts, displs, rt->dt, comm));
    else
        CHECK_RC(MPI_Allgather(sb, (int)mine, st->dt, r, counts[0], rt->dt, comm));
    for (int i = 0; i < size; i++)
        expect(r + displs[i] * rt->ext, rt, counts[i], i, 0, vec ? "allgatherv" : "allgather");
}

/* kind 0 alltoall, 1 alltoallv, 2 alltoallw (send types alternate). */
static void alltoall_case(MPI_Comm comm, const struct ty *st, const struct ty *rt, long n, int kind,
                          int inplace)
{
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    pool_used = 0;
    int sc[64], sd[64], rc[64], rd[64], soff[64], sdb[64], rdb[64];
    MPI_Datatype stypes[64], rtypes[64];
    const struct ty *sts[64];
    long stot = 0, rtot = 0, sints = 0;
    for (int j = 0; j < size; j++) {
        /* pairs: in place the counts must be symmetric */
        int k2 = inplace ? 1 : 2;
        long cs = kind ? n + (rank + k2 * j) % 3 : n, cr = kind ? n + (j + k2 * rank) % 3 : n;
        sts[j] = kind == 2 && j % 2 ? &T_VEC : st;
        if (inplace)
            sts[j] = rt;
        sc[j] = (int)el(cs, sts[j]);
        rc[j] = (int)el(cr, rt);
        sd[j] = (int)stot;
        rd[j] = (int)rtot;
        /* Alltoallw: byte displacements, blocks of mixed types */
        soff[j] = kind == 2 ? (int)sints : sd[j] * st->ext;
        sdb[j] = soff[j] * 4;
        rdb[j] = rd[j] * rt->ext * 4;
        sints += (long)sc[j] * sts[j]->ext + 3;
        stot += sc[j] + (kind ? 1 : 0);
        rtot += rc[j] + (kind ? 1 : 0);
        stypes[j] = sts[j]->dt;
        rtypes[j] = rt->dt;
    }
    int *s = get((size_t)((stot + 1) * 3 + sints));
    int *r = get((size_t)((rtot + 1) * rt->ext));
    for (int j = 0; j < size; j++)
        put((inplace ? r + rd[j] * rt->ext : s + soff[j]), sts[j], sc[j], rank * 64 + j, 0);
    const void *sb = inplace ? MPI_IN_PLACE : s;
    if (kind == 0)
        CHECK_RC(MPI_Alltoall(sb, sc[0], st->dt, r, rc[0], rt->dt, comm));
    else if (kind == 1)
        CHECK_RC(MPI_Alltoallv(sb, sc, sd, st->dt, r, rc, rd, rt->dt, comm));
    else
        CHECK_RC(MPI_Alltoallw(sb, sc, sdb, stypes, r, rc, rdb, rtypes, comm));
    for (int i = 0; i < size; i++)
        expect(r + rd[i] * rt->ext, rt, rc[i], i * 64 + rank, 0,
               kind == 0 ? "alltoall" : kind == 1 ? "alltoallv" : "alltoallw");
}

static void run_comm(MPI_Comm comm)
{
    int size;
    MPI_Comm_size(comm, &size);
    long big_total = (4L << 20) / 4;          /* ~4 MiB of ints */
    long sizes[] = { 0, 1, 7, 1000, 6000, big_total / size / 2 };   /* pairs of ints */
    int nsizes = quick || use_stack ? 4 : 6;
    if (comm == MPI_COMM_SELF)
        nsizes = 4;
    const struct ty *pairs[][2] = { { &T_INT, &T_INT }, { &T_VEC, &T_INT }, { &T_INT, &T_VEC } };
    for (int z = 0; z < nsizes; z++) {
        long n = sizes[z];
        for (int p = 0; p < 3; p++) {
            if (z == 5 && p == 2)
                continue;   /* the large size: both ways once is enough */
            const struct ty *st = pairs[p][0], *rt = pairs[p][1];
            int root = (int)((z + p) % size);
            bcast_case(comm, rt, el(z == 5 ? big_total / 2 : n, rt), root);
            for (int inpl = 0; inpl < 2; inpl++) {
                if (inpl && p != 0)
                    continue;
                for (int vec = 0; vec < 2; vec++) {
                    gather_case(comm, st, rt, n, size - 1 - root, vec, inpl);
                    scatter_case(comm, st, rt, n, root, vec, inpl);
                    allgather_case(comm, st, rt, n, vec, inpl);
                }
                for (int kind = 0; kind < 3; kind++)
                    alltoall_case(comm, st, rt, z == 5 ? n / size : n, kind, inpl);
            }
        }
    }
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
    MPI_Type_vector(2, 1, 2, MPI_INT, &VEC);
    MPI_Type_commit(&VEC);
    T_INT = (struct ty){ MPI_INT, 1, 1, "int" };
    T_VEC = (struct ty){ VEC, 2, 3, "vector" };
    pool_ints = (size_t)8 << 20;
    int *heap = NULL;
    if (use_stack) {
        pool_ints = 150000;   /* 600 KB on the main stack */
        pool = __builtin_alloca(pool_ints * sizeof(int));
    } else {
        heap = malloc(pool_ints * sizeof(int));
        pool = heap;
    }
    run_comm(MPI_COMM_WORLD);
    run_comm(MPI_COMM_SELF);
    free(heap);
    MPI_Type_free(&VEC);
    MPI_Finalize();
    if (me == 0)
        printf("PASS coll_move np %d%s%s\n", np, use_stack ? " stack" : "", quick ? " quick" : "");
    return 0;
}
