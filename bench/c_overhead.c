/* The C twin of f_overhead.F90: MPI_Send of 8 bytes to MPI_PROC_NULL, 200000
 * calls timed, best of 20 repetitions; usec per call (the per-call cost
 * that a binding layer adds to, measurable on a loaded machine). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    enum { CALLS = 200000 };
    char buf[8] = {0};
    MPI_Init(&argc, &argv);
    double best = 1e9;
    for (int r = 0; r < 20; r++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < CALLS; i++)
            MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
        double t = (MPI_Wtime() - t0) / CALLS * 1e6;
        if (t < best)
            best = t;
    }
    printf("RESULT bench=c_overhead np=1 size=8 iters=%d usec=%.6f\n", CALLS, best);
    MPI_Finalize();
    return 0;
}
