/* Bulk accumulates racing element atomics (src/rma/node.c): every rank
 * accumulates whole vectors (the bulk path: one lock, the op's plain loop)
 * and single elements (element atomics, fetch_and_op, compare_and_swap)
 * into the same elements of rank 0's window at the same time, under
 * MPI_Win_lock_all; the result is checked exactly.  MPI_SUM on MPI_LONG,
 * MPI_REPLACE (plus get_accumulate of it) on MPI_LONG, MPI_MINLOC on
 * MPI_2INT; windows from MPI_Win_allocate and MPI_Win_create. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#define L 10000     /* elements of the vectors: bulk, over more than one 64 KiB chunk */
#define ROUNDS 4
#define SMALL 32    /* single-element operations per round */
#define HOT 32      /* hot phase: short bulk accumulates ... */
#define HOT_ITERS 3000   /* ... each followed by a fetch_and_op into them */

static int me, np;

/* Element k's target of rank r's small operation j in round q. */
static int small_at(int r, int q, int j)
{
    return (int)(((unsigned)r * 977u + (unsigned)q * 131u + (unsigned)j * 89u) % L);
}

static void sum_phase(MPI_Win win, long *mem)
{
    static long vec[L];
    for (int i = 0; i < L; i++)
        vec[i] = (long)(me + 1) * (i % 7 + 1);
    if (me == 0)
        memset(mem, 0, L * sizeof(long));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int q = 0; q < ROUNDS; q++) {
        CHECK_RC(MPI_Accumulate(vec, L, MPI_LONG, 0, 0, L, MPI_LONG, MPI_SUM, win));
        for (int j = 0; j < SMALL; j++) {
            long one = 1, old;
            int at = small_at(me, q, j);
            if (j % 2)
                CHECK_RC(MPI_Accumulate(&one, 1, MPI_LONG, 0, at, 1, MPI_LONG, MPI_SUM, win));
            else
                CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, at, MPI_SUM, win));
        }
        /* a get_accumulate of the whole vector: fetched values only grow */
        if (q == ROUNDS / 2) {
            static long got[L];
            CHECK_RC(MPI_Get_accumulate(vec, L, MPI_LONG, got, L, MPI_LONG, 0, 0, L, MPI_LONG,
                                        MPI_SUM, win));
            for (int i = 0; i < L; i++)
                CHECK(got[i] >= (long)(q + 1) * (me + 1) * (i % 7 + 1),
                      "get_accumulate fetched %ld at %d", got[i], i);
        }
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me != 0)
        return;
    long bad = 0;
    for (int i = 0; i < L; i++) {
        long want = 0;
        for (int r = 0; r < np; r++) {
            want += (long)(ROUNDS + 1) * (r + 1) * (i % 7 + 1);   /* + the get_accumulate */
            for (int q = 0; q < ROUNDS; q++)
                for (int j = 0; j < SMALL; j++)
                    want += small_at(r, q, j) == i;
        }
        if (mem[i] != want && bad++ < 5)
            CHECK(0, "SUM: element %d is %ld, want %ld", i, mem[i], want);
    }
}

/* Short bulk accumulates and fetch_and_op on the same few elements, many
 * times: a plain loop overlapping an atomic loses an update here. */
static void hot_phase(MPI_Win win, long *mem)
{
    long vec[HOT];
    for (int i = 0; i < HOT; i++)
        vec[i] = i + 1;
    if (me == 0)
        memset(mem, 0, HOT * sizeof(long));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int k = 0; k < HOT_ITERS; k++) {
        long one = 1000, old;
        CHECK_RC(MPI_Accumulate(vec, HOT, MPI_LONG, 0, 0, HOT, MPI_LONG, MPI_SUM, win));
        CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, (k * 7 + me) % HOT, MPI_SUM, win));
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me != 0)
        return;
    for (int i = 0; i < HOT; i++) {
        long want = (long)np * HOT_ITERS * (i + 1);
        for (int r = 0; r < np; r++)
            for (int k = 0; k < HOT_ITERS; k++)
                want += (k * 7 + r) % HOT == i ? 1000 : 0;
        if (mem[i] != want) {
            CHECK(0, "hot SUM: element %d is %ld, want %ld", i, mem[i], want);
            break;
        }
    }
}

/* REPLACE: every value names its writer and its element; a torn or lost
 * element would not decode. */
static long tag(int r, int i, int small) { return ((long)(r + 1) << 40) | ((long)small << 32) | i; }

static int valid(long v, int i)
{
    return v == -1 || ((v & 0xffffffffL) == i && (v >> 40) >= 1 && (v >> 40) <= np);
}

static void replace_phase(MPI_Win win, long *mem)
{
    static long vec[L], got[L];
    for (int i = 0; i < L; i++)
        vec[i] = tag(me, i, 0);
    if (me == 0)
        for (int i = 0; i < L; i++)
            mem[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int q = 0; q < ROUNDS; q++) {
        CHECK_RC(MPI_Get_accumulate(vec, L, MPI_LONG, got, L, MPI_LONG, 0, 0, L, MPI_LONG,
                                    MPI_REPLACE, win));
        for (int i = 0; i < L; i++)
            if (!valid(got[i], i)) {
                CHECK(0, "REPLACE: fetched %lx at %d", (unsigned long)got[i], i);
                break;
            }
        for (int j = 0; j < SMALL; j++) {
            int at = small_at(me, q, j);
            long v = tag(me, at, 1);
            CHECK_RC(MPI_Accumulate(&v, 1, MPI_LONG, 0, at, 1, MPI_LONG, MPI_REPLACE, win));
        }
        CHECK_RC(MPI_Accumulate(vec, L, MPI_LONG, 0, 0, L, MPI_LONG, MPI_REPLACE, win));
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        for (int i = 0; i < L; i++)
            if (mem[i] == -1 || !valid(mem[i], i)) {
                CHECK(0, "REPLACE: element %d is %lx", i, (unsigned long)mem[i]);
                break;
            }
}

/* MINLOC on value-index pairs: the exact minimum of every contribution. */
static int minval(int r, int q, int i) { return (int)((r * 7919 + q * 104729 + i * 31) % 1000); }

static void minloc_phase(MPI_Win win, int *mem)
{
    static int vec[2 * L];
    if (me == 0)
        for (int i = 0; i < L; i++)
            mem[2 * i] = 1000000, mem[2 * i + 1] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int q = 0; q < ROUNDS; q++) {
        for (int i = 0; i < L; i++)
            vec[2 * i] = minval(me, q, i), vec[2 * i + 1] = me * 100 + q;
        CHECK_RC(MPI_Accumulate(vec, L, MPI_2INT, 0, 0, L, MPI_2INT, MPI_MINLOC, win));
        for (int j = 0; j < SMALL; j++) {
            int at = small_at(me, q, j), p[2] = { minval(me, q, at) - 1, me * 100 + 50 + q };
            CHECK_RC(MPI_Accumulate(p, 1, MPI_2INT, 0, at, 1, MPI_2INT, MPI_MINLOC, win));
        }
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me != 0)
        return;
    for (int i = 0; i < L; i++) {
        int wv = 1000000, wi = -1;
        for (int r = 0; r < np; r++)
            for (int q = 0; q < ROUNDS; q++) {
                int c[2][2] = { { minval(r, q, i), r * 100 + q }, { 1000000, -1 } };
                for (int j = 0; j < SMALL; j++)
                    if (small_at(r, q, j) == i)
                        c[1][0] = minval(r, q, i) - 1, c[1][1] = r * 100 + 50 + q;
                for (int k = 0; k < 2; k++)
                    if (c[k][0] < wv || (c[k][0] == wv && c[k][1] < wi))
                        wv = c[k][0], wi = c[k][1];
            }
        if (mem[2 * i] != wv || mem[2 * i + 1] != wi) {
            CHECK(0, "MINLOC: element %d is (%d,%d), want (%d,%d)", i, mem[2 * i],
                  mem[2 * i + 1], wv, wi);
            break;
        }
    }
}

static void run(MPI_Win win, void *mem)
{
    hot_phase(win, mem);
    sum_phase(win, mem);
    replace_phase(win, mem);
    minloc_phase(win, mem);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Aint bytes = me == 0 ? (MPI_Aint)(L * sizeof(long)) : 0;
    void *mem;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    run(win, mem);
    CHECK_RC(MPI_Win_free(&win));
    mem = malloc((size_t)bytes + 8);
    CHECK_RC(MPI_Win_create(mem, bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    run(win, mem);
    CHECK_RC(MPI_Win_free(&win));
    free(mem);
    MPI_Finalize();
    return 0;
}
