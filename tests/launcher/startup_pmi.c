/* MPI_Init + MPI_Finalize, for launcher.startup_pmi (how many PMI round
 * trips a rank's start-up makes). */
#include <mpi.h>

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
