/* MPI_Barrier really synchronises: in each round every rank creates a file
 * (the late ranks after a delay), and after the barrier every rank must see
 * all of them.  usage: barrier_order DIR */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "smap_test.h"

static void path_of(char *buf, size_t len, const char *dir, int round, int rank)
{
    snprintf(buf, len, "%s/r%d.%d", dir, round, rank);
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK(argc == 2, "usage: %s dir", argv[0]);
    CHECK_RC(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *dir = argv[1];
    if (rank == 0)
        mkdir(dir, 0700);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    char path[4096];
    for (int round = 0; round < 10; round++) {
        if (rank == round % size)
            usleep(30000);   /* this round's late arrival */
        path_of(path, sizeof path, dir, round, rank);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL, "cannot create %s", path);
        fclose(f);
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
        for (int r = 0; r < size; r++) {
            path_of(path, sizeof path, dir, round, r);
            CHECK(access(path, F_OK) == 0, "round %d: left the barrier before rank %d arrived", round, r);
        }
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    for (int round = 0; round < 10; round++) {
        path_of(path, sizeof path, dir, round, rank);
        unlink(path);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        rmdir(dir);
    CHECK_RC(MPI_Finalize());
    return 0;
}
