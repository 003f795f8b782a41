/* latency.c — OSU-style ping-pong latency.
 *
 * Ranks pair up as (r, r + np/2); with 2 ranks that is the classic 0 <-> 1.
 * The initiator sends `size` bytes with MPI_Send, the partner receives them
 * with MPI_Recv and sends `size` bytes back.  usec is half the round trip,
 * averaged over the iterations and over the pairs; mbps = size / usec.
 *
 * --vary: the initiator rewrites its send buffer before every round trip
 * (outside the timed part; each round trip is then timed separately) and the
 * partner sends back the data it has just received, so no cache holds a valid
 * copy of the previous message. */
#include <stdio.h>

#include "common.h"

int main(int argc, char **argv)
{
    bench_opts_t o = {
        .name = "latency", .min_size = 0, .max_size = 4u << 20,
        .it = { .base_iters = 10000, .min_iters = 20, .budget = 256.0 * (1 << 20) },
    };
    bench_init(&argc, &argv, &o, BENCH_OPT_SIZES | BENCH_OPT_VARY,
               "ping-pong latency between rank pairs (r, r + np/2)");
    if (o.np < 2)
        bench_die(&o, "needs at least 2 ranks");
    int half = o.np / 2;
    int active = o.rank < 2 * half;
    int initiator = o.rank < half;
    int partner = initiator ? o.rank + half : o.rank - half;

    char *sbuf = bench_alloc(o.max_size);
    char *rbuf = bench_alloc(o.max_size);
    bench_header(&o, "size in bytes, usec = one-way latency (half round trip), mbps = size/usec (MB/s)");

    for (size_t size = bench_first_size(&o); size != BENCH_END; size = bench_next_size(&o, size)) {
        if (size > (size_t)1 << 30)
            bench_die(&o, "size %zu too large", size);
        int n = (int)size;
        long iters = bench_iters(&o, size), warm = bench_warmup(&o, iters);

        /* Validation: one message each way, fresh pattern, poisoned receive buffer. */
        if (active && !o.no_validate) {
            uint64_t seed = bench_seed(size, initiator ? o.rank : partner, 0, 1);
            if (initiator) {
                bench_fill(sbuf, size, seed);
                bench_poison(rbuf, size, seed);
                MPI_Send(sbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
                MPI_Recv(rbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                size_t bad = bench_check(rbuf, size, seed);
                if (bad != BENCH_END)
                    bench_fail_at(&o, size, "echoed message", rbuf, bad, seed);
            } else {
                bench_poison(rbuf, size, seed);
                MPI_Recv(rbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                size_t bad = bench_check(rbuf, size, seed);
                if (bad != BENCH_END)
                    bench_fail_at(&o, size, "received message", rbuf, bad, seed);
                MPI_Send(rbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);

        double t = -1;
        if (active && initiator) {
            double acc = 0, t0 = 0;
            for (long i = 0; i < warm + iters; i++) {
                if (o.vary) {
                    bench_touch(sbuf, size, i, o.rank);
                    t0 = MPI_Wtime();
                } else if (i == warm) {
                    t0 = MPI_Wtime();
                }
                MPI_Send(sbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
                MPI_Recv(rbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (o.vary && i >= warm)
                    acc += MPI_Wtime() - t0;
            }
            t = o.vary ? acc : MPI_Wtime() - t0;
            t = t / (double)iters / 2.0 * 1e6;
        } else if (active) {
            char *back = o.vary ? rbuf : sbuf;
            for (long i = 0; i < warm + iters; i++) {
                MPI_Recv(rbuf, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(back, n, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
            }
        }
        bench_stats_t s = bench_gather(&o, t);
        if (o.rank == 0)
            bench_result(&o, size, iters, s.avg, "mbps=%.2f max_usec=%.4f",
                         s.avg > 0 ? (double)size / s.avg : 0.0, s.max);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    bench_free(sbuf);
    bench_free(rbuf);
    return bench_finish();
}
