/* One-sided communication between nodes (src/rma/remote.c), what the
 * tests/rma programs do not show on their own:
 *   - flush is remote completion: after MPI_Win_flush the target sees the
 *     data with no synchronisation of its own (told by a message);
 *     flush_local lets the origin reuse its buffer;
 *   - large transfers cut into many messages, derived types on both sides;
 *   - accumulates from ranks on every node into one target on another
 *     node, many pieces each: no update is lost (element atomicity), and
 *     fetch-and-op counters hand out every value exactly once;
 *   - exclusive-lock contention from every node on one target;
 *   - a dynamic window across nodes: attach, detach, re-attach, and
 *     MPI_ERR_RMA_RANGE for an address not attached at the target;
 *   - error classes on remote targets (range, sync).
 * The target of the contended parts is the last rank (another node than
 * rank 0 in every multi-node layout). */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "smap_test.h"

static int me, np, tgt;

#define BIG (64 * 1024)   /* ints: 256 KiB, dozens of messages */

/* Rank 0 puts into the target under a lock, flushes, then tells it by a
 * message; the target checks its memory right away. */
static void flush_is_remote_completion(void)
{
    int *mem;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(BIG * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                              &win));
    memset(mem, 0, BIG * sizeof(int));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        int *src = malloc(BIG * sizeof(int));
        for (int i = 0; i < BIG; i++)
            src[i] = i * 3 + 1;
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, tgt, 0, win));
        CHECK_RC(MPI_Put(src, BIG, MPI_INT, tgt, 0, BIG, MPI_INT, win));
        CHECK_RC(MPI_Win_flush_local(tgt, win));
        memset(src, 0xff, BIG * sizeof(int));   /* reusable after flush_local */
        CHECK_RC(MPI_Win_flush(tgt, win));
        int go = 1;
        CHECK_RC(MPI_Send(&go, 1, MPI_INT, tgt, 7, MPI_COMM_WORLD));
        CHECK_RC(MPI_Win_unlock(tgt, win));
        free(src);
    } else if (me == tgt) {
        int go = 0;
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int bad = -1;
        for (int i = 0; i < BIG && bad < 0; i++)
            if (mem[i] != i * 3 + 1)
                bad = i;
        CHECK(bad < 0, "after the origin's flush, element %d is %d", bad, mem[bad < 0 ? 0 : bad]);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_free(&win));
}

/* Strided put and get of many messages: every other int of the target,
 * from a contiguous origin, and back into a strided origin. */
static void derived_large(void)
{
    int *mem;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(2 * BIG * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                              &mem, &win));
    for (int i = 0; i < 2 * BIG; i++)
        mem[i] = -1;
    MPI_Datatype every2;
    CHECK_RC(MPI_Type_vector(BIG, 1, 2, MPI_INT, &every2));
    CHECK_RC(MPI_Type_commit(&every2));
    int peer = (me + np / 2 + 1) % np;   /* often on another node */
    int *src = malloc(BIG * sizeof(int)), *back = malloc(2 * BIG * sizeof(int));
    for (int i = 0; i < BIG; i++)
        src[i] = me * 1000000 + i;
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Put(src, BIG, MPI_INT, peer, 1, 1, every2, win));
    CHECK_RC(MPI_Win_fence(0, win));
    int from = -1;
    for (int r = 0; r < np; r++)
        if ((r + np / 2 + 1) % np == me)
            from = r;
    int bad = -1;
    for (int i = 0; i < BIG && bad < 0; i++)
        if (mem[2 * i] != -1 || mem[2 * i + 1] != from * 1000000 + i)
            bad = i;
    CHECK(bad < 0, "strided put from %d: pair %d is %d,%d", from, bad, mem[2 * (bad < 0 ? 0 : bad)],
          mem[2 * (bad < 0 ? 0 : bad) + 1]);
    for (int i = 0; i < 2 * BIG; i++)
        back[i] = -5;
    CHECK_RC(MPI_Get(back, 1, every2, peer, 1, 1, every2, win));
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    bad = -1;
    for (int i = 0; i < BIG && bad < 0; i++)
        if (back[2 * i] != me * 1000000 + i || back[2 * i + 1] != -5)
            bad = i;
    CHECK(bad < 0, "strided get from %d: pair %d", peer, bad);
    MPI_Type_free(&every2);
    free(src);
    free(back);
    CHECK_RC(MPI_Win_free(&win));
}

/* Everybody adds to the same BIG-element long array of the target, and
 * fetch-and-ops one counter. */
static void contended_accumulates(void)
{
    long *mem;
    MPI_Win win;
    const int K = 20;
    CHECK_RC(MPI_Win_allocate((BIG + 1) * sizeof(long), sizeof(long), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &mem, &win));
    memset(mem, 0, (BIG + 1) * sizeof(long));
    long *one = malloc(BIG * sizeof(long));
    for (int i = 0; i < BIG; i++)
        one[i] = i + 1;
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    long seen[20], all[20 * 64];
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int k = 0; k < K; k++) {
        if (k < 3)
            CHECK_RC(MPI_Accumulate(one, BIG, MPI_LONG, tgt, 1, BIG, MPI_LONG, MPI_SUM, win));
        long inc = 1;
        CHECK_RC(MPI_Fetch_and_op(&inc, &seen[k], MPI_LONG, tgt, 0, MPI_SUM, win));
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Gather(seen, K, MPI_LONG, all, K, MPI_LONG, tgt, MPI_COMM_WORLD));
    if (me == tgt) {
        int *hit = calloc((size_t)(K * np), sizeof *hit);
        for (int i = 0; i < K * np; i++)
            if (all[i] >= 0 && all[i] < K * np)
                hit[all[i]]++;
        for (int i = 0; i < K * np; i++)
            CHECK(hit[i] == 1, "fetch_and_op handed out %ld %d times", (long)i, hit[i]);
        CHECK(mem[0] == K * np, "counter %ld, want %d", mem[0], K * np);
        int bad = -1;
        for (int i = 0; i < BIG && bad < 0; i++)
            if (mem[1 + i] != 3L * np * (i + 1))
                bad = i;
        CHECK(bad < 0, "accumulated element %d is %ld, want %ld", bad, mem[1 + (bad < 0 ? 0 : bad)],
              3L * np * (bad + 1));
        free(hit);
    }
    free(one);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_free(&win));
}

/* Exclusive locks from every node around a get-increment-put. */
static void lock_contention(void)
{
    int *mem;
    MPI_Win win;
    const int K = 15;
    CHECK_RC(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                              &win));
    mem[0] = 0;
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < K; k++) {
        int c = -1;
        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tgt, 0, win));
        CHECK_RC(MPI_Get(&c, 1, MPI_INT, tgt, 0, 1, MPI_INT, win));
        CHECK_RC(MPI_Win_flush(tgt, win));
        c++;
        CHECK_RC(MPI_Put(&c, 1, MPI_INT, tgt, 0, 1, MPI_INT, win));
        CHECK_RC(MPI_Win_unlock(tgt, win));
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, tgt, 0, win));
        CHECK_RC(MPI_Get(&c, 1, MPI_INT, tgt, 0, 1, MPI_INT, win));
        CHECK_RC(MPI_Win_unlock(tgt, win));
        CHECK(c >= k + 1 && c <= K * np, "counter read %d under a shared lock", c);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == tgt)
        CHECK(mem[0] == K * np, "locked counter %d, want %d", mem[0], K * np);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Win_free(&win));
}

/* A dynamic window: every rank attaches a region, everybody writes its
 * slot in its right neighbour's; then a second region replaces the first,
 * and the old address is out of range at the target. */
static void dynamic_window(void)
{
    MPI_Win win;
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    for (int round = 0; round < 2; round++) {
        long *reg = malloc(4096 * sizeof(long));
        for (int i = 0; i < 4096; i++)
            reg[i] = -1;
        CHECK_RC(MPI_Win_attach(win, reg, 4096 * sizeof(long)));
        MPI_Aint mine, theirs;
        MPI_Get_address(reg, &mine);
        CHECK_RC(MPI_Sendrecv(&mine, 1, MPI_AINT, left, 1, &theirs, 1, MPI_AINT, right, 1,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        long vals[4096], got[4096], one = 1, old = -9;
        for (int i = 0; i < 4096; i++)
            vals[i] = me * 10000 + round * 5000 + i;
        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
        CHECK_RC(MPI_Put(vals, 4095, MPI_LONG, right, theirs + sizeof(long), 4095, MPI_LONG, win));
        CHECK_RC(MPI_Accumulate(&one, 1, MPI_LONG, right, theirs, 1, MPI_LONG, MPI_SUM, win));
        CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_LONG, right, theirs, MPI_SUM, win));
        CHECK(old == 0, "fetch_and_op on a dynamic window fetched %ld", old);
        CHECK_RC(MPI_Win_flush(right, win));
        CHECK_RC(MPI_Get(got, 4096, MPI_LONG, right, theirs, 4096, MPI_LONG, win));
        CHECK_RC(MPI_Win_flush(right, win));
        CHECK(got[0] == 1 && got[1] == vals[0] && got[4095] == vals[4094],
              "dynamic get: %ld %ld %ld", got[0], got[1], got[4095]);
        /* one element past the region: not attached there */
        int c = smap_err_class(MPI_Put(&one, 1, MPI_LONG, right, theirs + 4096 * sizeof(long), 1, MPI_LONG,
                            win));
        CHECK(c == MPI_ERR_RMA_RANGE, "put past the attached region gave class %d", c);
        c = smap_err_class(MPI_Get(&old, 1, MPI_LONG, right, theirs - sizeof(long), 1, MPI_LONG, win));
        CHECK(c == MPI_ERR_RMA_RANGE, "get before the attached region gave class %d", c);
        CHECK_RC(MPI_Win_unlock(right, win));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(reg[0] == 1 && reg[1] == left * 10000 + round * 5000,
              "dynamic region holds %ld %ld", reg[0], reg[1]);
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_RC(MPI_Win_detach(win, reg));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        /* detached: the old address is gone at the target */
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
        c = smap_err_class(MPI_Get(&old, 1, MPI_LONG, right, theirs, 1, MPI_LONG, win));
        CHECK(c == MPI_ERR_RMA_RANGE, "get from a detached region gave class %d", c);
        CHECK_RC(MPI_Win_unlock(right, win));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        free(reg);
    }
    CHECK_RC(MPI_Win_free(&win));
}

static void errors(void)
{
    int *mem, x = 1;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                              &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int c = smap_err_class(MPI_Put(&x, 1, MPI_INT, tgt, 0, 1, MPI_INT, win));
    CHECK(c == MPI_ERR_RMA_SYNC, "put outside an epoch gave class %d", c);
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, tgt, 0, win));
    c = smap_err_class(MPI_Put(&x, 1, MPI_INT, tgt, 16, 1, MPI_INT, win));
    CHECK(c == MPI_ERR_RMA_RANGE, "put past the window gave class %d", c);
    c = smap_err_class(MPI_Win_lock(MPI_LOCK_SHARED, tgt, 0, win));
    CHECK(c == MPI_ERR_RMA_SYNC, "locking twice gave class %d", c);
    CHECK_RC(MPI_Win_unlock(tgt, win));
    /* a shared-memory window needs one node */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm node;
    int nn;
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &nn);
    MPI_Comm_free(&node);
    if (nn < np) {
        int *sm;
        MPI_Win sw = MPI_WIN_NULL;
        c = smap_err_class(MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &sm, &sw));
        CHECK(c == MPI_ERR_RMA_SHARED && sw == MPI_WIN_NULL,
              "a shared window across nodes gave class %d", c);
    }
    CHECK_RC(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tgt = np - 1;
    /* NET_RMA_TIMES=1: rank 0 prints how long each part took */
    double t0 = MPI_Wtime();
#define PHASE(f)                                                                           \
    do {                                                                                   \
        f();                                                                               \
        if (me == 0 && getenv("NET_RMA_TIMES"))                                            \
            fprintf(stderr, "%-28s %.2f s\n", #f, MPI_Wtime() - t0);                       \
        t0 = MPI_Wtime();                                                                  \
    } while (0)
    PHASE(flush_is_remote_completion);
    PHASE(derived_large);
    PHASE(contended_accumulates);
    PHASE(lock_contention);
    PHASE(dynamic_window);
    PHASE(errors);
    MPI_Finalize();
    return 0;
}
