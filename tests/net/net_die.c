/* A rank that dies while its peer on another node waits on it: rank 0 and
 * the last rank (another node) ping-pong 8 bytes; after argv[1] round
 * trips (default 1000) the last rank kills itself with SIGKILL, in the
 * middle of the exchange.  The launcher must report that rank and stop
 * the job (tests/netns/ucx.sh checks the exit status, the message, and
 * that it came at once: whatever the engine's error handling, no
 * survivor may hang in its wait or die first of the lost connection). */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 1000;
    char b[8] = { 0 };
    int last = size - 1;
    for (long i = 0;; i++) {
        if (rank == 0) {
            MPI_Send(b, 8, MPI_BYTE, last, 1, MPI_COMM_WORLD);
            MPI_Recv(b, 8, MPI_BYTE, last, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == last) {
            if (i == n)
                raise(SIGKILL);
            MPI_Recv(b, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);   /* never completes: the launcher ends it */
        }
    }
}
