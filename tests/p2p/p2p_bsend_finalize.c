/* MPI_Finalize completes pending buffered sends: rank 0 attaches a buffer,
 * MPI_Bsends messages (small and rendezvous-sized) and calls MPI_Finalize
 * at once, without detaching; rank 1 receives them only later.  Under
 * SMAP_COPY=bounce the large one needs rank 0 to stream it, so this hangs
 * (test timeout) unless Finalize progresses until the buffer drains. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "smap_test.h"

enum { BIG = 256 * 1024 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(np == 2, "needs 2 ranks, got %d", np);
    unsigned char *big = malloc(BIG);
    CHECK(big != NULL, "out of memory");
    int small = 0;
    if (me == 0) {
        int bsize = BIG + 64 + 4 * MPI_BSEND_OVERHEAD;
        void *buf = malloc((size_t)bsize);
        CHECK(buf != NULL, "out of memory");
        CHECK_RC(MPI_Buffer_attach(buf, bsize));
        for (int i = 0; i < BIG; i++)
            big[i] = (unsigned char)(i * 7 + 3);
        small = 4242;
        CHECK_RC(MPI_Bsend(&small, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
        CHECK_RC(MPI_Bsend(big, BIG, MPI_BYTE, 1, 2, MPI_COMM_WORLD));
        /* The user's copy may change at once: the data is in the buffer. */
        for (int i = 0; i < BIG; i++)
            big[i] = 0;
    } else {
        usleep(200 * 1000);
        CHECK_RC(MPI_Recv(&small, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(small == 4242, "small message %d", small);
        CHECK_RC(MPI_Recv(big, BIG, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < BIG; i++)
            CHECK(big[i] == (unsigned char)(i * 7 + 3), "byte %d: %d", i, big[i]);
        printf("PASS\n");
    }
    MPI_Finalize();
    free(big);
    return 0;
}
