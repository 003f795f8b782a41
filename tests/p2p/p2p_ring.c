/* Ring exchange with MPI_Sendrecv (and MPI_Sendrecv_replace) among all
 * ranks, small and large messages; run with 8 ranks on 2 cores it checks
 * that waiting yields (no time assert: the test timeout catches a
 * ms-per-message collapse).  Prints the mean time per exchange. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        int v = me * 100000 + i, w = -1;
        CHECK_RC(MPI_Sendrecv(&v, 1, MPI_INT, right, i % 7, &w, 1, MPI_INT, left, i % 7,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(w == left * 100000 + i, "iteration %d: got %d", i, w);
    }
    double t1 = MPI_Wtime();
    size_t n = 256 * 1024 / sizeof(int);
    int *a = malloc(n * sizeof(int));
    for (int i = 0; i < 50; i++) {
        for (size_t k = 0; k < n; k++)
            a[k] = me + (int)k + i;
        MPI_Status st;
        CHECK_RC(MPI_Sendrecv_replace(a, (int)n, MPI_INT, right, 1, left, 1, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == left, "replace source %d", st.MPI_SOURCE);
        for (size_t k = 0; k < n; k++)
            CHECK(a[k] == left + (int)k + i, "replace %d element %zu", i, k);
    }
    if (me == 0)
        printf("ring of %d: %.2f us per small exchange\n", np, (t1 - t0) * 1e6 / iters);
    free(a);
    MPI_Finalize();
    return 0;
}
