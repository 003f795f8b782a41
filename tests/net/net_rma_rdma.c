/* One-sided transfers between nodes by RDMA write/read (src/rma/remote.c,
 * src/net/rma.c), what net_rma.c does not show:
 *   - windows over the program's own memory (MPI_Win_create on the heap
 *     and on a static array), sizes from 1 byte to past SMAP_NET_CHUNK
 *     (many pieces when the test sets a small chunk), odd displacements;
 *   - a target layout of a few blocks (one write/read per block) and of
 *     many blocks (the message path), both ways, checked element by element;
 *   - Rput / Rget: the origin buffer is reusable and the result present
 *     when the request completes;
 *   - remote completion seen by a third rank: rank 0 puts and flushes,
 *     tells rank 1, which gets the data from the target;
 *   - ranks with empty windows next to ranks with memory.
 * Run with SMAP_RMA_NET_RMA=1 (RDMA) and 0 (messages): same results. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

static int me, np, tgt;

#define N (256 << 10) /* bytes of the heap window: past a 4 KiB chunk, 64 pieces */
static unsigned char statwin[4096];

static unsigned char pat(int who, size_t i)
{
    return (unsigned char)(who * 37 + i * 7 + (i >> 9));
}

/* Sizes and displacements into a window over the heap, lock/flush and
 * fence, put then get back. */
static void create_heap_sizes(void)
{
    unsigned char *mem = malloc(N);
    memset(mem, 0, N);
    MPI_Win win;
    CHECK_RC(MPI_Win_create(mem, N, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    static const size_t sizes[] = { 1, 8, 63, 4096, 4097, 100000, N - 3 };
    static const size_t disps[] = { 0, 3, 1001, 0, 7, 12345, 3 };
    unsigned char *src = malloc(N), *back = malloc(N);
    for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k], d = disps[k];
        for (size_t i = 0; i < n; i++)
            src[i] = pat(me + (int)k, i);
        if (me == 0) {
            CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tgt, 0, win));
            CHECK_RC(MPI_Put(src, (int)n, MPI_BYTE, tgt, (MPI_Aint)d, (int)n, MPI_BYTE, win));
            CHECK_RC(MPI_Win_flush(tgt, win));
            memset(back, 0, n);
            CHECK_RC(MPI_Get(back, (int)n, MPI_BYTE, tgt, (MPI_Aint)d, (int)n, MPI_BYTE, win));
            CHECK_RC(MPI_Win_unlock(tgt, win));
            CHECK(memcmp(back, src, n) == 0, "lock: %zu bytes at %zu came back changed", n, d);
        }
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        if (me == tgt)
            for (size_t i = 0; i < n; i++)
                if (mem[d + i] != pat(k, i)) {
                    CHECK(0, "lock: byte %zu of %zu at %zu is %d", i, n, d, mem[d + i]);
                    break;
                }
        /* the same by fence, every rank to its right neighbour */
        CHECK_RC(MPI_Win_fence(0, win));
        int right = (me + 1) % np;
        CHECK_RC(MPI_Put(src, (int)n, MPI_BYTE, right, (MPI_Aint)d, (int)n, MPI_BYTE, win));
        CHECK_RC(MPI_Win_fence(0, win));
        int left = (me + np - 1) % np;
        for (size_t i = 0; i < n; i++)
            if (mem[d + i] != pat(left + (int)k, i)) {
                CHECK(0, "fence: byte %zu of %zu at %zu from %d is %d", i, n, d, left,
                      mem[d + i]);
                break;
            }
        memset(back, 0, n);
        CHECK_RC(MPI_Get(back, (int)n, MPI_BYTE, right, (MPI_Aint)d, (int)n, MPI_BYTE, win));
        CHECK_RC(MPI_Win_fence(0, win));
        CHECK(memcmp(back, src, n) == 0, "fence: %zu bytes from %d came back changed", n, right);
        CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    }
    CHECK_RC(MPI_Win_free(&win));
    free(src);
    free(back);
    free(mem);
}

/* Vector target layouts: 8 blocks (RDMA: one transfer per block) and
 * 1000 blocks (messages), put from a contiguous origin, get into a
 * strided one, on a static array window. */
static void vectors(void)
{
    int *mem = (int *)(void *)statwin;
    const int nint = (int)(sizeof statwin / sizeof(int));
    MPI_Win win;
    CHECK_RC(MPI_Win_create(mem, sizeof statwin, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &win));
    static const int shape[2][3] = { { 8, 13, 40 }, { 500, 1, 2 } };   /* count, blen, stride */
    for (int s = 0; s < 2; s++) {
        int cnt = shape[s][0], bl = shape[s][1], st = shape[s][2];
        MPI_Datatype v;
        CHECK_RC(MPI_Type_vector(cnt, bl, st, MPI_INT, &v));
        CHECK_RC(MPI_Type_commit(&v));
        for (int i = 0; i < nint; i++)
            mem[i] = -1;
        int total = cnt * bl;
        int *src = malloc((size_t)total * sizeof(int));
        for (int i = 0; i < total; i++)
            src[i] = me * 100000 + s * 10000 + i;
        int peer = (me + np / 2 + 1) % np, from = -1;
        for (int r = 0; r < np; r++)
            if ((r + np / 2 + 1) % np == me)
                from = r;
        CHECK_RC(MPI_Win_fence(0, win));
        CHECK_RC(MPI_Put(src, total, MPI_INT, peer, 2, 1, v, win));
        CHECK_RC(MPI_Win_fence(0, win));
        int bad = -1;
        for (int b = 0, e = 0; b < cnt && bad < 0; b++)
            for (int j = 0; j < st && bad < 0; j++) {
                int idx = 2 + b * st + j;
                if (idx >= nint || (b == cnt - 1 && j >= bl))
                    break;
                int want = j < bl ? from * 100000 + s * 10000 + e : -1;
                if (mem[idx] != want)
                    bad = idx;
                if (j < bl)
                    e++;
            }
        CHECK(bad < 0, "vector %d: int %d is %d", s, bad, bad < 0 ? 0 : mem[bad]);
        int *back = malloc((size_t)(cnt * st) * sizeof(int));
        for (int i = 0; i < cnt * st; i++)
            back[i] = -7;
        CHECK_RC(MPI_Get(back, 1, v, peer, 2, 1, v, win));
        CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        bad = -1;
        for (int b = 0, e = 0; b < cnt && bad < 0; b++)
            for (int j = 0; j < bl; j++, e++)
                if (back[b * st + j] != me * 100000 + s * 10000 + e)
                    bad = b * st + j;
        CHECK(bad < 0, "vector %d get: int %d is %d", s, bad, bad < 0 ? 0 : back[bad]);
        CHECK(cnt * st <= bl || back[bl] == -7, "vector %d get wrote a gap", s);
        free(back);
        free(src);
        MPI_Type_free(&v);
    }
    CHECK_RC(MPI_Win_free(&win));
}

/* Request-based: buffer reusable / result present at completion; a third
 * rank sees rank 0's flushed data. */
static void requests_and_third_party(void)
{
    long *mem;
    MPI_Win win;
    const int n = 4096;
    MPI_Aint sz = me == tgt || me == 0 ? n * (MPI_Aint)sizeof(long) : 0;   /* others: empty */
    CHECK_RC(MPI_Win_allocate(sz, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (MPI_Aint i = 0; i < sz / (MPI_Aint)sizeof(long); i++)
        mem[i] = 0;
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_lock_all(0, win));
    if (me == 0 && tgt != 0) {
        long *buf = malloc(n * sizeof(long));
        MPI_Request r;
        for (int rep = 0; rep < 4; rep++) {
            for (int i = 0; i < n; i++)
                buf[i] = rep * 1000000L + i;
            CHECK_RC(MPI_Rput(buf, n, MPI_LONG, tgt, 0, n, MPI_LONG, win, &r));
            CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
            memset(buf, 0xee, n * sizeof(long));   /* reusable now */
            CHECK_RC(MPI_Win_flush(tgt, win));
        }
        int go = 1;
        CHECK_RC(MPI_Send(&go, 1, MPI_INT, 1, 9, MPI_COMM_WORLD));
        free(buf);
    }
    if (me == 1 && tgt != 0) {
        int go;
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        long *got = malloc(n * sizeof(long));
        MPI_Request r;
        CHECK_RC(MPI_Rget(got, n, MPI_LONG, tgt, 0, n, MPI_LONG, win, &r));
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
        int bad = -1;
        for (int i = 0; i < n && bad < 0; i++)
            if (got[i] != 3 * 1000000L + i)
                bad = i;
        CHECK(bad < 0, "third rank: element %d is %ld after the origin's flush", bad,
              got[bad < 0 ? 0 : bad]);
        free(got);
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tgt = np - 1;
    create_heap_sizes();
    vectors();
    requests_and_third_party();
    MPI_Finalize();
    return 0;
}
