/* MPI_THREAD_MULTIPLE: several threads per rank use MPI at once.
 *
 *   storm     every thread exchanges tagged messages with every other rank
 *             (blocking and nonblocking sends, receives from MPI_ANY_SOURCE
 *             by tag, eager and rendezvous sizes), each checked by content
 *   probe     threads find their messages with MPI_Improbe + MPI_Mrecv,
 *             MPI_Mprobe + MPI_Imrecv and MPI_Iprobe + MPI_Recv
 *   bsend     every thread buffered-sends (MPI_Bsend, one attached buffer)
 *             to its neighbour while receiving from the other
 *   blocked   one thread blocked in MPI_Recv while another thread of the
 *             same rank sends later (the blocked one must not stop it)
 *   colls     each thread runs Barrier/Allreduce/Bcast on its own duplicate
 *             of MPI_COMM_WORLD, all at once
 *   dups      each thread duplicates its communicator concurrently (context
 *             ids agreed by several threads at once), uses and frees it
 *
 * usage: p2p_threads [THREADS] [ROUNDS] */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "smap_test.h"

#define MAXT 8
#define BIG 40000   /* bytes: above the eager limit (rendezvous) */

static int rank, np, nthreads = 4, rounds = 20;
static MPI_Comm tcomm[MAXT];

static uint32_t word(int src, int t, int i, size_t k)
{
    return (uint32_t)src * 1000003u + (uint32_t)t * 10007u + (uint32_t)i * 131u + (uint32_t)k;
}

static size_t msg_bytes(int i)
{
    return i % 7 == 3 ? BIG : (size_t)(4 + 4 * (i % 5));
}

static void fill(uint32_t *b, size_t bytes, int src, int t, int i)
{
    for (size_t k = 0; k < bytes / 4; k++)
        b[k] = word(src, t, i, k);
}

static void check(const uint32_t *b, size_t bytes, int src, int t, int i, const char *what)
{
    for (size_t k = 0; k < bytes / 4; k++)
        CHECK(b[k] == word(src, t, i, k), "%s: thread %d message %d from %d word %zu: %u", what, t,
              i, src, k, (unsigned)b[k]);
}

/* Tags: thread t owns [t * 10000, t * 10000 + 9999]. */
static int tag_of(int t, int i)
{
    return t * 10000 + i;
}

/* ---- storm ---- */
static void storm(int t)
{
    size_t cap = BIG / 4;
    uint32_t *sb = malloc((size_t)np * cap * 4), *rb = malloc(cap * 4);
    MPI_Request *req = malloc((size_t)np * sizeof *req);
    CHECK(sb && rb && req, "out of memory");
    for (int i = 0; i < rounds; i++) {
        size_t n = msg_bytes(i);
        int nreq = 0;
        for (int p = 0; p < np; p++) {
            if (p == rank)
                continue;
            uint32_t *b = sb + (size_t)p * cap;
            fill(b, n, rank, t, i);
            if ((i + t) % 3 == 0)
                CHECK_RC(MPI_Issend(b, (int)n, MPI_BYTE, p, tag_of(t, i), MPI_COMM_WORLD,
                                    &req[nreq++]));
            else
                CHECK_RC(MPI_Isend(b, (int)n, MPI_BYTE, p, tag_of(t, i), MPI_COMM_WORLD,
                                   &req[nreq++]));
        }
        for (int k = 0; k < np - 1; k++) {
            MPI_Status st;
            memset(rb, 0xee, n);
            if (k % 2 == 0) {
                CHECK_RC(MPI_Recv(rb, (int)cap * 4, MPI_BYTE, MPI_ANY_SOURCE, tag_of(t, i),
                                  MPI_COMM_WORLD, &st));
            } else {
                MPI_Request r;
                CHECK_RC(MPI_Irecv(rb, (int)cap * 4, MPI_BYTE, MPI_ANY_SOURCE, tag_of(t, i),
                                   MPI_COMM_WORLD, &r));
                int flag = 0;
                while (!flag)
                    CHECK_RC(MPI_Test(&r, &flag, &st));
            }
            int count;
            CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK(count == (int)n && st.MPI_TAG == tag_of(t, i), "storm: count %d tag %d", count,
                  st.MPI_TAG);
            check(rb, n, st.MPI_SOURCE, t, i, "storm");
        }
        CHECK_RC(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    }
    free(sb);
    free(rb);
    free(req);
}

/* ---- probe ---- */
static void probe(int t)
{
    int per = rounds / 2 + 1, base = 5000;
    uint32_t *sb = malloc((size_t)per * BIG), *rb = malloc(BIG);
    MPI_Request *req = malloc((size_t)per * (size_t)np * sizeof *req);
    CHECK(sb && rb && req, "out of memory");
    int nreq = 0;
    for (int p = 0; p < np; p++) {
        if (p == rank)
            continue;
        for (int i = 0; i < per; i++) {
            uint32_t *b = (uint32_t *)((char *)sb + (size_t)i * BIG);
            size_t n = msg_bytes(i);
            fill(b, n, rank, t, i);
            /* one tag per message: the receiver learns i from the status */
            CHECK_RC(MPI_Isend(b, (int)n, MPI_BYTE, p, tag_of(t, base + i), MPI_COMM_WORLD,
                               &req[nreq++]));
        }
    }
    int expect = per * (np - 1), got = 0;
    while (got < expect) {
        MPI_Status st;
        int flag = 0, count, i;
        MPI_Message m;
        int how = (got + t) % 3;
        if (how == 0) {
            for (i = 0; i < per && !flag; i++)
                CHECK_RC(MPI_Improbe(MPI_ANY_SOURCE, tag_of(t, base + i), MPI_COMM_WORLD, &flag,
                                     &m, &st));
            if (!flag)
                continue;
            CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK_RC(MPI_Mrecv(rb, count, MPI_BYTE, &m, MPI_STATUS_IGNORE));
        } else if (how == 1) {
            /* any tag of ours: find it with Iprobe, then Mprobe it */
            for (i = 0; i < per && !flag; i++)
                CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, tag_of(t, base + i), MPI_COMM_WORLD, &flag,
                                    &st));
            if (!flag)
                continue;
            CHECK_RC(MPI_Mprobe(st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &m, &st));
            CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count));
            MPI_Request r;
            CHECK_RC(MPI_Imrecv(rb, count, MPI_BYTE, &m, &r));
            CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            for (i = 0; i < per && !flag; i++)
                CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, tag_of(t, base + i), MPI_COMM_WORLD, &flag,
                                    &st));
            if (!flag)
                continue;
            CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count));
            /* the tag is this thread's: nobody else can take the message */
            CHECK_RC(MPI_Recv(rb, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
        }
        int mi = st.MPI_TAG - tag_of(t, base);
        CHECK(mi >= 0 && mi < per && count == (int)msg_bytes(mi), "probe: tag %d count %d",
              st.MPI_TAG, count);
        check(rb, (size_t)count, st.MPI_SOURCE, t, mi, "probe");
        got++;
    }
    /* (rendezvous sends complete once their receiver matched them) */
    CHECK_RC(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    free(sb);
    free(rb);
    free(req);
}

/* ---- buffered sends from every thread into one attached buffer ---- */
#define NBSEND 16
static void bsend(int t)
{
    int right = (rank + 1) % np, left = (rank + np - 1) % np;
    for (int i = 0; i < rounds; i++) {
        uint32_t out[NBSEND], in[NBSEND];
        fill(out, sizeof out, rank, t, i);
        CHECK_RC(MPI_Bsend(out, NBSEND, MPI_UINT32_T, right, tag_of(t, 7000 + i), MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(in, NBSEND, MPI_UINT32_T, left, tag_of(t, 7000 + i), MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
        check(in, sizeof in, left, t, i, "bsend");
    }
}

/* ---- blocked receiver, later sender ---- */
static void blocked(int t)
{
    int right = (rank + 1) % np, left = (rank + np - 1) % np, v = -1, tag = tag_of(MAXT, 77);
    if (t == 0) {
        CHECK_RC(MPI_Recv(&v, 1, MPI_INT, right, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == right * 7 + 1, "blocked: got %d from %d", v, right);
    } else if (t == 1) {
        usleep(100 * 1000);   /* thread 0 of every rank is blocked by now */
        v = rank * 7 + 1;
        CHECK_RC(MPI_Send(&v, 1, MPI_INT, left, tag, MPI_COMM_WORLD));
    }
}

/* ---- collectives on per-thread communicators ---- */
static void colls(int t)
{
    MPI_Comm c = tcomm[t];
    for (int i = 0; i < rounds; i++) {
        CHECK_RC(MPI_Barrier(c));
        long v[3] = { rank + t, i, 1 }, s[3];
        CHECK_RC(MPI_Allreduce(v, s, 3, MPI_LONG, MPI_SUM, c));
        CHECK(s[0] == (long)np * (np - 1) / 2 + (long)np * t && s[1] == (long)np * i && s[2] == np,
              "allreduce on thread %d's comm: %ld %ld %ld", t, s[0], s[1], s[2]);
        int b[64];
        int root = (i + t) % np;
        for (int k = 0; k < 64; k++)
            b[k] = rank == root ? k * 3 + t + i : -1;
        CHECK_RC(MPI_Bcast(b, 64, MPI_INT, root, c));
        for (int k = 0; k < 64; k++)
            CHECK(b[k] == k * 3 + t + i, "bcast on thread %d's comm: b[%d] = %d", t, k, b[k]);
    }
}

/* ---- concurrent creation ---- */
static void dups(int t)
{
    for (int i = 0; i < 3; i++) {
        MPI_Comm d;
        CHECK_RC(MPI_Comm_dup(tcomm[t], &d));
        /* Same tag on every thread's new communicator: the contexts keep
         * the threads' messages apart (were two ids equal, they would mix). */
        int right = (rank + 1) % np, left = (rank + np - 1) % np;
        int out[2] = { t, i }, in[2] = { -1, -1 };
        CHECK_RC(MPI_Sendrecv(out, 2, MPI_INT, right, 5, in, 2, MPI_INT, left, 5, d,
                              MPI_STATUS_IGNORE));
        CHECK(in[0] == t && in[1] == i, "dup %d of thread %d got a message of thread %d dup %d", i,
              t, in[0], in[1]);
        CHECK_RC(MPI_Comm_free(&d));
    }
}

struct job {
    int t;
    void (*fn)(int);
};

static void *run(void *arg)
{
    struct job *j = arg;
    j->fn(j->t);
    return NULL;
}

static void phase(const char *name, void (*fn)(int), int n)
{
    pthread_t th[MAXT];
    struct job jobs[MAXT];
    double t0 = MPI_Wtime();
    for (int t = 0; t < n; t++) {
        jobs[t] = (struct job){ t, fn };
        CHECK(pthread_create(&th[t], NULL, run, &jobs[t]) == 0, "pthread_create");
    }
    for (int t = 0; t < n; t++)
        pthread_join(th[t], NULL);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("%-8s %d threads per rank: ok (%.2f s)\n", name, n, MPI_Wtime() - t0);
}

int main(int argc, char **argv)
{
    int provided;
    CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    if (argc > 1)
        nthreads = atoi(argv[1]);
    if (argc > 2)
        rounds = atoi(argv[2]);
    CHECK(nthreads >= 2 && nthreads <= MAXT && rounds > 0, "usage: %s [2..%d threads] [rounds]",
          argv[0], MAXT);
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &np));
    CHECK(np >= 2, "needs 2 ranks or more");
    for (int t = 0; t < nthreads; t++)
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]));

    phase("storm", storm, nthreads);
    phase("probe", probe, nthreads);
    /* Room for every message that can be in flight: in a ring, a thread
     * runs at most np rounds ahead of its right neighbour. */
    int bsize = nthreads * (np + 2) * (NBSEND * 4 + MPI_BSEND_OVERHEAD + 64);
    char *bbuf = malloc((size_t)bsize);
    CHECK(bbuf, "out of memory");
    CHECK_RC(MPI_Buffer_attach(bbuf, bsize));
    phase("bsend", bsend, nthreads);
    void *det;
    int dsize;
    CHECK_RC(MPI_Buffer_detach(&det, &dsize));
    CHECK(det == bbuf && dsize == bsize, "detach returned %p/%d", det, dsize);
    free(bbuf);
    phase("blocked", blocked, 2);
    phase("colls", colls, nthreads);
    phase("dups", dups, nthreads);

    for (int t = 0; t < nthreads; t++)
        CHECK_RC(MPI_Comm_free(&tcomm[t]));
    CHECK_RC(MPI_Finalize());
    return 0;
}
