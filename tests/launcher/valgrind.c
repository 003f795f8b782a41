/* A small MPI program for valgrind (issue 37): a large send/recv (the
 * single-copy path), an allreduce, results checked.  With argument "leak"
 * rank 1 also loses a block in leak_here(), which memcheck must report:
 * proof that valgrind sees the program's allocations. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 100000

static void *volatile keep;   /* volatile: the block must really be allocated */

__attribute__((noinline)) static void leak_here(void)
{
    keep = malloc(12345);
    memset(keep, 1, 12345);
    keep = NULL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *buf = malloc(N * sizeof *buf);
    for (int i = 0; i < N; i++)
        buf[i] = rank == 0 ? i : -1;
    if (rank == 0)
        MPI_Send(buf, N, MPI_INT, 1, 7, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(buf, N, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank <= 1)
        for (int i = 0; i < N; i++)
            if (buf[i] != i) {
                fprintf(stderr, "rank %d: buf[%d] = %d, expected %d\n", rank, i, buf[i], i);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
    long mine = rank + 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (sum != (long)size * (size + 1) / 2) {
        fprintf(stderr, "rank %d: allreduce gave %ld\n", rank, sum);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(buf);
    if (rank == 1 && argc > 1 && strcmp(argv[1], "leak") == 0)
        leak_here();
    if (rank == 0)
        printf("valgrind: send/recv and allreduce correct on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
