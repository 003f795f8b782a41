/* bibw.c — OSU-style bidirectional bandwidth (osu_bibw).
 *
 * Ranks pair up as (r, r + np/2).  Per iteration both sides of a pair post a
 * window (default 64) of MPI_Irecv, then a window of MPI_Isend of `size`
 * bytes, and wait for all of them.  mbps counts the bytes of both directions
 * (MB/s, 10^6), summed over the pairs; usec = time per window / window.
 *
 * --vary: both sides rewrite their send buffer before every window; a
 * zero-byte handshake then starts the timed window, so neither rewrite is
 * timed. */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

int main(int argc, char **argv)
{
    bench_opts_t o = {
        .name = "bibw", .min_size = 1, .max_size = 4u << 20, .window = 64,
        .it = { .base_iters = 200, .min_iters = 4, .budget = 1024.0 * (1 << 20) },
    };
    bench_init(&argc, &argv, &o, BENCH_OPT_SIZES | BENCH_OPT_VARY | BENCH_OPT_WINDOW,
               "bidirectional bandwidth, windows of non-blocking sends both ways, pairs (r, r + np/2)");
    if (o.np < 2)
        bench_die(&o, "needs at least 2 ranks");
    int half = o.np / 2;
    int active = o.rank < 2 * half;
    int initiator = o.rank < half;
    int partner = initiator ? o.rank + half : o.rank - half;
    int W = o.window;
    o.it.budget /= W;

    char *sbuf = bench_alloc(o.max_size);
    char *rbuf = bench_alloc(o.distinct ? o.max_size * (size_t)W : o.max_size);
    MPI_Request *req = calloc(2 * (size_t)W, sizeof *req);
    /* A real status array: GCC 12 warns about MPICH's MPI_STATUSES_IGNORE. */
    MPI_Status *st = calloc(2 * (size_t)W, sizeof *st);
    bench_header(&o, "size in bytes, mbps = MB/s (10^6 B/s) of both directions summed over pairs, usec = time per window / window");

    for (size_t size = bench_first_size(&o); size != BENCH_END; size = bench_next_size(&o, size)) {
        if (size > (size_t)1 << 30)
            bench_die(&o, "size %zu too large", size);
        int n = (int)size;
        long iters = bench_iters(&o, size), warm = bench_warmup(&o, iters);

        if (active && !o.no_validate) {
            /* Both directions at once, each side checks what it got. */
            uint64_t mine = bench_seed(size, o.rank, partner, 3);
            uint64_t theirs = bench_seed(size, partner, o.rank, 3);
            bench_fill(sbuf, size, mine);
            bench_poison(rbuf, size, theirs);
            MPI_Irecv(rbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(sbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, st);
            size_t bad = bench_check(rbuf, size, theirs);
            if (bad != BENCH_END)
                bench_fail_at(&o, size, "received message", rbuf, bad, theirs);
        }
        MPI_Barrier(MPI_COMM_WORLD);

        double t = -1;
        if (active) {
            double acc = 0, t0 = 0;
            for (long i = 0; i < warm + iters; i++) {
                if (o.vary) {
                    bench_touch(sbuf, size, i, o.rank);
                    if (initiator)
                        MPI_Recv(NULL, 0, MPI_BYTE, partner, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    else
                        MPI_Send(NULL, 0, MPI_BYTE, partner, 3, MPI_COMM_WORLD);
                    t0 = MPI_Wtime();
                } else if (i == warm) {
                    t0 = MPI_Wtime();
                }
                for (int w = 0; w < W; w++)
                    MPI_Irecv(rbuf + (o.distinct ? (size_t)w * size : 0), n, MPI_BYTE, partner, 1,
                              MPI_COMM_WORLD, &req[w]);
                for (int w = 0; w < W; w++)
                    MPI_Isend(sbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD, &req[W + w]);
                MPI_Waitall(2 * W, req, st);
                if (o.vary && i >= warm)
                    acc += MPI_Wtime() - t0;
            }
            t = o.vary ? acc : MPI_Wtime() - t0;
        }
        double mbps = (active && initiator && t > 0) ? 2.0 * (double)size * W * iters / t / 1e6 : -1;
        bench_stats_t s = bench_gather(&o, mbps);
        if (o.rank == 0) {
            double usec = s.sum > 0 ? 2.0 * (double)size / (s.sum / s.count) : 0;
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
