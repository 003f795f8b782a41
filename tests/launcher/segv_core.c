/* A rank of a one-node MPI job that crashes: segv_core RANK raises SIGSEGV
 * in rank RANK after MPI_Init and a barrier; the others wait in a second
 * barrier until smrun stops them.  With no network library mapped (DESIGN
 * D9) no provider's SIGSEGV handler turns the crash into "exit 1": smrun
 * sees the signal (tests/launcher/segv_core.sh). */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 1 && rank == atoi(argv[1]))
        raise(SIGSEGV);   /* not a NULL store: UBSan would report that first */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
