/* barrier.c — MPI_Barrier latency (osu_barrier).
 *
 * Times warm + iters back-to-back barriers; usec = time per barrier as seen
 * by rank 0.  It uses nothing but MPI_Init/Finalize, MPI_Comm_rank/size,
 * MPI_Barrier and MPI_Wtime, so it runs on an MPI that has no
 * point-to-point yet.  There is no data to validate. */
#include <stdio.h>

#include "common.h"

int main(int argc, char **argv)
{
    bench_opts_t o = {
        .name = "barrier", .min_size = 0, .max_size = 0,
        .it = { .base_iters = 50000, .min_iters = 100, .budget = 0 },
    };
    bench_init(&argc, &argv, &o, 0, "MPI_Barrier latency (all ranks)");
    long iters = bench_iters(&o, 0), warm = bench_warmup(&o, iters);
    bench_header(&o, "size is always 0, usec = time per barrier at rank 0");

    for (long i = 0; i < warm; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    double usec = (MPI_Wtime() - t0) / (double)iters * 1e6;
    if (o.rank == 0)
        bench_result(&o, 0, iters, usec, "%s", "");
    MPI_Barrier(MPI_COMM_WORLD);
    return bench_finish();
}
