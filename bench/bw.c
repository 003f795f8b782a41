/* bw.c — OSU-style unidirectional bandwidth (osu_bw).
 *
 * Ranks pair up as (r, r + np/2).  Per iteration the sender posts a window of
 * MPI_Isend (default 64) of `size` bytes from one buffer and waits for them;
 * the receiver posts as many MPI_Irecv, waits, and returns a 4-byte ack.
 * mbps = bytes / time (MB/s, 10^6), summed over the pairs; usec = time per
 * message.  As in osu_bw, all receives of a window land in one buffer
 * (--distinct: one buffer per window slot).
 *
 * --vary: the sender rewrites its buffer before every window (outside the
 * timed part; each window is then timed separately). */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

int main(int argc, char **argv)
{
    bench_opts_t o = {
        .name = "bw", .min_size = 1, .max_size = 4u << 20, .window = 64,
        .it = { .base_iters = 200, .min_iters = 4, .budget = 1024.0 * (1 << 20) },
    };
    bench_init(&argc, &argv, &o, BENCH_OPT_SIZES | BENCH_OPT_VARY | BENCH_OPT_WINDOW,
               "unidirectional bandwidth, window of non-blocking sends, pairs (r, r + np/2)");
    if (o.np < 2)
        bench_die(&o, "needs at least 2 ranks");
    int half = o.np / 2;
    int active = o.rank < 2 * half;
    int sender = o.rank < half;
    int partner = sender ? o.rank + half : o.rank - half;
    int W = o.window;
    /* The per-iteration byte budget counts the whole window. */
    o.it.budget /= W;

    char *sbuf = bench_alloc(o.max_size);
    char *rbuf = bench_alloc(o.distinct ? o.max_size * (size_t)W : o.max_size);
    MPI_Request *req = calloc((size_t)W, sizeof *req);
    /* A real status array: GCC 12 warns about MPICH's MPI_STATUSES_IGNORE. */
    MPI_Status *st = calloc((size_t)W, sizeof *st);
    int ack = 0;
    bench_header(&o, "size in bytes, mbps = MB/s (10^6 B/s) summed over pairs, usec = time per message");

    for (size_t size = bench_first_size(&o); size != BENCH_END; size = bench_next_size(&o, size)) {
        if (size > (size_t)1 << 30)
            bench_die(&o, "size %zu too large", size);
        int n = (int)size;
        long iters = bench_iters(&o, size), warm = bench_warmup(&o, iters);

        if (active && !o.no_validate) {
            uint64_t seed = bench_seed(size, sender ? o.rank : partner, 0, 2);
            if (sender) {
                bench_fill(sbuf, size, seed);
                MPI_Send(sbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
            } else {
                bench_poison(rbuf, size, seed);
                MPI_Recv(rbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                size_t bad = bench_check(rbuf, size, seed);
                if (bad != BENCH_END)
                    bench_fail_at(&o, size, "received message", rbuf, bad, seed);
            }
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
        double mbps = t > 0 ? (double)size * W * iters / t / 1e6 : -1;
        bench_stats_t s = bench_gather(&o, mbps);
        if (o.rank == 0) {
            double usec = s.sum > 0 ? (double)size / (s.sum / s.count) : 0;
            bench_result(&o, size, iters, usec, "mbps=%.2f pairs=%d window=%d", s.sum, s.count, W);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(req);
    free(st);
    bench_free(sbuf);
    bench_free(rbuf);
    return bench_finish();
}
