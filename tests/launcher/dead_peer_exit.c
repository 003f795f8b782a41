/* The last rank waits to be killed (SIGKILL, by the test) while the others
 * wait for it in MPI_Barrier (MPI_ERRORS_ARE_FATAL): they notice the death
 * and abort, and the job must still report the killed rank's own death
 * (exit 137), not their abort (issue 36: 1 of 20 runs exited 16).
 * argv[1]: a directory where rank r writes ready.<r> (its pid) once it is
 * about to wait. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static void ready(const char *dir, int rank)
{
    char path[4096], tmp[4100];
    snprintf(path, sizeof path, "%s/ready.%d", dir, rank);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
    rename(tmp, path);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    ready(argc > 1 ? argv[1] : ".", rank);
    if (rank == size - 1)
        for (;;)
            pause();
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: the barrier with a dead rank completed\n", rank);
    MPI_Finalize();
    return 0;
}
