/* msgrate.c — message rate (osu_mbw_mr style), 8-byte messages by default.
 *
 * Ranks pair up as (r, r + np/2).  Per iteration the sender posts a window
 * (default 64) of MPI_Isend of `size` bytes and waits for them; the receiver
 * posts as many MPI_Irecv, waits, and returns a 4-byte ack.
 * msgrate = messages per second, summed over the pairs; usec = time per
 * message of one pair; mbps = size * msgrate.
 *
 * --vary: the sender rewrites its buffer before every window (not timed). */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

int main(int argc, char **argv)
{
    bench_opts_t o = {
        .name = "msgrate", .min_size = 8, .max_size = 8, .window = 64,
        /* 20000 windows of 64 = 1.28 M messages per size. */
        .it = { .base_iters = 20000, .min_iters = 10, .budget = 16.0 * (1 << 20) },
    };
    bench_init(&argc, &argv, &o, BENCH_OPT_SIZES | BENCH_OPT_VARY | BENCH_OPT_WINDOW,
               "message rate: windows of small non-blocking sends, pairs (r, r + np/2)");
    if (o.np < 2)
        bench_die(&o, "needs at least 2 ranks");
    int half = o.np / 2;
    int active = o.rank < 2 * half;
    int sender = o.rank < half;
    int partner = sender ? o.rank + half : o.rank - half;
    int W = o.window;
    o.it.budget /= W;

    char *sbuf = bench_alloc(o.max_size);
    char *rbuf = bench_alloc(o.distinct ? o.max_size * (size_t)W : o.max_size);
    MPI_Request *req = calloc((size_t)W, sizeof *req);
    /* A real status array: GCC 12 warns about MPICH's MPI_STATUSES_IGNORE. */
    MPI_Status *st = calloc((size_t)W, sizeof *st);
    int ack = 0;
    bench_header(&o, "size in bytes, msgrate = messages/s summed over pairs, usec = time per message of a pair");

    for (size_t size = bench_first_size(&o); size != BENCH_END; size = bench_next_size(&o, size)) {
        if (size > (size_t)1 << 30)
            bench_die(&o, "size %zu too large", size);
        int n = (int)size;
        long iters = bench_iters(&o, size), warm = bench_warmup(&o, iters);

        if (active && !o.no_validate) {
            /* A full window with distinct contents, so that ordering is checked too. */
            char *vbuf = bench_alloc(size * (size_t)W);
            for (int w = 0; w < W; w++) {
                uint64_t seed = bench_seed(size, sender ? o.rank : partner, w, 4);
                if (sender) {
                    bench_fill(vbuf + (size_t)w * size, size, seed);
                    MPI_Isend(vbuf + (size_t)w * size, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &req[w]);
                } else {
                    bench_poison(vbuf + (size_t)w * size, size, seed);
                    MPI_Irecv(vbuf + (size_t)w * size, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &req[w]);
                }
            }
            MPI_Waitall(W, req, st);
            if (!sender) {
                for (int w = 0; w < W; w++) {
                    uint64_t seed = bench_seed(size, partner, w, 4);
                    size_t bad = bench_check(vbuf + (size_t)w * size, size, seed);
                    if (bad != BENCH_END)
                        bench_fail_at(&o, size, w ? "a later message of the window (order?)" : "first message",
                                      vbuf + (size_t)w * size, bad, seed);
                }
            }
            bench_free(vbuf);
        }
        MPI_Barrier(MPI_COMM_WORLD);

        double t = -1;
        if (active && sender) {
            double acc = 0, t0 = 0;
            for (long i = 0; i < warm + iters; i++) {
                if (o.vary) {
                    bench_touch(sbuf, size, i, o.rank);
                    t0 = MPI_Wtime();
                } else if (i == warm) {
                    t0 = MPI_Wtime();
                }
                for (int w = 0; w < W; w++)
                    MPI_Isend(sbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(W, req, st);
                MPI_Recv(&ack, 1, MPI_INT, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (o.vary && i >= warm)
                    acc += MPI_Wtime() - t0;
            }
            t = o.vary ? acc : MPI_Wtime() - t0;
        } else if (active) {
            for (long i = 0; i < warm + iters; i++) {
                for (int w = 0; w < W; w++)
                    MPI_Irecv(rbuf + (o.distinct ? (size_t)w * size : 0), n, MPI_BYTE, partner, 1,
                              MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(W, req, st);
                MPI_Send(&ack, 1, MPI_INT, partner, 2, MPI_COMM_WORLD);
            }
        }
        double rate = t > 0 ? (double)W * iters / t : -1;
        bench_stats_t s = bench_gather(&o, rate);
        if (o.rank == 0) {
            double usec = s.count && s.sum > 0 ? 1e6 / (s.sum / s.count) : 0;
            bench_result(&o, size, iters, usec, "msgrate=%.0f mbps=%.2f pairs=%d window=%d",
                         s.sum, s.sum * (double)size / 1e6, s.count, W);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(req);
    free(st);
    bench_free(sbuf);
    bench_free(rbuf);
    return bench_finish();
}
