/* Dynamic windows between nodes by RDMA (src/rma/remote.c: the origin
 * fetches and caches each attached region's key, detach makes every
 * origin drop it first):
 *   - puts and gets of many sizes into a region of the next rank's
 *     window, contiguous and a few-block vector, checked byte by byte at
 *     the origin (get back) and at the target;
 *   - detach, then attach a smaller region at the same address: a put
 *     past the new end is MPI_ERR_RMA_RANGE (a stale cached key would
 *     have taken it, or failed at the target's provider and ended the
 *     job), a put inside lands;
 *   - a region the origins never touched detached and a new one attached
 *     elsewhere;
 *   - accumulates next to RDMA puts on the same region (messages).
 * Run with SMAP_RMA_NET_RMA=1 (RDMA) and 0 (messages): same results.
 * Rank r is the origin of rank (r+1) % np. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#define R1 (64 << 10)

static int me, np, tgt, from;

static unsigned char pat(int who, int round, size_t i)
{
    return (unsigned char)(who * 29 + round * 101 + i * 7 + (i >> 8) + 1);
}

/* Everybody's region address, gathered. */
static MPI_Aint *addrs(void *p)
{
    MPI_Aint mine = 0, *all = malloc((size_t)np * sizeof *all);
    CHECK(all, "out of memory");
    CHECK_RC(MPI_Get_address(p, &mine));
    CHECK_RC(MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD));
    return all;
}

static void check_bytes(const unsigned char *got, int who, int round, size_t off, size_t n,
                        const char *what)
{
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] == pat(who, round, off + i), "%s: byte %zu of %zu is 0x%02x, want 0x%02x",
              what, i, n, got[i], pat(who, round, off + i));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tgt = (me + 1) % np;
    from = (me + np - 1) % np;
    MPI_Win win;
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    unsigned char *reg = calloc(R1, 1), *src = malloc(R1), *back = malloc(R1);
    CHECK(reg && src && back, "out of memory");
    CHECK_RC(MPI_Win_attach(win, reg, R1));
    MPI_Aint *at = addrs(reg);

    /* round 0: sizes and offsets, put then get back, in one lock_all */
    static const size_t sizes[] = { 1, 8, 100, 4096, 20000, R1 / 2 };
    static const size_t offs[] = { 0, 9, 333, 4096, 30001, R1 / 2 };
    for (size_t i = 0; i < R1; i++)
        src[i] = pat(me, 0, i);
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k], o = offs[k];
        CHECK_RC(MPI_Put(src + o, (int)n, MPI_BYTE, tgt, at[tgt] + (MPI_Aint)o, (int)n, MPI_BYTE,
                         win));
        CHECK_RC(MPI_Win_flush(tgt, win));
        memset(back, 0, n);
        CHECK_RC(MPI_Get(back, (int)n, MPI_BYTE, tgt, at[tgt] + (MPI_Aint)o, (int)n, MPI_BYTE,
                         win));
        CHECK_RC(MPI_Win_flush(tgt, win));
        check_bytes(back, me, 0, o, n, "get back");
    }
    /* a few-block layout at the target: 3 blocks of 100 bytes, 1000 apart */
    MPI_Datatype vec;
    CHECK_RC(MPI_Type_vector(3, 100, 1000, MPI_BYTE, &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    CHECK_RC(MPI_Put(src + 10000, 300, MPI_BYTE, tgt, at[tgt] + 10000, 1, vec, win));
    CHECK_RC(MPI_Win_flush(tgt, win));
    memset(back, 0, 300);
    CHECK_RC(MPI_Get(back, 300, MPI_BYTE, tgt, at[tgt] + 10000, 1, vec, win));
    CHECK_RC(MPI_Win_flush(tgt, win));
    for (int b = 0; b < 3; b++)
        check_bytes(back + 100 * b, me, 0, 10000 + (size_t)b * 100, 100, "vector get");
    /* an accumulate on the same region (a message) after RDMA puts */
    long one = 1, old = -1;
    CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_LONG, tgt, at[tgt] + 64, MPI_SUM, win));
    CHECK(old == 0, "fetch_and_op next to puts fetched %ld", old);
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++)
        check_bytes(reg + offs[k], from, 0, offs[k], sizes[k], "target memory");
    for (int b = 0; b < 3; b++)
        check_bytes(reg + 10000 + (size_t)b * 1000, from, 0, 10000 + (size_t)b * 100, 100,
                    "target vector");
    long acc;
    memcpy(&acc, reg + 64, sizeof acc);
    CHECK(acc == 1, "fetch_and_op at the target: %ld", acc);

    /* round 1: detach, attach the first half again at the same address */
    CHECK_RC(MPI_Win_detach(win, reg));
    memset(reg, 0, R1);
    CHECK_RC(MPI_Win_attach(win, reg, R1 / 2));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    for (size_t i = 0; i < R1; i++)
        src[i] = pat(me, 1, i);
    CHECK_RC(MPI_Win_lock_all(0, win));
    int rc = MPI_Put(src, 100, MPI_BYTE, tgt, at[tgt] + 40000, 100, MPI_BYTE, win);
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "put past the re-attached region gave class %d", cls);
    CHECK_RC(MPI_Put(src + 200, 1000, MPI_BYTE, tgt, at[tgt] + 200, 1000, MPI_BYTE, win));
    CHECK_RC(MPI_Win_flush(tgt, win));
    CHECK_RC(MPI_Get(back, 1000, MPI_BYTE, tgt, at[tgt] + 200, 1000, MPI_BYTE, win));
    CHECK_RC(MPI_Win_unlock_all(win));
    check_bytes(back, me, 1, 200, 1000, "get after re-attach");
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    check_bytes(reg + 200, from, 1, 200, 1000, "target after re-attach");
    for (size_t i = 40000; i < 40100; i++)
        CHECK(reg[i] == 0, "byte %zu written past the re-attached region", i);

    /* round 2: a second region elsewhere, the first detached untouched */
    unsigned char *reg2 = calloc(R1, 1);
    CHECK(reg2, "out of memory");
    CHECK_RC(MPI_Win_attach(win, reg2, R1));
    CHECK_RC(MPI_Win_detach(win, reg));
    MPI_Aint *at2 = addrs(reg2);
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tgt, 0, win));
    CHECK_RC(MPI_Put(src, R1, MPI_BYTE, tgt, at2[tgt], R1, MPI_BYTE, win));
    CHECK_RC(MPI_Win_unlock(tgt, win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    check_bytes(reg2, from, 1, 0, R1, "second region");
    CHECK_RC(MPI_Win_detach(win, reg2));

    CHECK_RC(MPI_Type_free(&vec));
    CHECK_RC(MPI_Win_free(&win));
    free(at);
    free(at2);
    free(reg);
    free(reg2);
    free(src);
    free(back);
    MPI_Finalize();
    return 0;
}
