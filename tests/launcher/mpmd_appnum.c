/* For launcher.mpmd: prints "rank R of S appnum A arg X" and checks that
 * MPI_COMM_WORLD spans every MPMD part (an allreduce of the appnums). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, flag, *appnum, sum = 0, mine;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    mine = flag ? *appnum : -1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d appnum %d arg %s sum %d\n", rank, size, mine, argc > 1 ? argv[1] : "-", sum);
    MPI_Finalize();
    return 0;
}
