/* Random message storm: every rank sends NMSG messages of random sizes
 * (0..1 MiB, mostly small), tags and destinations (itself included), all
 * nonblocking at once; receivers take them with fully wildcard receives
 * and check content and the non-overtaking order per sender.  A second
 * phase posts receives for specific tags in a scrambled order (matching
 * against the unexpected queue and the posted queue).  The plan comes from
 * a seed every rank shares (argv[1], default 1). */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#define NMSG 150

struct msg {
    int dest, tag;
    size_t len;
};

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static size_t rnd_size(void)
{
    unsigned k = (unsigned)(rnd() % 100);
    if (k < 45)
        return rnd() % 65;
    if (k < 75)
        return rnd() % 8300;
    if (k < 95)
        return rnd() % 70000;
    return rnd() % ((1 << 20) + 1);
}

static unsigned char pat(int src, int seq, size_t i)
{
    return (unsigned char)(src * 37 + seq * 11 + i * 3 + (i >> 9));
}

static void make(unsigned char *p, int src, int seq, size_t len)
{
    for (size_t i = 0; i < len; i++)
        p[i] = pat(src, seq, i);
    if (len >= 8) {
        memcpy(p, &src, 4);
        memcpy(p + 4, &seq, 4);
    }
}

static void verify(const unsigned char *p, int src, int seq, size_t len)
{
    for (size_t i = len >= 8 ? 8 : 0; i < len; i++)
        CHECK(p[i] == pat(src, seq, i), "message %d from %d: byte %zu of %zu", seq, src, i, len);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;

    /* Everyone's plan. */
    struct msg *plan = malloc(sizeof *plan * (size_t)np * NMSG);
    rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
    for (int s = 0; s < np; s++)
        for (int k = 0; k < NMSG; k++) {
            struct msg *m = &plan[s * NMSG + k];
            m->dest = (int)(rnd() % (uint64_t)np);
            m->tag = (int)(rnd() % 5);
            m->len = rnd_size();
        }

    /* Phase 1: all sends at once, wildcard receives. */
    MPI_Request *sreq = malloc(sizeof *sreq * NMSG);
    unsigned char **sbuf = malloc(sizeof *sbuf * NMSG);
    for (int k = 0; k < NMSG; k++) {
        struct msg *m = &plan[me * NMSG + k];
        sbuf[k] = malloc(m->len + 1);
        make(sbuf[k], me, k, m->len);
    }
    int expect = 0;
    for (int s = 0; s < np; s++)
        for (int k = 0; k < NMSG; k++)
            expect += plan[s * NMSG + k].dest == me;
    int *next = calloc((size_t)np, sizeof *next);   /* next seq index per sender */
    unsigned char *rbuf = malloc((1 << 20) + 8);
    int sent = 0;
    for (int got = 0; got < expect || sent < NMSG;) {
        /* Interleave: a few sends, then one receive. */
        for (int j = 0; j < 3 && sent < NMSG; j++, sent++) {
            struct msg *m = &plan[me * NMSG + sent];
            CHECK_RC(MPI_Isend(sbuf[sent], (int)m->len, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD,
                               &sreq[sent]));
        }
        if (got == expect)
            continue;
        MPI_Status st;
        CHECK_RC(MPI_Recv(rbuf, (1 << 20) + 8, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                          MPI_COMM_WORLD, &st));
        int s = st.MPI_SOURCE, len;
        CHECK(s >= 0 && s < np, "source %d", s);
        MPI_Get_count(&st, MPI_BYTE, &len);
        /* Non-overtaking: the next message this sender sent to us. */
        while (next[s] < NMSG && plan[s * NMSG + next[s]].dest != me)
            next[s]++;
        CHECK(next[s] < NMSG, "extra message from %d", s);
        struct msg *m = &plan[s * NMSG + next[s]];
        CHECK(st.MPI_TAG == m->tag && (size_t)len == m->len,
              "from %d: got tag %d len %d, expected message %d tag %d len %zu", s, st.MPI_TAG,
              len, next[s], m->tag, m->len);
        if (len >= 8) {
            int hs, hk;
            memcpy(&hs, rbuf, 4);
            memcpy(&hk, rbuf + 4, 4);
            CHECK(hs == s && hk == next[s], "header %d/%d, expected %d/%d", hs, hk, s, next[s]);
        }
        verify(rbuf, s, next[s], (size_t)len);
        next[s]++;
        got++;
    }
    CHECK_RC(MPI_Waitall(NMSG, sreq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < NMSG; k++)
        free(sbuf[k]);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Phase 2: rank r sends tags 0..T-1 (sizes across protocols) to r+1;
     * r+1 posts the receives in a scrambled order, half before the sends. */
    enum { T = 24 };
    int to = (me + 1) % np, from = (me + np - 1) % np;
    size_t lens[T];
    rng_state = seed + 77;
    for (int t = 0; t < T; t++)
        lens[t] = rnd_size();
    unsigned char *rb[T], *sb[T];
    MPI_Request rq[T], sq[T];
    int order[T];
    for (int t = 0; t < T; t++)
        order[t] = t;
    for (int t = T - 1; t > 0; t--) {
        int j = (int)(rnd() % (uint64_t)(t + 1)), x = order[t];
        order[t] = order[j];
        order[j] = x;
    }
    for (int i = 0; i < T; i++) {
        int t = order[i];
        rb[t] = malloc(lens[t] + 1);
        sb[t] = malloc(lens[t] + 1);
        make(sb[t], me, 1000 + t, lens[t]);
    }
    for (int i = 0; i < T / 2; i++)
        CHECK_RC(MPI_Irecv(rb[order[i]], (int)lens[order[i]], MPI_BYTE, from, order[i],
                           MPI_COMM_WORLD, &rq[order[i]]));
    for (int t = 0; t < T; t++)
        CHECK_RC(MPI_Isend(sb[t], (int)lens[t], MPI_BYTE, to, t, MPI_COMM_WORLD, &sq[t]));
    MPI_Barrier(MPI_COMM_WORLD);   /* needs no progress of the sends */
    for (int i = T / 2; i < T; i++)
        CHECK_RC(MPI_Irecv(rb[order[i]], (int)lens[order[i]], MPI_BYTE, from, order[i],
                           MPI_COMM_WORLD, &rq[order[i]]));
    CHECK_RC(MPI_Waitall(T, rq, MPI_STATUSES_IGNORE));
    CHECK_RC(MPI_Waitall(T, sq, MPI_STATUSES_IGNORE));
    for (int t = 0; t < T; t++) {
        if (lens[t] >= 8) {
            int hs, hk;
            memcpy(&hs, rb[t], 4);
            memcpy(&hk, rb[t] + 4, 4);
            CHECK(hs == from && hk == 1000 + t, "phase 2 tag %d header %d/%d", t, hs, hk);
        }
        verify(rb[t], from, 1000 + t, lens[t]);
        free(rb[t]);
        free(sb[t]);
    }
    free(plan);
    free(sreq);
    free(sbuf);
    free(next);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
