/* A member of the communicator dies: the collective that notices returns
 * an error (MPI_ERRORS_RETURN), and every later one on that communicator
 * returns an error too instead of reading the dead member's unmapped
 * control block (it used to fault).  The last rank exits after one
 * collective; the others then try the small and the generic paths. */
#include <stdio.h>
#include <unistd.h>

#include "smap_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(np >= 2, "needs 2 ranks or more");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int dead = np - 1, v[4] = { me, 1, 2, 3 }, w[4];
    static char big[1 << 16];
    CHECK_RC(MPI_Bcast(v, 4, MPI_INT, dead, MPI_COMM_WORLD));
    if (me == dead)
        _exit(0);
    /* the first call waits for the dead root and notices */
    CHECK(MPI_Bcast(v, 4, MPI_INT, dead, MPI_COMM_WORLD) != MPI_SUCCESS,
          "bcast from a dead root succeeded");
    CHECK(MPI_Bcast(v, 4, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS, "small bcast succeeded");
    CHECK(MPI_Bcast(big, sizeof big, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS,
          "large bcast succeeded");
    CHECK(MPI_Reduce(v, w, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS,
          "reduce succeeded");
    CHECK(MPI_Allreduce(v, w, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS,
          "allreduce succeeded");
    if (me == 0)
        printf("PASS coll_dead_peer np %d\n", np);
    fflush(stdout);
    _exit(0);   /* MPI_Finalize would wait for the dead rank */
}
