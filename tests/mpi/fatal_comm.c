/* An MPI error under MPI_ERRORS_ARE_FATAL on a communicator the program
 * made (argv[1]: dup, split, named, nested = a dup of a split of WORLD), so
 * that the script test checks how the message names it. */
#include <string.h>

#include "smap_test.h"

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    const char *mode = argc > 1 ? argv[1] : "dup";
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm c, s;
    if (!strcmp(mode, "split") || !strcmp(mode, "nested")) {
        CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &s));
        if (!strcmp(mode, "nested"))
            CHECK_RC(MPI_Comm_dup(s, &c));
        else
            c = s;
    } else {
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        if (!strcmp(mode, "named"))
            CHECK_RC(MPI_Comm_set_name(c, "solver_comm"));
    }
    if (rank == 0)
        MPI_Comm_size(c, NULL);   /* the error */
    else
        MPI_Barrier(c);           /* would hang if the job were not stopped */
    printf("NOT REACHED on rank %d\n", rank);
    MPI_Finalize();
    return 0;
}
