/* The inline put/get path of MPI_Put and MPI_Get (src/rma/fast.h) and the
 * copy in pieces of large transfers: every byte lands where it should and
 * nowhere else (guard bytes around each range), at every small size and
 * unaligned offsets, at sizes around and past the piece threshold, up to
 * the last byte of the window; the range, type, rank and epoch errors at
 * its edges are those of the general path; an operation in a fence epoch
 * counts as one (a lock may not follow).  The same program runs with
 * SMAP_COPY=cma and bounce, where the MPI_Win_create window takes the
 * general path (CMA, served): the results must be the same.
 *
 * The fast path of MPI_Accumulate, MPI_Get_accumulate and MPI_Fetch_and_op
 * (src/rma/node.c: smap_rma_fast_acc) is checked the same way: values and
 * old values for the element atomics (integer SUM, REPLACE, NO_OP, MAX,
 * a floating SUM), the bulk loop, a misaligned element (locked path), and
 * the errors at its edges.
 *
 * Rank r is the origin of rank (r+1) % np's window (itself at 1 rank). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#define WIN ((size_t)2 << 20)   /* bytes of each window */
#define GUARD 0xEE

static int me, np, to, from;

static unsigned char pat(int rank, size_t i, size_t salt)
{
    unsigned char v = (unsigned char)(rank * 31 + i * 7 + salt * 13 + 1);
    return v == GUARD ? 0x11 : v;
}

/* got[0, n) == want[0, n), else fail naming the first differing byte. */
static void same(const unsigned char *got, const unsigned char *want, size_t n, const char *what,
                 size_t bytes)
{
    if (!memcmp(got, want, n))
        return;
    size_t i = 0;
    while (got[i] == want[i])
        i++;
    CHECK(0, "%s of %zu bytes: byte %zu is 0x%02x, want 0x%02x", what, bytes, i, got[i],
          want[i]);
}

/* The small ranges: size k+1 at offset 64k + k%8 (k < 48), disjoint. */
#define NSMALL 48
static size_t small_off(int k)
{
    return (size_t)k * 64 + (size_t)(k % 8);
}

/* Our window memory has been written by our origin: check every byte of
 * [0, upto) against the ranges it put (pattern of `from`), GUARD elsewhere. */
static void check_small(const unsigned char *mem, size_t upto, const char *what)
{
    for (size_t i = 0; i < upto; i++) {
        unsigned char want = GUARD;
        for (int k = 0; k < NSMALL; k++)
            if (i >= small_off(k) && i < small_off(k) + (size_t)k + 1)
                want = pat(from, i - small_off(k), (size_t)k);
        CHECK(mem[i] == want, "%s: byte %zu is 0x%02x, want 0x%02x", what, i, mem[i], want);
    }
}

static void sync_all(MPI_Win win)
{
    CHECK_RC(MPI_Win_sync(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_sync(win));
}

/* Small puts and gets, then large ones, in a lock_all epoch. */
static void data(unsigned char *mem, MPI_Win win, const char *flavor)
{
    unsigned char *src = malloc(WIN), *dst = malloc(WIN + 64), *want = malloc(WIN);
    CHECK(src && dst && want, "out of memory");

    /* small puts into our target, guards around each */
    memset(mem, GUARD, WIN);
    CHECK_RC(MPI_Win_lock_all(0, win));
    sync_all(win);
    for (int k = 0; k < NSMALL; k++) {
        for (int i = 0; i <= k; i++)
            src[i] = pat(me, (size_t)i, (size_t)k);
        CHECK_RC(MPI_Put(src, k + 1, MPI_BYTE, to, (MPI_Aint)small_off(k), k + 1, MPI_BYTE,
                         win));
    }
    CHECK_RC(MPI_Win_flush(to, win));
    sync_all(win);
    check_small(mem, 4096, flavor);

    /* small gets: our target's memory is its own pattern */
    for (size_t i = 0; i < WIN; i++)
        mem[i] = pat(me, i, 0);
    sync_all(win);
    for (int k = 0; k < NSMALL; k++) {
        memset(dst, GUARD, 128);
        CHECK_RC(MPI_Get(dst + 8, k + 1, MPI_BYTE, to, (MPI_Aint)small_off(k), k + 1, MPI_BYTE,
                         win));
        for (int i = 0; i < 128; i++) {
            unsigned char want = i >= 8 && i < 8 + k + 1
                                     ? pat(to, small_off(k) + (size_t)(i - 8), 0)
                                     : GUARD;
            CHECK(dst[i] == want, "%s: get of %d bytes: byte %d is 0x%02x, want 0x%02x",
                  flavor, k + 1, i, dst[i], want);
        }
    }
    /* the last bytes of the window, by put and by get */
    CHECK_RC(MPI_Get(dst, 5, MPI_BYTE, to, (MPI_Aint)(WIN - 5), 5, MPI_BYTE, win));
    for (int i = 0; i < 5; i++)
        CHECK(dst[i] == pat(to, WIN - 5 + (size_t)i, 0), "%s: last bytes", flavor);
    sync_all(win);

    /* large: around the piece threshold and past it, unaligned */
    static const size_t big[] = { ((size_t)512 << 10) - 1, (size_t)512 << 10,
                                  ((size_t)1 << 20) + 37, WIN - 3 };
    for (size_t b = 0; b < sizeof big / sizeof big[0]; b++) {
        size_t n = big[b], off = 3;
        memset(mem, GUARD, WIN);
        for (size_t i = 0; i < n; i++)
            src[i] = pat(me, i, b + 100);
        memset(want, GUARD, WIN);
        for (size_t i = 0; i < n; i++)
            want[off + i] = pat(from, i, b + 100);
        sync_all(win);
        CHECK_RC(MPI_Put(src, (int)n, MPI_BYTE, to, (MPI_Aint)off, (int)n, MPI_BYTE, win));
        CHECK_RC(MPI_Win_flush(to, win));
        sync_all(win);
        same(mem, want, WIN, flavor, n);   /* the range, and the guards around it */
        sync_all(win);
        dst[0] = dst[n + 1] = GUARD;
        CHECK_RC(MPI_Get(dst + 1, (int)n, MPI_BYTE, to, (MPI_Aint)off, (int)n, MPI_BYTE, win));
        CHECK(dst[0] == GUARD && dst[n + 1] == GUARD, "%s: get of %zu bytes wrote outside",
              flavor, n);
        same(dst + 1, src, n, flavor, n);
        sync_all(win);
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    free(src);
    free(dst);
    free(want);
}

/* The errors at the edges of the window of ints (disp_unit 4, n ints). */
static void edges(MPI_Win win, int *mem, int n)
{
    int x[4] = { 1, 2, 3, 4 }, y[2] = { 0, 0 };
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    EXPECT_CLASS(MPI_Put(x, 1, MPI_INT, to, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Get(x, 1, MPI_INT, to, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
    CHECK_RC(MPI_Put(x, 2, MPI_INT, to, n - 2, 2, MPI_INT, win));
    EXPECT_CLASS(MPI_Put(x, 2, MPI_INT, to, n - 1, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Get(x, 2, MPI_INT, to, n - 1, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Put(x, 1, MPI_INT, to, n, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Put(x, 1, MPI_INT, to, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Get(x, 1, MPI_INT, to, (MPI_Aint)INT32_MAX + 1, 1, MPI_INT, win),
           MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Put(x, 1, MPI_INT, np, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Get(x, 1, MPI_INT, -7, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Put(x, 3, MPI_SHORT, to, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Get(x, 1, MPI_INT, to, 0, -1, MPI_INT, win), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Get(x, 1, MPI_INT, to, 0, 1, MPI_DATATYPE_NULL, win), MPI_ERR_TYPE);
    CHECK_RC(MPI_Put(NULL, 0, MPI_INT, to, 0, 0, MPI_INT, win));
    CHECK_RC(MPI_Get(x, 1, MPI_INT, MPI_PROC_NULL, 1 << 30, 1, MPI_INT, win));
    /* other types, same signature: 2 ints as one MPI_2INT and back */
    CHECK_RC(MPI_Put(x + 2, 2, MPI_INT, to, 0, 1, MPI_2INT, win));
    CHECK_RC(MPI_Get(y, 1, MPI_2INT, to, 0, 2, MPI_INT, win));
    CHECK(y[0] == 3 && y[1] == 4, "2 ints through MPI_2INT: %d %d", y[0], y[1]);
    CHECK_RC(MPI_Win_unlock(to, win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(mem[n - 2] == 1 && mem[n - 1] == 2 && mem[0] == 3 && mem[1] == 4,
          "edges: %d %d %d %d", mem[n - 2], mem[n - 1], mem[0], mem[1]);

    /* a put in a fence epoch makes it one: no lock may follow */
    CHECK_RC(MPI_Win_fence(0, win));
    x[0] = 77;
    CHECK_RC(MPI_Put(x, 1, MPI_INT, to, 5, 1, MPI_INT, win));
    EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK(mem[5] == 77, "fence put: %d", mem[5]);
}


/* The accumulate fast path: values, old values and errors on a window of
 * n ints (disp_unit 4) plus a disp_unit-1 window of bytes for a
 * misaligned int. */
static void acc_edges(MPI_Win win, int *mem, int n, MPI_Win bwin, unsigned char *bmem)
{
    int one = 1, old = -1, v[16], got[16];
    double d = 0.5, dold = -1;
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    EXPECT_CLASS(MPI_Fetch_and_op(&one, &old, MPI_INT, to, 0, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Accumulate(&one, 1, MPI_INT, to, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
    /* element atomics: mem[0] 0 -> 1 -> 6, mem[1] max, mem[2] replaced */
    CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_INT, to, 0, MPI_SUM, win));
    CHECK(old == 0, "fetch_and_op SUM: old %d", old);
    int five = 5, nine = 9, seven = 7;
    CHECK_RC(MPI_Accumulate(&five, 1, MPI_INT, to, 0, 1, MPI_INT, MPI_SUM, win));
    CHECK_RC(MPI_Fetch_and_op(NULL, &old, MPI_INT, to, 0, MPI_NO_OP, win));
    CHECK(old == 6, "fetch_and_op NO_OP: %d", old);
    CHECK_RC(MPI_Accumulate(&nine, 1, MPI_INT, to, 1, 1, MPI_INT, MPI_MAX, win));
    CHECK_RC(MPI_Fetch_and_op(&seven, &old, MPI_INT, to, 1, MPI_MAX, win));
    CHECK(old == 9, "fetch_and_op MAX: old %d", old);
    CHECK_RC(MPI_Fetch_and_op(&seven, &old, MPI_INT, to, 2, MPI_REPLACE, win));
    CHECK(old == 0, "fetch_and_op REPLACE: old %d", old);
    /* a floating SUM (compare-exchange loop) on ints 4-5 as one double */
    CHECK_RC(MPI_Accumulate(&d, 1, MPI_DOUBLE, to, 4, 1, MPI_DOUBLE, MPI_SUM, win));
    CHECK_RC(MPI_Fetch_and_op(&d, &dold, MPI_DOUBLE, to, 4, MPI_SUM, win));
    CHECK(dold == 0.5, "fetch_and_op double SUM: old %g", dold);
    /* a few elements (atomics) and a bulk run (>= 8 elements, the loop) */
    for (int i = 0; i < 16; i++)
        v[i] = i + 1;
    CHECK_RC(MPI_Get_accumulate(v, 3, MPI_INT, got, 3, MPI_INT, to, 8, 3, MPI_INT, MPI_SUM, win));
    CHECK(got[0] == 0 && got[1] == 0 && got[2] == 0, "get_accumulate 3: %d %d %d", got[0],
          got[1], got[2]);
    CHECK_RC(MPI_Get_accumulate(v, 16, MPI_INT, got, 16, MPI_INT, to, 8, 16, MPI_INT, MPI_SUM,
                                win));
    CHECK(got[0] == 1 && got[2] == 3 && got[3] == 0 && got[15] == 0,
          "get_accumulate 16: %d %d %d %d", got[0], got[2], got[3], got[15]);
    CHECK_RC(MPI_Accumulate(v, 16, MPI_INT, to, 8, 16, MPI_INT, MPI_BXOR, win));
    /* the errors the general path raises, at the fast path's edges */
    CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT, to, n - 1, 1, MPI_INT, MPI_SUM, win));
    EXPECT_CLASS(MPI_Fetch_and_op(&one, &old, MPI_INT, to, n, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Fetch_and_op(&one, &old, MPI_INT, to, -1, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Accumulate(v, 2, MPI_INT, to, n - 1, 2, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Accumulate(v, 16, MPI_INT, to, n - 8, 16, MPI_INT, MPI_SUM, win),
           MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Fetch_and_op(&one, &old, MPI_INT, np, 0, MPI_SUM, win), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Fetch_and_op(&d, &dold, MPI_DOUBLE, to, 4, MPI_BAND, win), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Accumulate(&one, 1, MPI_INT, to, 0, 1, MPI_INT, MPI_NO_OP, win), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Accumulate(&one, 1, MPI_INT, to, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Accumulate(&one, -1, MPI_INT, to, 0, -1, MPI_INT, MPI_SUM, win), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Fetch_and_op(&one, &old, MPI_DATATYPE_NULL, to, 0, MPI_SUM, win), MPI_ERR_TYPE);
    CHECK_RC(MPI_Accumulate(&one, 0, MPI_INT, to, 0, 0, MPI_INT, MPI_SUM, win));
    CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_INT, MPI_PROC_NULL, 0, MPI_SUM, win));
    CHECK_RC(MPI_Win_unlock(to, win));

    /* an int at byte 2 of a disp_unit-1 window: misaligned, locked path */
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, bwin));
    CHECK_RC(MPI_Accumulate(&five, 1, MPI_INT, to, 2, 1, MPI_INT, MPI_SUM, bwin));
    CHECK_RC(MPI_Fetch_and_op(&seven, &old, MPI_INT, to, 2, MPI_SUM, bwin));
    CHECK(old == 5, "misaligned fetch_and_op: old %d", old);
    CHECK_RC(MPI_Win_unlock(to, bwin));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    int bint;
    memcpy(&bint, bmem + 2, sizeof bint);
    double dd;
    memcpy(&dd, mem + 4, sizeof dd);
    CHECK(mem[0] == 6 && mem[1] == 9 && mem[2] == 7 && dd == 1.0 && mem[n - 1] == 1 &&
              bint == 12,
          "accumulated: %d %d %d %g %d %d", mem[0], mem[1], mem[2], dd, mem[n - 1], bint);
    for (int i = 0; i < 16; i++) {
        int want = (i < 3 ? 2 * (i + 1) : i + 1) ^ (i + 1);
        CHECK(mem[8 + i] == want, "element %d: %d, want %d", 8 + i, mem[8 + i], want);
    }

    /* a fetch_and_op in a fence epoch makes it one: no lock may follow */
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_INT, to, 3, MPI_SUM, win));
    EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK(old == 0 && mem[3] == 1, "fence fetch_and_op: old %d, now %d", old, mem[3]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    to = (me + 1) % np;
    from = (me + np - 1) % np;

    unsigned char *mem;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate((MPI_Aint)WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    data(mem, win, "allocate");
    CHECK_RC(MPI_Win_free(&win));

    unsigned char *heap = malloc(WIN);
    CHECK(heap, "out of memory");
    CHECK_RC(MPI_Win_create(heap, (MPI_Aint)WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    data(heap, win, "create");
    CHECK_RC(MPI_Win_free(&win));
    free(heap);

    int n = 64, *ints;
    CHECK_RC(MPI_Win_allocate(n * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &ints, &win));
    memset(ints, 0, (size_t)n * sizeof(int));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    edges(win, ints, n);
    CHECK_RC(MPI_Win_free(&win));

    MPI_Win bwin;
    unsigned char *bytes;
    CHECK_RC(MPI_Win_allocate(n * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &ints, &win));
    CHECK_RC(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bytes, &bwin));
    memset(ints, 0, (size_t)n * sizeof(int));
    memset(bytes, 0, 64);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    acc_edges(win, ints, n, bwin, bytes);
    CHECK_RC(MPI_Win_free(&bwin));
    CHECK_RC(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
