/* MPI_Finalize waits for every rank of the job: the last rank enters it 2 s
 * late, and the others must not leave before (the inter-node transport
 * closes its connections in MPI_Finalize; a rank gone early broke its
 * peers' last writes).  PMI-2 under hydra needed its own barrier for this
 * (src/boot/pmi2.c smap_pmi2_barrier). */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == size - 1)
        sleep(2);
    double t0 = now();
    MPI_Finalize();
    double dt = now() - t0;
    if (rank != size - 1 && dt < 1.5) {
        printf("finalize_late: rank %d left MPI_Finalize after %.2f s, before the late rank\n", rank, dt);
        return 1;
    }
    printf("finalize_late: rank %d ok (%.2f s)\n", rank, dt);
    return 0;
}
