/* MPI_Cancel of sends to a peer on another node (src/p2p/remote.c): a send
 * its receiver has not matched is cancelled (MPI_Test_cancelled true, the
 * receiver never sees it), whether eager (complete already), synchronous,
 * persistent or rendezvous; one already matched is not (the data arrives,
 * the status says not cancelled).  Eager sends of one block of several KiB
 * (sent from the user's buffer, complete only when the transport is done
 * with it) behave alike.  Rank 0 sends, the last rank (on
 * another node) receives; other ranks only join the barriers. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#define BIG (1 << 20)   /* above any eager limit the tests set: rendezvous */
/* Eager under the default limit and sent from the user's buffer (at least
 * remote.c's ZCOPY_MIN): the cancel may cross the transport's completion. */
#define MID 8192

static int cancelled(MPI_Request *req)
{
    MPI_Status st;
    int flag = -1;
    CHECK_RC(MPI_Cancel(req));
    CHECK_RC(MPI_Wait(req, &st));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    return flag;
}

static void fill(char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (char)(seed + i * 7);
}

static int same(const char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (char)(seed + i * 7))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int peer = np - 1;
    char *big = malloc(BIG), *big2 = malloc(BIG), *mid = malloc(MID);
    CHECK(big && big2 && mid, "out of memory");
    MPI_Request req;

    /* 1. Unmatched sends: cancelled, never seen. */
    if (me == 0) {
        int v = 11;
        CHECK_RC(MPI_Isend(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &req));
        CHECK(cancelled(&req) == 1, "an unmatched eager send was not cancelled");
        fill(big, BIG, 2);
        CHECK_RC(MPI_Isend(big, BIG, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req));
        CHECK(cancelled(&req) == 1, "an unmatched rendezvous send was not cancelled");
        fill(mid, MID, 4);
        CHECK_RC(MPI_Isend(mid, MID, MPI_CHAR, peer, 8, MPI_COMM_WORLD, &req));
        CHECK(cancelled(&req) == 1, "an unmatched mid-size eager send was not cancelled");
        /* cancelled once complete (the transport is done with it), not
         * yet waited for; under a small eager limit it is a rendezvous,
         * which does not complete unmatched: cancelled after 0.5 s */
        CHECK_RC(MPI_Isend(mid, MID, MPI_CHAR, peer, 8, MPI_COMM_WORLD, &req));
        double t0 = MPI_Wtime();
        for (int done = 0; !done && MPI_Wtime() - t0 < 0.5;)
            CHECK_RC(MPI_Request_get_status(req, &done, MPI_STATUS_IGNORE));
        CHECK(cancelled(&req) == 1, "a complete unmatched mid-size eager send was not cancelled");
        CHECK_RC(MPI_Issend(&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &req));
        CHECK(cancelled(&req) == 1, "an unmatched synchronous send was not cancelled");
        CHECK_RC(MPI_Send_init(big, BIG, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &req));
        CHECK_RC(MPI_Start(&req));
        CHECK(cancelled(&req) == 1, "an unmatched persistent send was not cancelled");
        CHECK_RC(MPI_Request_free(&req));
        /* Cancelling twice asks once; MPI_PROC_NULL has nothing to cancel. */
        CHECK_RC(MPI_Isend(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &req));
        CHECK_RC(MPI_Cancel(&req));
        CHECK(cancelled(&req) == 1, "a send cancelled twice was not cancelled");
        CHECK_RC(MPI_Isend(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req));
        CHECK(cancelled(&req) == 0, "a send to MPI_PROC_NULL says cancelled");
    }
    /* (The receiver posts nothing before the cancels are over.) */
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        /* After the cancelled ones, same tags: these are the ones received. */
        int v = 12;
        CHECK_RC(MPI_Send(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
        fill(big, BIG, 3);
        CHECK_RC(MPI_Send(big, BIG, MPI_CHAR, peer, 2, MPI_COMM_WORLD));
    } else if (me == peer) {
        int v = 0, flag = 1;
        MPI_Status st;
        CHECK_RC(MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st));
        CHECK(v == 12, "received %d: a cancelled send arrived", v);
        CHECK_RC(MPI_Recv(big, BIG, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &st));
        CHECK(same(big, BIG, 3), "the rendezvous message is not the one sent after the cancel");
        for (int tag = 1; tag <= 8; tag++) {
            CHECK_RC(MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, &st));
            CHECK(!flag, "a cancelled send with tag %d is visible to the receiver", tag);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2. Matched sends: the cancel fails, the data arrived. */
    if (me == 0) {
        int v = 51, ack;
        MPI_Request r2;
        fill(big, BIG, 6);
        CHECK_RC(MPI_Isend(&v, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &req));
        CHECK_RC(MPI_Isend(big, BIG, MPI_CHAR, peer, 6, MPI_COMM_WORLD, &r2));
        MPI_Request r3;
        fill(mid, MID, 8);
        CHECK_RC(MPI_Isend(mid, MID, MPI_CHAR, peer, 9, MPI_COMM_WORLD, &r3));
        CHECK_RC(MPI_Recv(&ack, 1, MPI_INT, peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(cancelled(&req) == 0, "a matched eager send says cancelled");
        CHECK(cancelled(&r2) == 0, "a matched rendezvous send says cancelled");
        CHECK(cancelled(&r3) == 0, "a matched mid-size eager send says cancelled");
        /* Matched by a receive posted before the RTS came. */
        fill(big2, BIG, 7);
        CHECK_RC(MPI_Isend(big2, BIG, MPI_CHAR, peer, 7, MPI_COMM_WORLD, &r2));
        CHECK_RC(MPI_Recv(&ack, 1, MPI_INT, peer, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int c = cancelled(&r2);
        CHECK(c == 0, "a send the receiver has matched says cancelled");
    } else if (me == peer) {
        int v = 0, ack = 1;
        CHECK_RC(MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Recv(big, BIG, MPI_CHAR, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == 51 && same(big, BIG, 6), "matched sends delivered wrong data");
        CHECK_RC(MPI_Recv(mid, MID, MPI_CHAR, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(same(mid, MID, 8), "a matched mid-size eager send delivered wrong data");
        CHECK_RC(MPI_Send(&ack, 1, MPI_INT, 0, 99, MPI_COMM_WORLD));
        /* Posted before the ack: the RTS, which travels before the
         * cancel, matches it on arrival. */
        CHECK_RC(MPI_Irecv(big2, BIG, MPI_CHAR, 0, 7, MPI_COMM_WORLD, &req));
        MPI_Status st;
        CHECK_RC(MPI_Send(&ack, 1, MPI_INT, 0, 98, MPI_COMM_WORLD));
        CHECK_RC(MPI_Wait(&req, &st));
        CHECK(same(big2, BIG, 7), "a send whose cancel failed delivered wrong data");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(big);
    free(big2);
    free(mid);
    if (me == 0)
        printf("net_cancel: ok\n");
    MPI_Finalize();
    return 0;
}
