/* "Unsafe" head-to-head exchange: both ranks call a blocking MPI_Send to
 * each other before their MPI_Recv, with messages of 1-8 KiB.  Open MPI
 * (4 KiB) and MPICH (8 KiB) buffer these eagerly, so such programs work
 * there; here a blocking standard send up to SMAP_P2P_DETACH_MAX whose
 * receiver does not match it moves its data to a library copy and returns.
 * A deadlock shows as the test timeout.  Also checks the data, that a
 * detached send completes in MPI_Finalize when the receive comes late, and
 * the race where the receiver matches just as the sender gives up waiting. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smap_test.h"

static void fill(unsigned char *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 13 + seed);
}

static void check(const unsigned char *b, int n, int seed, const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK(b[i] == (unsigned char)(i * 13 + seed), "%s: byte %d of %d is %d", what, i, n, b[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(np == 2, "needs 2 ranks, got %d", np);
    int peer = 1 - me;
    static unsigned char sbuf[8192], rbuf[8192];
    static const int sizes[] = { 1024, 2048, 4096, 4097, 8192 };
    for (int round = 0; round < 20; round++) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            int n = sizes[k];
            fill(sbuf, n, me + round);
            CHECK_RC(MPI_Send(sbuf, n, MPI_BYTE, peer, (int)k, MPI_COMM_WORLD));
            /* The send buffer is ours again: scribbling must not matter. */
            memset(sbuf, 0xEE, (size_t)n);
            memset(rbuf, 0, (size_t)n);
            MPI_Status st;
            CHECK_RC(MPI_Recv(rbuf, n, MPI_BYTE, peer, (int)k, MPI_COMM_WORLD, &st));
            int got;
            MPI_Get_count(&st, MPI_BYTE, &got);
            CHECK(got == n, "size %d: received %d", n, got);
            check(rbuf, n, peer + round, "head-to-head");
        }
        /* Vary who is late, so the receiver sometimes matches while the
         * sender is deciding to detach. */
        if ((round & 3) == me)
            usleep((useconds_t)(round * 10));
    }
    /* A detached send still pending at MPI_Finalize: rank 1 receives late. */
    fill(sbuf, 4096, 77 + me);
    if (me == 0) {
        CHECK_RC(MPI_Send(sbuf, 4096, MPI_BYTE, 1, 99, MPI_COMM_WORLD));
        memset(sbuf, 0, 4096);
    } else {
        usleep(100 * 1000);
        CHECK_RC(MPI_Recv(rbuf, 4096, MPI_BYTE, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        check(rbuf, 4096, 77, "late receive");
    }
    MPI_Finalize();
    if (me == 0)
        printf("PASS\n");
    return 0;
}
