/* A send that MPI calls complete must reach its receiver even when the
 * sender makes no MPI call afterwards (issues 12/13: a flat Exscan across
 * 3 emulated hosts hung when its last sender went on to MPI_Finalize
 * while its final messages still sat in the tcp provider's send staging
 * buffer, which only a later progress call of the sender would flush).
 * Layout 1,1 (or any: rank 0 sends, the last rank receives, on another
 * node).  Each round: rank 0 sends a burst of 4 KiB messages (eager, the
 * 4 KiB ones straight from the user's buffer) faster than the receiver
 * takes them, so the socket is full when the last one completes; then it
 * sleeps STALL seconds without any MPI call.  The receiver, slower, must
 * never wait for the sender to wake: no gap of STALL / 2 between two of
 * its messages (it may drain the socket for longer than STALL).
 * The Scan/Exscan rounds then repeat the
 * original case: back-to-back in-place DOUBLE_INT scans of about 4 KiB
 * (flat schedule: SMAP_COLL_HIER=0 or a scan crossover above 4 KiB) with
 * rank 0, which only sends in an Exscan, stalling after each.
 * Honest limit: on this machine neither part caught the staging bug
 * reliably (FI_TCP_STAGING_SBUF_SIZE=9000 passed too): the tail is stuck
 * only when the kernel refuses the very last bytes; the netns suites'
 * coll_reduce (SMAP_COLL_HIER_SCAN_MIN 16K) hung in about half the runs.
 * Last, the injected-message gap at MPI_Finalize (finalize_tail): the last
 * rank fills its socket to rank 0, matches rank 0's Issend (its ACK is a
 * small control message, sent with fi_inject: no completion) and goes
 * straight to MPI_Finalize; rank 0 must see the Issend complete.  An ACK
 * queued in the provider behind a partly written send left only at a
 * later progress call, which the finalizing rank never made (net's drain
 * sentinel, src/net/ofi.c ofi_drain, covers it).  Caught only when the
 * socket is full at the ACK: 3 runs without the sentinel passed here. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "smap_test.h"

#define ROUNDS 2
#define BURST 1000         /* messages per round: 4 MiB, past the socket buffers */
#define MSG 4096           /* bytes: the user-buffer eager path */
#define STALL 1.0          /* seconds without MPI calls */
#define SCAN_N 300         /* DOUBLE_INT elements: 3600 packed bytes */

static void pause_s(double s)
{
    struct timespec t = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    nanosleep(&t, NULL);
}

/* The receiver is slower than the sender: a little work per message. */
static void busy_us(double us)
{
    double end = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < end)
        ;
}

static char buf[MSG];

static void burst_round(int me, int last, int round)
{
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        for (int i = 0; i < BURST; i++) {
            memset(buf, (round * 31 + i) & 0xff, MSG);
            CHECK_RC(MPI_Send(buf, MSG, MPI_BYTE, last, round, MPI_COMM_WORLD));
        }
        pause_s(STALL);   /* no MPI call: nothing of ours progresses */
    } else if (me == last) {
        pause_s(0.3);     /* the sender fills the socket and blocks */
        static char in[MSG];
        double prev = 0, gap = 0;
        int at = 0;
        for (int i = 0; i < BURST; i++) {
            CHECK_RC(MPI_Recv(in, MSG, MPI_BYTE, 0, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            double now = MPI_Wtime();
            if (i && now - prev > gap)
                gap = now - prev, at = i;
            prev = now;
            CHECK(in[0] == (char)((round * 31 + i) & 0xff) && in[MSG - 1] == in[0],
                  "round %d: message %d corrupted", round, i);
            busy_us(40);
        }
        printf("net_flush round %d: longest wait between two messages %.3f s (before %d)\n",
               round, gap, at);
        /* a stuck tail: the receiver idles until the sender wakes */
        CHECK(gap < STALL / 2, "round %d: message %d came %.3f s after the previous one: "
              "completed sends waited for the sender's progress", round, at, gap);
    }
}

/* In-place Scan and Exscan of SCAN_N DOUBLE_INT with MAXLOC, rank 0
 * stalling after each (it only sends in the Exscan's recursive doubling). */
static void scan_rounds(int me, int np)
{
    static struct { double v; int i; } x[SCAN_N];
    for (int round = 0; round < 2 * ROUNDS; round++) {
        int ex = round % 2;
        for (int e = 0; e < SCAN_N; e++)
            x[e].v = (double)((me * 7 + e) % np), x[e].i = me;
        double t0 = MPI_Wtime();
        if (ex)
            CHECK_RC(MPI_Exscan(MPI_IN_PLACE, x, SCAN_N, MPI_DOUBLE_INT, MPI_MAXLOC,
                                MPI_COMM_WORLD));
        else
            CHECK_RC(MPI_Scan(MPI_IN_PLACE, x, SCAN_N, MPI_DOUBLE_INT, MPI_MAXLOC,
                              MPI_COMM_WORLD));
        double took = MPI_Wtime() - t0;
        int upto = ex ? me - 1 : me;
        for (int e = 0; upto >= 0 && e < SCAN_N; e++) {
            /* MAXLOC of (r*7+e) % np over ranks 0..upto, lowest rank on ties */
            double best = -1;
            int at = -1;
            for (int r = 0; r <= upto; r++)
                if ((double)((r * 7 + e) % np) > best)
                    best = (double)((r * 7 + e) % np), at = r;
            CHECK(x[e].v == best && x[e].i == at, "%s round %d: element %d is (%g, %d), not "
                  "(%g, %d)", ex ? "exscan" : "scan", round, e, x[e].v, x[e].i, best, at);
        }
        if (me == 0)
            pause_s(STALL / 2);
        /* the others got rank 0's data while it slept, not after */
        CHECK(me == 0 || took < STALL / 2 + 0.3 || !ex,
              "exscan round %d took %.3f s: rank 0's messages waited for its progress", round,
              took);
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    }
}

/* The last rank floods rank 0, answers its Issend and finalizes at once. */
static void finalize_tail(int me, int last)
{
    static char in[MSG];
    int tiny = 42;
    if (me == 0) {
        MPI_Request req;
        CHECK_RC(MPI_Issend(&tiny, 1, MPI_INT, last, 99, MPI_COMM_WORLD, &req));
        for (int i = 0; i < BURST; i++) {
            CHECK_RC(MPI_Recv(in, MSG, MPI_BYTE, last, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            busy_us(40);
        }
        int done = 0;
        double end = MPI_Wtime() + 10 * STALL;
        while (!done && MPI_Wtime() < end)
            CHECK_RC(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
        CHECK(done, "the Issend's ACK never came: the last rank finalized with it unsent");
    } else if (me == last) {
        memset(buf, 7, MSG);
        for (int i = 0; i < BURST; i++)
            CHECK_RC(MPI_Send(buf, MSG, MPI_BYTE, 0, 98, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(&tiny, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(tiny == 42, "Issend delivered %d, not 42", tiny);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(np >= 2, "needs 2 ranks or more");
    for (int round = 0; round < ROUNDS; round++)
        burst_round(me, np - 1, round);
    scan_rounds(me, np);
    finalize_tail(me, np - 1);
    MPI_Finalize();
    if (me == 0)
        printf("PASS net_flush np %d\n", np);
    return 0;
}
