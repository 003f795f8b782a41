/* rma.c — OSU-style one-sided benchmarks (osu_put_latency, osu_get_latency,
 * osu_put_bw, osu_get_bw, osu_acc_latency, osu_fop_latency,
 * osu_cas_latency), in one program.
 *
 * Rank 0 is the origin, rank 1 the target (other ranks only take part in
 * the collective calls).  Options beside the common ones:
 *   --op put|get|acc|fop|cas   the operation (default put)
 *   --sync lock|fence          lock: MPI_Win_lock_all once (all ranks), then each
 *                              operation (or window of operations) is
 *                              followed by MPI_Win_flush(1); fence: every
 *                              operation (window) is closed by MPI_Win_fence
 *                              on both ranks (default lock)
 *   --win allocate|create      window memory from MPI_Win_allocate, or the
 *                              program's own buffer given to MPI_Win_create
 *                              (default allocate)
 *   --bw                       a window of 64 operations per flush/fence;
 *                              mbps = bytes moved / time (put and get only)
 * usec = time per operation (latency) or per window / 64 (bandwidth).
 * acc: MPI_Accumulate of size/8 MPI_LONG with MPI_SUM; fop and cas: one
 * MPI_LONG (MPI_Fetch_and_op SUM, MPI_Compare_and_swap), size 8 only.
 *
 * Validation, per size, before the timed loop: put/acc write a pattern the
 * target checks; get/fop/cas read one the target wrote. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

enum { OP_PUT, OP_GET, OP_ACC, OP_FOP, OP_CAS };
static const char *op_names[] = { "put", "get", "acc", "fop", "cas" };

struct rma_opts {
    int op, fence, create, bw;
};

/* Takes our options out of argv before bench_init sees it. */
static void parse_own(int *argc, char **argv, struct rma_opts *r)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i], *v = i + 1 < *argc ? argv[i + 1] : "";
        if (!strcmp(a, "--op")) {
            r->op = -1;
            for (int k = 0; k < 5; k++)
                if (!strcmp(v, op_names[k]))
                    r->op = k;
            i++;
        } else if (!strcmp(a, "--sync")) {
            r->fence = !strcmp(v, "fence") ? 1 : !strcmp(v, "lock") ? 0 : -1;
            i++;
        } else if (!strcmp(a, "--win")) {
            r->create = !strcmp(v, "create") ? 1 : !strcmp(v, "allocate") ? 0 : -1;
            i++;
        } else if (!strcmp(a, "--bw")) {
            r->bw = 1;
        } else {
            argv[out++] = argv[i];
        }
    }
    *argc = out;
    argv[out] = NULL;
}

static MPI_Win win;
static char *wmem;     /* this rank's window memory */
static struct rma_opts R;

/* One timed unit: `n` operations of `size` bytes to rank 1, then their
 * completion (flush or fence). */
static void unit(int origin, char *buf, char *res, size_t size, int n)
{
    if (origin) {
        long one = 1, cmp = 0;
        for (int k = 0; k < n; k++) {
            switch (R.op) {
            case OP_PUT: MPI_Put(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win); break;
            case OP_GET: MPI_Get(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win); break;
            case OP_ACC:
                MPI_Accumulate(buf, (int)(size / 8), MPI_LONG, 1, 0, (int)(size / 8), MPI_LONG,
                               MPI_SUM, win);
                break;
            case OP_FOP: MPI_Fetch_and_op(&one, res, MPI_LONG, 1, 0, MPI_SUM, win); break;
            case OP_CAS: MPI_Compare_and_swap(&one, &cmp, res, MPI_LONG, 1, 0, win); break;
            }
        }
        if (!R.fence)
            MPI_Win_flush(1, win);
    }
    if (R.fence)
        MPI_Win_fence(0, win);
}

int main(int argc, char **argv)
{
    R.op = OP_PUT;
    parse_own(&argc, argv, &R);
    static char name[64];
    bench_opts_t o = {
        .name = name, .min_size = 1, .max_size = 4u << 20,
        .it = { .base_iters = 10000, .min_iters = 20, .budget = 256.0 * (1 << 20) },
    };
    snprintf(name, sizeof name, "%s-%s%s-%s", op_names[R.op < 0 ? 0 : R.op],
             R.bw ? "bw" : "lat", R.fence == 1 ? "-fence" : "", R.create == 1 ? "create" : "alloc");
    int atomic = R.op == OP_FOP || R.op == OP_CAS;
    if (atomic || R.op == OP_ACC)
        o.min_size = 8;
    if (atomic)
        o.max_size = 8;
    else if (R.op == OP_ACC)
        o.max_size = 64u << 10;
    bench_init(&argc, &argv, &o, BENCH_OPT_SIZES, "one-sided put/get/accumulate/atomics");
    if (R.op < 0 || R.fence < 0 || R.create < 0 || (R.bw && (R.op != OP_PUT && R.op != OP_GET)))
        bench_die(&o, "bad --op/--sync/--win/--bw combination");
    if (o.np < 2)
        bench_die(&o, "needs at least 2 ranks");
    if (atomic && (o.min_size != 8 || o.max_size != 8))
        bench_die(&o, "fop and cas move one MPI_LONG: size 8 only");
    int origin = o.rank == 0, target = o.rank == 1;
    /* A multiple of 64 bytes: MPICH 4.0.2 (Debian, ch4) loses the atomics
     * to a MPI_Win_allocate window whose size is not a multiple of 16 (the
     * target's memory and the origins' idea of it disagree: fop/cas then
     * find 0 where 2 was added).  Legal either way; rounding up costs
     * nothing and keeps the three MPIs comparable. */
    size_t wsize = (o.max_size + 63) & ~(size_t)63;
    if (R.create) {
        wmem = bench_alloc(wsize);
        MPI_Win_create(wmem, (MPI_Aint)wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate((MPI_Aint)wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wmem, &win);
        memset(wmem, 0, wsize);
    }
    char *buf = bench_alloc(o.max_size), *res = bench_alloc(64);
    bench_header(&o, R.bw ? "size in bytes, mbps = MB/s, usec = time per operation"
                          : "size in bytes, usec = time per operation (with its flush or fence)");
    /* every rank opens the passive epoch: MPI_Win_sync, which the target
     * calls around validation, belongs in one (MPICH checks) */
    if (R.fence)
        MPI_Win_fence(0, win);
    else
        MPI_Win_lock_all(0, win);
    int n = R.bw ? 64 : 1;
    for (size_t size = bench_first_size(&o); size != BENCH_END; size = bench_next_size(&o, size)) {
        if (R.op == OP_ACC)
            size &= ~(size_t)7;
        long iters = bench_iters(&o, size * (size_t)n), warm = bench_warmup(&o, iters);
        if (!o.no_validate && (R.op == OP_PUT || R.op == OP_GET)) {
            /* put: origin's pattern must land at the target; get: the
             * target's pattern must arrive at the origin */
            uint64_t seed = bench_seed(size, R.op == OP_PUT ? 0 : 1, 1, 7);
            if (origin)
                (R.op == OP_PUT ? bench_fill : bench_poison)(buf, size, seed);
            if (target)
                (R.op == OP_PUT ? bench_poison : bench_fill)(wmem, size, seed);
            MPI_Barrier(MPI_COMM_WORLD);
            if (!R.fence && target)
                MPI_Win_sync(win);
            unit(origin, buf, res, size, 1);
            MPI_Barrier(MPI_COMM_WORLD);
            if (!R.fence && target)
                MPI_Win_sync(win);
            size_t bad = BENCH_END;
            if (R.op == OP_PUT && target)
                bad = bench_check(wmem, size, seed);
            if (R.op == OP_GET && origin)
                bad = bench_check(buf, size, seed);
            if (bad != BENCH_END)
                bench_fail_at(&o, size, R.op == OP_PUT ? "put data" : "got data",
                              R.op == OP_PUT ? wmem : buf, bad, seed);
        }
        if (!o.no_validate && R.op != OP_PUT && R.op != OP_GET) {
            /* every atomic adds 1 (acc: to each long), cas swaps 0 -> 1 once */
            if (target)
                memset(wmem, 0, size);
            for (size_t i = 0; origin && i < size / 8; i++)
                ((long *)(void *)buf)[i] = 1;
            MPI_Barrier(MPI_COMM_WORLD);
            if (!R.fence && target)
                MPI_Win_sync(win);
            unit(origin, buf, res, size, 1);
            unit(origin, buf, res, size, 1);
            MPI_Barrier(MPI_COMM_WORLD);
            if (!R.fence && target)
                MPI_Win_sync(win);
            long want = R.op == OP_CAS ? 1 : 2;
            if (target)
                for (size_t i = 0; i < (R.op == OP_ACC ? size / 8 : 1); i++)
                    if (((long *)(void *)wmem)[i] != want)
                        bench_fail(&o, size, "target long %zu is %ld, want %ld", i,
                                   ((long *)(void *)wmem)[i], want);
            if (origin && R.op != OP_ACC && *(long *)(void *)res != (R.op == OP_CAS ? 1 : want - 1))
                bench_fail(&o, size, "fetched %ld, want %ld", *(long *)(void *)res, R.op == OP_CAS ? 1 : want - 1);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = 0;
        for (long i = 0; i < warm + iters; i++) {
            if (i == warm)
                t0 = MPI_Wtime();
            unit(origin, buf, res, size, n);
        }
        double t = (MPI_Wtime() - t0) / (double)iters / n * 1e6;
        bench_stats_t s = bench_gather(&o, origin ? t : -1.0);
        if (o.rank == 0)
            bench_result(&o, size, iters, s.avg, "mbps=%.2f", s.avg > 0 ? (double)size / s.avg : 0);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (R.fence)
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    else
        MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    if (R.create)
        bench_free(wmem);
    bench_free(buf);
    bench_free(res);
    return bench_finish();
}
