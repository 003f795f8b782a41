/* What rma_sync, rma_acc, rma_misc and rma_fast leave out (the coverage
 * list of src/rma/README.md): the large-count twins (MPI_Win_create_c,
 * _allocate_c, _allocate_shared_c, MPI_Rput_c, MPI_Rget_c,
 * MPI_Accumulate_c, MPI_Get_accumulate_c, MPI_Raccumulate_c,
 * MPI_Rget_accumulate_c); accumulates, fetch-and-op and compare-and-swap
 * in every window flavour (create, allocate, shared, dynamic) and every
 * synchronisation mode (fence, PSCW, exclusive and shared lock, lock_all),
 * all ranks on one target at once with atomicity checked through the
 * fetched values; compare-and-swap and fetch-and-op on every integer
 * width, byte and bool; MPI_Win_set_info with the hints it changes; and the
 * error classes no other test raises (MPI_ERR_BASE, MPI_ERR_INFO,
 * MPI_ERR_RMA_CONFLICT, errors of the _c calls). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#define NL 16   /* longs in every rank's window */

enum { F_CREATE, F_ALLOCATE, F_SHARED, F_DYNAMIC, F_N };
enum { S_FENCE, S_PSCW, S_LOCK, S_LOCK_SHARED, S_LOCK_ALL, S_N };
static const char *fname[] = { "create_c", "allocate_c", "shared_c", "dynamic" };
static const char *sname[] = { "fence", "pscw", "lock", "lock-shared", "lock_all" };

static int me, np;

static void open_epoch(int s, MPI_Win win, MPI_Group g)
{
    switch (s) {
    case S_FENCE: CHECK_RC(MPI_Win_fence(0, win)); break;
    case S_PSCW:
        CHECK_RC(MPI_Win_post(g, 0, win));
        CHECK_RC(MPI_Win_start(g, 0, win));
        break;
    case S_LOCK: CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win)); break;
    case S_LOCK_SHARED: CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win)); break;
    case S_LOCK_ALL: CHECK_RC(MPI_Win_lock_all(0, win)); break;
    }
}

static void close_epoch(int s, MPI_Win win, MPI_Comm comm)
{
    switch (s) {
    case S_FENCE: CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win)); break;
    case S_PSCW:
        CHECK_RC(MPI_Win_complete(win));
        CHECK_RC(MPI_Win_wait(win));
        break;
    case S_LOCK:
    case S_LOCK_SHARED:
        CHECK_RC(MPI_Win_unlock(0, win));
        break;
    case S_LOCK_ALL:
        CHECK_RC(MPI_Win_flush_all(win));
        CHECK_RC(MPI_Win_unlock_all(win));
        break;
    }
    CHECK_RC(MPI_Barrier(comm));
    CHECK_RC(MPI_Win_sync(win));
}

/* Every rank of comm on rank 0's window in one epoch of mode s:
 *   [0..3]   Accumulate_c SUM of r+1 (contiguous)
 *   [4],[6]  Get_accumulate_c SUM of 1<<r through a strided type on the
 *            origin, target and result sides; the fetched values of all
 *            ranks must form a chain of subsets (each add saw a state)
 *   [8]      Raccumulate_c MAX of r
 *   [9]      Fetch_and_op BOR of 1<<r (same chain)
 *   [10]     Compare_and_swap -1 -> r: exactly one rank wins
 *   [11]     Rget_accumulate_c MIN of -r, fetching
 * then, in a second epoch, Rget_accumulate_c NO_OP, Rget_c and Rput_c
 * read everything back and write [12..15]. */
static void acc_epoch(int f, int s, MPI_Comm comm, MPI_Win win, long *mem, MPI_Aint base0,
                      MPI_Aint unit)
{
    int cme, cn;
    MPI_Comm_rank(comm, &cme);
    MPI_Comm_size(comm, &cn);
    MPI_Group g;
    MPI_Comm_group(comm, &g);
    MPI_Group g0;
    MPI_Group_incl(g, 1, (int[]){ 0 }, &g0);
    /* disp of long index i at rank 0 */
#define D(i) (base0 + (MPI_Aint)(i) * (MPI_Aint)sizeof(long) / unit)
    for (int i = 0; i < NL; i++)
        mem[i] = i == 10 ? -1 : i == 11 ? 1000 : 0;
    CHECK_RC(MPI_Barrier(comm));
    MPI_Datatype every2;
    MPI_Type_vector(2, 1, 2, MPI_LONG, &every2);
    MPI_Type_commit(&every2);
    long four[4], bits[3] = { 1L << cme, -5, 1L << cme }, got[3] = { -9, -9, -9 };
    for (int i = 0; i < 4; i++)
        four[i] = cme + 1;
    long mx = cme, bor = 1L << cme, fop_old = -9, cas_new = cme, cas_cmp = -1, cas_old = -9;
    long mn = -cme, mn_old = -9;
    MPI_Request rq[2];
    /* PSCW: only rank 0 exposes, everybody accesses rank 0 */
    if (s == S_PSCW) {
        if (cme == 0)
            CHECK_RC(MPI_Win_post(g, 0, win));
        CHECK_RC(MPI_Win_start(g0, 0, win));
    } else {
        open_epoch(s, win, g);
    }
    CHECK_RC(MPI_Accumulate_c(four, 4, MPI_LONG, 0, D(0), 4, MPI_LONG, MPI_SUM, win));
    CHECK_RC(MPI_Get_accumulate_c(bits, 1, every2, got, 1, every2, 0, D(4), 1, every2, MPI_SUM,
                                  win));
    CHECK_RC(MPI_Raccumulate_c(&mx, 1, MPI_LONG, 0, D(8), 1, MPI_LONG, MPI_MAX, win, &rq[0]));
    CHECK_RC(MPI_Fetch_and_op(&bor, &fop_old, MPI_LONG, 0, D(9), MPI_BOR, win));
    CHECK_RC(MPI_Compare_and_swap(&cas_new, &cas_cmp, &cas_old, MPI_LONG, 0, D(10), win));
    CHECK_RC(MPI_Rget_accumulate_c(&mn, 1, MPI_LONG, &mn_old, 1, MPI_LONG, 0, D(11), 1, MPI_LONG,
                                   MPI_MIN, win, &rq[1]));
    CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    if (s == S_PSCW) {
        CHECK_RC(MPI_Win_complete(win));
        if (cme == 0)
            CHECK_RC(MPI_Win_wait(win));
        CHECK_RC(MPI_Barrier(comm));
        CHECK_RC(MPI_Win_sync(win));
    } else {
        close_epoch(s, win, comm);
    }
    CHECK(got[1] == -9, "%s/%s: Get_accumulate_c wrote between the strided elements", fname[f],
          sname[s]);
    long all = (1L << cn) - 1;
    CHECK((got[0] & ~all) == 0 && !(got[0] & (1L << cme)) && (got[2] & ~all) == 0 &&
              !(got[2] & (1L << cme)),
          "%s/%s: Get_accumulate_c fetched %lx / %lx", fname[f], sname[s], (unsigned long)got[0],
          (unsigned long)got[2]);
    CHECK(!(fop_old & (1L << cme)) && (fop_old & ~all) == 0, "%s/%s: fetch_and_op fetched %lx",
          fname[f], sname[s], (unsigned long)fop_old);
    CHECK(mn_old <= 1000 && mn_old > -cn, "%s/%s: Rget_accumulate_c MIN fetched %ld", fname[f],
          sname[s], mn_old);
    /* atomicity: the fetched states of all ranks form a chain; each
     * state plus its own bit is another state or the final value */
    long *fx = malloc(sizeof(long) * 3 * (size_t)cn), mine[3] = { got[0], got[2], fop_old };
    CHECK_RC(MPI_Allgather(mine, 3, MPI_LONG, fx, 3, MPI_LONG, comm));
    for (int k = 0; k < 3; k++)
        for (int a = 0; a < cn; a++)
            for (int b = 0; b < cn; b++) {
                long x = fx[3 * a + k], y = fx[3 * b + k];
                CHECK((x & y) == x || (x & y) == y,
                      "%s/%s: %s fetched %lx and %lx: no single order of the adds", fname[f],
                      sname[s], k == 2 ? "fetch_and_op" : "get_accumulate", (unsigned long)x,
                      (unsigned long)y);
            }
    free(fx);
    int won = cas_old == -1, wins = 0;
    CHECK(cas_old == -1 || (cas_old >= 0 && cas_old < cn), "%s/%s: CAS fetched %ld", fname[f],
          sname[s], cas_old);
    CHECK_RC(MPI_Allreduce(&won, &wins, 1, MPI_INT, MPI_SUM, comm));
    CHECK(wins == 1, "%s/%s: %d ranks won the compare-and-swap", fname[f], sname[s], wins);

    /* read back with NO_OP / Rget_c, write with Rput_c */
    long back[12], back2[12], put[4];
    for (int i = 0; i < 4; i++)
        put[i] = cme * 10 + i;
    open_epoch(s == S_PSCW ? S_LOCK_ALL : s, win, g);
    CHECK_RC(MPI_Rget_accumulate_c(NULL, 0, MPI_DATATYPE_NULL, back, 12, MPI_LONG, 0, D(0), 12,
                                   MPI_LONG, MPI_NO_OP, win, &rq[0]));
    CHECK_RC(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Rget_c(back2, 12, MPI_LONG, 0, D(0), 12, MPI_LONG, win, &rq[0]));
    CHECK_RC(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    if (cme == cn - 1)
        CHECK_RC(MPI_Rput_c(put, 4, MPI_LONG, 0, D(12), 4, MPI_LONG, win, &rq[1]));
    else
        rq[1] = MPI_REQUEST_NULL;
    CHECK_RC(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    close_epoch(s == S_PSCW ? S_LOCK_ALL : s, win, comm);
    long sum = (long)cn * (cn + 1) / 2;
    for (int i = 0; i < 12; i++) {
        long want = i < 4 ? sum
                    : i == 4 || i == 6 || i == 9 ? all
                    : i == 8 ? cn - 1
                    : i == 11 ? -(cn - 1) : i == 10 ? -2 : 0;
        if (i == 10)
            CHECK(back[10] >= 0 && back[10] < cn, "%s/%s: CAS left %ld", fname[f], sname[s],
                  back[10]);
        else
            CHECK(back[i] == want, "%s/%s: [%d] = %ld, want %ld", fname[f], sname[s], i, back[i],
                  want);
        CHECK(back2[i] == back[i], "%s/%s: Rget_c [%d] = %ld, NO_OP read %ld", fname[f],
              sname[s], i, back2[i], back[i]);
    }
    if (cme == 0)
        for (int i = 0; i < 4; i++)
            CHECK(mem[12 + i] == (cn - 1) * 10 + i, "%s/%s: Rput_c [%d] = %ld", fname[f],
                  sname[s], 12 + i, mem[12 + i]);
    CHECK_RC(MPI_Barrier(comm));
#undef D
    MPI_Type_free(&every2);
    MPI_Group_free(&g0);
    MPI_Group_free(&g);
}

static void flavors(int spans_nodes, MPI_Comm node)
{
    for (int f = 0; f < F_N; f++) {
        MPI_Comm comm = f == F_SHARED ? node : MPI_COMM_WORLD;
        long *mem = NULL, *heap = NULL;
        MPI_Win win;
        MPI_Aint unit = f == F_DYNAMIC ? 1 : f == F_CREATE ? 2 : (MPI_Aint)sizeof(long);
        MPI_Aint bytes = NL * (MPI_Aint)sizeof(long);
        switch (f) {
        case F_CREATE:
            mem = heap = malloc((size_t)bytes);
            CHECK_RC(MPI_Win_create_c(mem, bytes, unit, MPI_INFO_NULL, comm, &win));
            break;
        case F_ALLOCATE:
            CHECK_RC(MPI_Win_allocate_c(bytes, unit, MPI_INFO_NULL, comm, &mem, &win));
            break;
        case F_SHARED:
            if (spans_nodes) {
                /* the standard's error on a communicator over several nodes */
                MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
                MPI_Win w2 = MPI_WIN_NULL;
                long *m2;
                EXPECT_CLASS(MPI_Win_allocate_shared_c(bytes, unit, MPI_INFO_NULL,
                                                       MPI_COMM_WORLD, &m2, &w2),
                             MPI_ERR_RMA_SHARED);
                CHECK(w2 == MPI_WIN_NULL, "a failed shared window left a handle");
                MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
            }
            CHECK_RC(MPI_Win_allocate_shared_c(bytes, unit, MPI_INFO_NULL, comm, &mem, &win));
            {
                /* the pointer of rank 0's segment is usable directly */
                MPI_Aint qs, qu;
                long *p0;
                CHECK_RC(MPI_Win_shared_query_c(win, 0, &qs, &qu, &p0));
                CHECK(qs == bytes && qu == unit && p0, "shared_query_c(0): %ld %ld",
                      (long)qs, (long)qu);
            }
            break;
        case F_DYNAMIC:
            mem = heap = malloc((size_t)bytes);
            CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &win));
            CHECK_RC(MPI_Win_attach(win, mem, bytes));
            break;
        }
        MPI_Aint base0 = 0;
        if (f == F_DYNAMIC) {
            MPI_Get_address(mem, &base0);
            CHECK_RC(MPI_Bcast(&base0, 1, MPI_AINT, 0, comm));
        }
        void *v;
        int flag;
        CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &v, &flag));
        CHECK(flag && *(int *)v == (int)unit, "%s: disp unit %d", fname[f], *(int *)v);
        for (int s = 0; s < S_N; s++)
            acc_epoch(f, s, comm, win, mem, base0, unit);
        if (f == F_DYNAMIC)
            CHECK_RC(MPI_Win_detach(win, mem));
        CHECK_RC(MPI_Win_free(&win));
        free(heap);
    }
}

/* Compare-and-swap and fetch-and-op on every integer width, byte and
 * bool, all ranks on one element of rank 0: one CAS winner, and the
 * fetched counters are 0 .. np-1 once each (np <= 8 fits in a byte). */
static void cas_types(void)
{
    static const MPI_Datatype T[] = { MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_SHORT,
                                      MPI_UINT16_T,    MPI_INT,           MPI_UINT32_T,
                                      MPI_LONG_LONG,   MPI_INT64_T,       MPI_AINT,
                                      MPI_COUNT,       MPI_BYTE,          MPI_C_BOOL };
    unsigned char *mem;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (size_t t = 0; t < sizeof T / sizeof T[0]; t++) {
        int sz;
        MPI_Type_size(T[t], &sz);
        int isbool = T[t] == MPI_C_BOOL, isbyte = T[t] == MPI_BYTE;
        memset(mem, 0, 64);
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        /* little- or big-endian alike: value v written as sz bytes */
        unsigned char mine[8] = { 0 }, cmp[8] = { 0 }, old[8], one[8] = { 0 }, fold[8];
        uint64_t v = isbool ? 1 : (uint64_t)me + 1, o = 1;
        memcpy(mine, &v, 8);
        memcpy(one, &o, 8);
        if (sz < 8 && ((const unsigned char *)&o)[0] != 1) {   /* big-endian */
            memmove(mine, mine + 8 - sz, (size_t)sz);
            memmove(one, one + 8 - sz, (size_t)sz);
        }
        memset(old, 0xAA, sizeof old);
        CHECK_RC(MPI_Win_lock_all(0, win));
        CHECK_RC(MPI_Compare_and_swap(mine, cmp, old, T[t], 0, 0, win));
        if (!isbool && !isbyte)
            CHECK_RC(MPI_Fetch_and_op(one, fold, T[t], 0, 8, MPI_SUM, win));
        CHECK_RC(MPI_Win_unlock_all(win));
        int won = !memcmp(old, cmp, (size_t)sz), wins = 0;
        CHECK_RC(MPI_Allreduce(&won, &wins, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(wins == 1, "CAS on type %zu (%d bytes): %d winners", t, sz, wins);
        if (!isbool && !isbyte) {
            uint64_t f = 0;
            memcpy(&f, fold, (size_t)sz);   /* values < 256 on little-endian */
            if (((const unsigned char *)&o)[0] != 1)
                f = fold[sz - 1];
            int seen[64] = { 0 }, all[64];
            int fi = (int)f;
            CHECK_RC(MPI_Allgather(&fi, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
            for (int r = 0; r < np; r++)
                if (all[r] >= 0 && all[r] < np)
                    seen[all[r]]++;
            for (int r = 0; r < np; r++)
                CHECK(seen[r] == 1, "fetch_and_op on type %zu: %d fetched %d times", t, r,
                      seen[r]);
        }
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_RC(MPI_Win_free(&win));
}

static int info_is(MPI_Win win, const char *key, const char *want)
{
    MPI_Info used;
    CHECK_RC(MPI_Win_get_info(win, &used));
    char v[64];
    int flag = 0, len = sizeof v;
    CHECK_RC(MPI_Info_get_string(used, key, &len, v, &flag));
    MPI_Info_free(&used);
    return flag && !strcmp(v, want);
}

/* Hints given at creation are reported; MPI_Win_set_info changes the ones
 * that may change (no_locks then governs MPI_Win_lock). */
static void hints(MPI_Comm node)
{
    MPI_Info in;
    MPI_Info_create(&in);
    MPI_Info_set(in, "same_size", "true");
    MPI_Info_set(in, "same_disp_unit", "true");
    MPI_Info_set(in, "accumulate_ops", "same_op");
    MPI_Info_set(in, "accumulate_ordering", "none");
    MPI_Info_set(in, "alloc_shared_noncontig", "true");
    int *mem;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate_shared(64, 4, in, node, &mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK(info_is(win, "same_size", "true"), "same_size not reported");
    CHECK(info_is(win, "same_disp_unit", "true"), "same_disp_unit not reported");
    CHECK(info_is(win, "accumulate_ops", "same_op"), "accumulate_ops not reported");
    CHECK(info_is(win, "accumulate_ordering", "none"), "accumulate_ordering not reported");
    CHECK(info_is(win, "alloc_shared_noncontig", "true"), "alloc_shared_noncontig not reported");
    CHECK(info_is(win, "no_locks", "false"), "no_locks not reported as false");
    /* noncontiguous allowed: every segment still answers shared_query with
     * a pointer that loads and stores the owner's memory */
    int nme, nn;
    MPI_Comm_rank(node, &nme);
    MPI_Comm_size(node, &nn);
    for (int i = 0; i < 16; i++)
        mem[i] = nme * 100 + i;
    CHECK_RC(MPI_Win_fence(0, win));
    for (int r = 0; r < nn; r++) {
        MPI_Aint qs;
        int du;
        int *p;
        CHECK_RC(MPI_Win_shared_query(win, r, &qs, &du, &p));
        CHECK(qs == 64 && du == 4 && p[15] == r * 100 + 15, "noncontig segment %d: %d", r,
              p ? p[15] : -1);
    }
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Win_free(&win));

    /* set_info: no_locks on and off again */
    CHECK_RC(MPI_Win_allocate(64, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Info_free(&in);
    MPI_Info_create(&in);
    MPI_Info_set(in, "no_locks", "true");
    MPI_Info_set(in, "accumulate_ordering", "rar,waw");
    CHECK_RC(MPI_Win_set_info(win, in));
    CHECK(info_is(win, "no_locks", "true"), "set_info: no_locks not reported");
    CHECK(info_is(win, "accumulate_ordering", "rar,waw"), "set_info: accumulate_ordering");
    EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    MPI_Info_set(in, "no_locks", "false");
    CHECK_RC(MPI_Win_set_info(win, in));
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_RC(MPI_Win_unlock(0, win));
    EXPECT_CLASS(MPI_Win_set_info(win, MPI_INFO_NULL), MPI_ERR_INFO);
    MPI_Info_free(&in);
    CHECK_RC(MPI_Win_free(&win));
}

/* Error classes of the _c calls and the ones no other test raises. */
static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Win win = MPI_WIN_NULL;
    long x[4] = { 0 };
    long *mem;
    EXPECT_CLASS(MPI_Win_create_c(NULL, 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_BASE);
    EXPECT_CLASS(MPI_Win_create_c(x, 8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP);
    EXPECT_CLASS(MPI_Win_allocate_c(-8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win),
                 MPI_ERR_SIZE);
    EXPECT_CLASS(MPI_Win_allocate_c(8, (MPI_Aint)INT32_MAX + 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                    &mem, &win),
                 MPI_ERR_DISP);
    EXPECT_CLASS(MPI_Win_allocate_shared_c(8, -1, MPI_INFO_NULL, MPI_COMM_SELF, &mem, &win),
                 MPI_ERR_DISP);
    CHECK(win == MPI_WIN_NULL, "a failed creation left a handle");
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    EXPECT_CLASS(MPI_Win_attach(win, NULL, 8), MPI_ERR_BASE);
    CHECK_RC(MPI_Win_free(&win));

    CHECK_RC(MPI_Win_allocate_c(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                                &mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Request r = MPI_REQUEST_NULL;
    /* no epoch */
    EXPECT_CLASS(MPI_Rput_c(x, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win, &r), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Rget_c(x, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win, &r), MPI_ERR_RMA_SYNC);
    EXPECT_CLASS(MPI_Accumulate_c(x, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win),
                 MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_lock_all(0, win));
    EXPECT_CLASS(MPI_Rput_c(x, -1, MPI_LONG, 0, 0, 1, MPI_LONG, win, &r), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Rget_c(x, 1, MPI_LONG, 0, 4, 1, MPI_LONG, win, &r), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Get_accumulate_c(x, 2, MPI_LONG, x + 2, 2, MPI_LONG, 0, 3, 2, MPI_LONG,
                                      MPI_SUM, win),
                 MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Raccumulate_c(x, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_NO_OP, win, &r),
                 MPI_ERR_OP);
    EXPECT_CLASS(MPI_Rget_accumulate_c(x, 1, MPI_LONG, x + 1, 1, MPI_INT, 0, 0, 1, MPI_LONG,
                                       MPI_SUM, win, &r),
                 MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Accumulate_c(x, 1, MPI_LONG, np, 0, 1, MPI_LONG, MPI_SUM, win),
                 MPI_ERR_RANK);
    CHECK(r == MPI_REQUEST_NULL, "a failed request-based call returned a request");
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    /* locked and exposed at once (MPI 5.0 12.5.3): the last rank holds a
     * lock on rank 0's window while rank 0 posts; after the unlock the
     * same post is fine */
    if (me == np - 1)
        CHECK_RC(MPI_Win_lock(me % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        EXPECT_CLASS(MPI_Win_post(MPI_GROUP_EMPTY, 0, win), MPI_ERR_RMA_CONFLICT);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == np - 1)
        CHECK_RC(MPI_Win_unlock(0, win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        CHECK_RC(MPI_Win_post(MPI_GROUP_EMPTY, 0, win));
        CHECK_RC(MPI_Win_wait(win));
    }
    /* the other order: rank 0 exposes, the last rank's lock is refused
     * (shared and exclusive, from a node peer or another node alike) and
     * leaves no lock behind; after the wait the lock is granted */
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        CHECK_RC(MPI_Win_post(MPI_GROUP_EMPTY, 0, win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == np - 1) {
        EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_CONFLICT);
        EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win), MPI_ERR_RMA_CONFLICT);
        EXPECT_CLASS(MPI_Win_lock_all(0, win), MPI_ERR_RMA_CONFLICT);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        CHECK_RC(MPI_Win_wait(win));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == np - 1) {
        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_RC(MPI_Win_unlock(0, win));
    }
    CHECK_RC(MPI_Win_free(&win));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm node;
    int nn;
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &nn);
    flavors(nn < np, node);
    cas_types();
    hints(node);
    errors();
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
