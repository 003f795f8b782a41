/* A receiver frees its active Irecv of 40 KB (MPI_Request_free) and goes
 * straight to MPI_Finalize; the sender waits for the matching Isend.  The
 * freed receive must still complete, so that the sender's MPI_Wait returns
 * (issue 36, MPICH's pt2pt/rqfree: it hung).  Rounds vary who comes first:
 * the receiver may free the request before or after the message arrives. */
#include <string.h>
#include <unistd.h>

#include "smap_test.h"

#define N (40 * 1024)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks");
    static char buf[4][N];
    MPI_Request req;
    for (int round = 0; round < 4; round++) {
        if (rank == 0) {
            memset(buf[round], 'a' + round, N);
            if (round & 1)
                usleep(20000);   /* the receiver frees before the message comes */
            CHECK_RC(MPI_Isend(buf[round], N, MPI_CHAR, 1, round, MPI_COMM_WORLD, &req));
            CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            CHECK_RC(MPI_Irecv(buf[round], N, MPI_CHAR, 0, round, MPI_COMM_WORLD, &req));
            CHECK_RC(MPI_Request_free(&req));
            CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
        }
    }
    MPI_Finalize();
    return 0;
}
