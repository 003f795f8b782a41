/* Coalescing of small eager sends between nodes (net.h's bundles, in both
 * engines: src/net/ofi, src/net/ucx):
 * several messages to one peer travel in one transport message, sent by
 * the next progress round.  Checked here, rank 0 sending to the last rank
 * (on another node):
 *   - a stream of nonblocking sends of mixed sizes (empty, tiny, a few KiB,
 *     around the coalescing limit, past it, rendezvous) and modes
 *     (synchronous, non-contiguous) arrives complete and in order
 *     (non-overtaking), matched by MPI_ANY_TAG receives;
 *   - a blocking MPI_Send of a few bytes, and an MPI_Isend completed by
 *     MPI_Wait, are on their way when the call returns: the receiver gets
 *     them while the sender sleeps without calling MPI (a bundle left for
 *     "the next progress round" would wait for the sender's next call).
 * Other ranks only join the barriers. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smap_test.h"

#define NMSG 300
#define MAXLEN (200 * 1024)

static const int sizes[] = { 0, 1, 7, 64, 100, 1000, 4096, 5000, 16384, 32000, 33000,
                             40000, 65536, 70000, 200000 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int size_of(int i)
{
    return sizes[(i * 7 + i / 3) % NSIZES];
}

static void fill(unsigned char *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(seed * 31 + i * 7);
}

static int check(const unsigned char *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        if (b[i] != (unsigned char)(seed * 31 + i * 7))
            return i;
    return -1;
}

/* A blocking send's message must be on its way when MPI_Send returns. */
static void no_progress_needed(int me, int peer, int use_isend)
{
    char b[8] = "bundle";
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        if (use_isend) {
            MPI_Request rq;
            CHECK_RC(MPI_Isend(b, 8, MPI_CHAR, peer, 5, MPI_COMM_WORLD, &rq));
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            CHECK_RC(MPI_Send(b, 8, MPI_CHAR, peer, 5, MPI_COMM_WORLD));
        }
        sleep(2);   /* no MPI call meanwhile */
    } else if (me == peer) {
        char r[8] = { 0 };
        double t0 = MPI_Wtime();
        CHECK_RC(MPI_Recv(r, 8, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        double t = MPI_Wtime() - t0;
        CHECK(!strcmp(r, "bundle"), "wrong payload '%s'", r);
        CHECK(t < 1.5, "%s of 8 bytes arrived after %.2f s: it waited for the sender's next MPI call",
              use_isend ? "MPI_Isend+MPI_Wait" : "MPI_Send", t);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int peer = np - 1;
    CHECK(np >= 2, "needs 2 ranks, got %d", np);

    /* every 5th element of a strided type: a non-contiguous send */
    MPI_Datatype strided;
    CHECK_RC(MPI_Type_vector(64, 1, 5, MPI_UNSIGNED_CHAR, &strided));
    CHECK_RC(MPI_Type_commit(&strided));

    if (me == 0) {
        unsigned char **buf = calloc(NMSG, sizeof *buf);
        MPI_Request *rq = calloc(NMSG, sizeof *rq);
        CHECK(buf && rq, "out of memory");
        for (int i = 0; i < NMSG; i++) {
            int n = size_of(i);
            buf[i] = malloc(n > 320 ? (size_t)n : 320);
            CHECK(buf[i] != NULL, "out of memory");
            fill(buf[i], n > 320 ? n : 320, i);
            if (i % 50 == 17)
                CHECK_RC(MPI_Issend(buf[i], n, MPI_UNSIGNED_CHAR, peer, i, MPI_COMM_WORLD, &rq[i]));
            else if (i % 50 == 33)
                CHECK_RC(MPI_Isend(buf[i], 1, strided, peer, i, MPI_COMM_WORLD, &rq[i]));
            else
                CHECK_RC(MPI_Isend(buf[i], n, MPI_UNSIGNED_CHAR, peer, i, MPI_COMM_WORLD, &rq[i]));
        }
        CHECK_RC(MPI_Waitall(NMSG, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < NMSG; i++)
            free(buf[i]);
        free(buf);
        free(rq);
    } else if (me == peer) {
        unsigned char *r = malloc(MAXLEN);
        CHECK(r != NULL, "out of memory");
        for (int i = 0; i < NMSG; i++) {
            MPI_Status st;
            int n = i % 50 == 33 ? 64 : size_of(i), got = -1;
            CHECK_RC(MPI_Recv(r, MAXLEN, MPI_UNSIGNED_CHAR, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK_RC(MPI_Get_count(&st, MPI_UNSIGNED_CHAR, &got));
            CHECK(st.MPI_TAG == i, "message %d arrived as number %d (overtaken)", st.MPI_TAG, i);
            CHECK(got == n, "message %d: %d bytes, expected %d", i, got, n);
            if (i % 50 == 33) {
                for (int k = 0; k < 64; k++)
                    CHECK(r[k] == (unsigned char)(i * 31 + k * 5 * 7),
                          "message %d: strided byte %d wrong", i, k);
            } else {
                int bad = check(r, n, i);
                CHECK(bad < 0, "message %d (%d bytes): byte %d wrong", i, n, bad);
            }
        }
        free(r);
    }
    no_progress_needed(me, peer, 0);
    no_progress_needed(me, peer, 1);
    CHECK_RC(MPI_Type_free(&strided));
    MPI_Finalize();
    if (me == 0)
        printf("net_coalesce: ok (%d messages, %d ranks)\n", NMSG, np);
    return 0;
}
