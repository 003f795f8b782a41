/* An error that reaches MPI_ERRORS_ARE_FATAL must never let the job exit
 * 0 (issue 36: MPI_Gather's truncation aborted with a code of class 0), while
 * MPI_Abort(comm, 0) called by the program itself may.  argv[1] picks the
 * case:
 *   success  MPI_Comm_call_errhandler with a code of class MPI_SUCCESS
 *   user256  an added error class whose value is a multiple of 256
 *            (an exit status of its low byte would read 0)
 *   truncate MPI_Recv of a message longer than its buffer
 *   abort0   MPI_Abort(MPI_COMM_WORLD, 0)
 * A rank the error leaves running waits to be stopped. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void user256(void)
{
    int cls = 0, code = 0;
    /* Added classes are consecutive: take them until one is a multiple of
     * 256 (the first one already, 16384, in smartmap). */
    for (int i = 0; i < 256; i++) {
        MPI_Add_error_class(&cls);
        if (cls % 256 == 0)
            break;
    }
    MPI_Add_error_code(cls, &code);
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
}

static void recv_truncated(int rank)
{
    int v[4] = { rank, rank, rank, rank };
    if (rank == 1)
        MPI_Send(v, 4, MPI_INT, 0, 5, MPI_COMM_WORLD);
    else if (rank == 0)
        MPI_Recv(v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "success"))
        MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_SUCCESS);
    else if (!strcmp(what, "user256"))
        user256();
    else if (!strcmp(what, "truncate"))
        recv_truncated(rank);
    else if (!strcmp(what, "abort0") && rank == 0)
        MPI_Abort(MPI_COMM_WORLD, 0);
    /* Only a rank the error left running gets here; it waits to be
     * stopped, so that its exit cannot decide the job's code. */
    MPI_Barrier(MPI_COMM_WORLD);
    int x;
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d: case '%s' did not abort\n", rank, what);
    MPI_Finalize();
    return 0;
}
