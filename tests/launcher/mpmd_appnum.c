/* For launcher.mpmd and netns.mpmd: prints "rank R of S appnum A arg X sum
 * T host H" (T: the allreduce of every rank's appnum, so MPI_COMM_WORLD
 * spans every MPMD part; H: the processor name, i.e. the host). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, flag, *appnum, sum = 0, mine, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    mine = flag ? *appnum : -1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Get_processor_name(host, &len);
    printf("rank %d of %d appnum %d arg %s sum %d host %s\n", rank, size, mine,
           argc > 1 ? argv[1] : "-", sum, host);
    MPI_Finalize();
    return 0;
}
