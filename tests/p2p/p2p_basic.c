/* Point-to-point basics between rank pairs (any rank count >= 2): every
 * protocol size (eager, eager limit, rendezvous, streamed), buffers on the
 * stack, heap, globals, TLS and a private mmap, wildcards, MPI_PROC_NULL,
 * zero-length messages, send-to-self, synchronous and ready mode, a
 * derived (strided) datatype on either side, and content checks. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "smap_test.h"

static unsigned char global_buf[1 << 20];
static __thread unsigned char tls_buf[1 << 16];

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131u + i * 7u + (i >> 8));
}

static void check(const unsigned char *p, size_t n, unsigned seed, const char *what)
{
    for (size_t i = 0; i < n; i++)
        CHECK(p[i] == (unsigned char)(seed * 131u + i * 7u + (i >> 8)), "%s: byte %zu of %zu", what, i, n);
}

/* rank a sends `n` bytes from sbuf to rank b which receives into rbuf. */
static void pingpong(int me, int peer, unsigned char *sbuf, unsigned char *rbuf, size_t n,
                     unsigned seed, const char *what)
{
    MPI_Status st;
    if (me < peer) {
        fill(sbuf, n, seed);
        CHECK_RC(MPI_Send(sbuf, (int)n, MPI_BYTE, peer, (int)seed, MPI_COMM_WORLD));
        memset(rbuf, 0, n);
        CHECK_RC(MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, (int)seed, MPI_COMM_WORLD, &st));
        check(rbuf, n, seed + 1, what);
    } else {
        memset(rbuf, 0, n);
        CHECK_RC(MPI_Recv(rbuf, (int)n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == (int)seed, "%s: status %d/%d", what,
              st.MPI_SOURCE, st.MPI_TAG);
        int cnt;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == (int)n, "%s: count %d != %zu", what, cnt, n);
        check(rbuf, n, seed, what);
        fill(sbuf, n, seed + 1);
        CHECK_RC(MPI_Send(sbuf, (int)n, MPI_BYTE, peer, (int)seed, MPI_COMM_WORLD));
    }
}

static const size_t sizes[] = { 0, 1, 8, 100, 4096, 8159, 8160, 8161, 20000, 65536, 300001, 1 << 20 };

static void sizes_on(int me, int peer, unsigned char *s, unsigned char *r, size_t cap, const char *what)
{
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i] <= cap)
            pingpong(me, peer, s, r, sizes[i], (unsigned)i + 3, what);
}

static void strided(int me, int peer)
{
    /* 1000 ints every other int on the sender, dense on the receiver, and back. */
    enum { N = 5000 };
    int *a = malloc(2 * N * sizeof(int)), *b = malloc(2 * N * sizeof(int));
    MPI_Datatype vec;
    CHECK_RC(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    if (me < peer) {
        for (int i = 0; i < 2 * N; i++)
            a[i] = i;
        CHECK_RC(MPI_Send(a, 1, vec, peer, 7, MPI_COMM_WORLD));
        for (int i = 0; i < 2 * N; i++)
            b[i] = -1;
        CHECK_RC(MPI_Recv(b, 1, vec, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < 2 * N; i++)
            CHECK(b[i] == (i % 2 ? -1 : 3 * (i / 2)), "strided recv %d: %d", i, b[i]);
    } else {
        CHECK_RC(MPI_Recv(b, N, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++)
            CHECK(b[i] == 2 * i, "strided send %d: %d", i, b[i]);
        for (int i = 0; i < N; i++)
            a[i] = 3 * i;
        CHECK_RC(MPI_Send(a, N, MPI_INT, peer, 8, MPI_COMM_WORLD));
    }
    MPI_Type_free(&vec);
    free(a);
    free(b);
}

static void self_and_null(int me)
{
    unsigned char *s = malloc(1 << 20), *r = malloc(1 << 20);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        MPI_Request q[2];
        fill(s, n, (unsigned)n);
        memset(r, 0, n);
        CHECK_RC(MPI_Irecv(r, (int)n, MPI_BYTE, me, 5, MPI_COMM_WORLD, &q[0]));
        CHECK_RC(MPI_Isend(s, (int)n, MPI_BYTE, me, 5, MPI_COMM_WORLD, &q[1]));
        CHECK_RC(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        check(r, n, (unsigned)n, "self");
        /* MPI_COMM_SELF too, receive posted late */
        CHECK_RC(MPI_Isend(s, (int)n, MPI_BYTE, 0, 6, MPI_COMM_SELF, &q[1]));
        memset(r, 0, n);
        CHECK_RC(MPI_Recv(r, (int)n, MPI_BYTE, 0, 6, MPI_COMM_SELF, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
        check(r, n, (unsigned)n, "comm_self");
    }
    MPI_Status st;
    CHECK_RC(MPI_Send(s, 10, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    CHECK_RC(MPI_Recv(r, 10, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "proc_null status");
    int cnt = -1;
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK(cnt == 0, "proc_null count %d", cnt);
    free(s);
    free(r);
}

static void modes(int me, int peer)
{
    int v = me, w = -1;
    if (me < peer) {
        CHECK_RC(MPI_Ssend(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(&w, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Rsend(&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD));
    } else {
        MPI_Request q;
        CHECK_RC(MPI_Recv(&w, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(w == peer, "ssend value");
        CHECK_RC(MPI_Irecv(&w, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &q));
        CHECK_RC(MPI_Send(&v, 1, MPI_INT, peer, 2, MPI_COMM_WORLD));
        CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK(w == peer, "rsend value");
    }
}

/* One sender, one tag: a rendezvous-sized nonblocking send, blocking
 * small and empty ones (across nodes: copied messages without a request),
 * a nonblocking small one and a blocking one sent from the user's buffer
 * must arrive in the order sent (non-overtaking). */
static void mixed_order(int me, int peer)
{
    static const size_t len[] = { 300001, 8, 0, 100, 4096, 1 };
    enum { N = sizeof len / sizeof len[0] };
    unsigned char *b = malloc(300001);
    CHECK(b != NULL, "malloc");
    if (me < peer) {
        unsigned char *s[N];
        MPI_Request q[2];
        for (int i = 0; i < N; i++) {
            s[i] = malloc(len[i] + 1);
            CHECK(s[i] != NULL, "malloc");
            fill(s[i], len[i], 40 + (unsigned)i);
        }
        CHECK_RC(MPI_Isend(s[0], (int)len[0], MPI_BYTE, peer, 5, MPI_COMM_WORLD, &q[0]));
        CHECK_RC(MPI_Send(s[1], (int)len[1], MPI_BYTE, peer, 5, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(s[2], (int)len[2], MPI_BYTE, peer, 5, MPI_COMM_WORLD));
        CHECK_RC(MPI_Isend(s[3], (int)len[3], MPI_BYTE, peer, 5, MPI_COMM_WORLD, &q[1]));
        CHECK_RC(MPI_Send(s[4], (int)len[4], MPI_BYTE, peer, 5, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(s[5], (int)len[5], MPI_BYTE, peer, 5, MPI_COMM_WORLD));
        CHECK_RC(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        for (int i = 0; i < N; i++)
            free(s[i]);
    } else {
        /* (let them all arrive first: the unexpected queue's order too) */
        CHECK_RC(MPI_Probe(peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++) {
            MPI_Status st;
            int cnt = -1;
            CHECK_RC(MPI_Recv(b, 300001, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(cnt == (int)len[i], "mixed order: message %d has %d bytes, expected %zu", i,
                  cnt, len[i]);
            check(b, len[i], 40 + (unsigned)i, "mixed order");
        }
    }
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(np >= 2 && np % 2 == 0, "needs an even number of ranks");
    int peer = me ^ 1;

    unsigned char *hs = malloc(1 << 20), *hr = malloc(1 << 20);
    sizes_on(me, peer, hs, hr, 1 << 20, "heap");
    unsigned char stk_s[70000], stk_r[70000];
    sizes_on(me, peer, stk_s, stk_r, sizeof stk_s, "stack");
    sizes_on(me, peer, global_buf, hr, 1 << 20, "global->heap");
    sizes_on(me, peer, tls_buf, stk_r, sizeof tls_buf, "tls->stack");
    unsigned char *m = mmap(NULL, 1 << 21, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED, "mmap");
    sizes_on(me, peer, m, m + (1 << 20), 1 << 20, "mmap");
    munmap(m, 1 << 21);
    strided(me, peer);
    self_and_null(me);
    modes(me, peer);
    mixed_order(me, peer);
    free(hs);
    free(hr);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
