/* Commits an MPI error under the handler named by argv[1] (fatal, abort or
 * the default) so the script test can check what the user sees. */
#include <string.h>

#include "smap_test.h"

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    if (argc > 1 && strcmp(argv[1], "abort") == 0)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ABORT);
    if (argc > 1 && strcmp(argv[1], "fatal") == 0)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Comm_size(MPI_COMM_WORLD, NULL);   /* the error */
    else
        MPI_Barrier(MPI_COMM_WORLD);           /* would hang if the job were not stopped */
    printf("NOT REACHED on rank %d\n", rank);
    MPI_Finalize();
    return 0;
}
