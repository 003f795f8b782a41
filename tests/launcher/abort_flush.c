/* Output written just before an abort reaches the terminal (issue 36).
 * Every rank prints one line into its stdio buffer (stdout is a pipe to
 * smrun, so fully buffered) and nobody flushes; after a barrier rank 0
 * calls MPI_Abort(MPI_COMM_WORLD, 3) while rank 1 waits in MPI_Recv and
 * any other rank computes outside MPI.  Each line must still arrive. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, x;
    /* The default SIGTERM action, as most nodes have it: a fabric library
     * loaded with libmpi may catch SIGTERM itself (libinfinipath exits,
     * which flushes), and that must not be what makes this test pass. */
    signal(SIGTERM, SIG_DFL);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("line of rank %d before the abort\n", rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    if (rank == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (;;)
        usleep(1000);   /* "computing": only smrun's signal ends this rank */
}
