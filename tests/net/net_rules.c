/* The point-to-point rules across transports: rank 0 receives from senders
 * on its own node (shared memory) and on other nodes (src/net) at once.
 * Run by tests/net with several emulated nodes (SMAP_NODE_NAME) and with
 * lowered SMAP_NET_EAGER_LIMIT / SMAP_NET_CHUNK, so that messages around
 * the eager limit and messages of many chunks (the logic that carries
 * > 2 GiB) are exercised cheaply.  Rank 0 must share its node with another
 * rank for the mixed cases to mean anything: layouts like 2,1 or 2,2. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <smartmap.h>

#include "smap_test.h"

static int me, np;

static size_t env_size(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    size_t n = strtoull(v, &end, 10);
    if (*end == 'K' || *end == 'k')
        n <<= 10;
    else if (*end == 'M' || *end == 'm')
        n <<= 20;
    return n;
}

static unsigned char pat(int src, int seq, size_t i)
{
    return (unsigned char)(src * 31 + seq * 7 + i * 13);
}

static void fill(unsigned char *b, size_t n, int src, int seq)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pat(src, seq, i);
}

static int check(const unsigned char *b, size_t n, int src, int seq)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pat(src, seq, i))
            return 0;
    return 1;
}

/* Sizes around the eager limit and the chunk size, small and large. */
static size_t sizes[16];
static int nsizes;

static void pick_sizes(void)
{
    size_t e = env_size("SMAP_NET_EAGER_LIMIT", 65536), c = env_size("SMAP_NET_CHUNK", 4 << 20);
    size_t s[] = { 4, 64, e > 0 ? e - 1 : 1, e, e + 1, c - 1, c, c + 1, 3 * c + 5, 70000 };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        if (s[i] >= 4 && s[i] <= 300000)
            sizes[nsizes++] = s[i];
}

/* Every rank but 0 sends rounds*nsizes messages of every size to rank 0,
 * tag = seq % 3; rank 0 receives them all with MPI_ANY_SOURCE and
 * MPI_ANY_TAG: per sender they must come in order, whatever the mix. */
static void order_and_wildcards(void)
{
    enum { ROUNDS = 4 };
    int per = ROUNDS * nsizes;
    unsigned char *buf = malloc(300000 + 8);
    if (me != 0) {
        for (int k = 0; k < per; k++) {
            size_t n = sizes[k % nsizes];
            fill(buf, n, me, k);
            memcpy(buf, &k, sizeof k);
            if (k % 5 == 0)
                CHECK_RC(MPI_Ssend(buf, (int)n, MPI_BYTE, 0, k % 3, MPI_COMM_WORLD));
            else
                CHECK_RC(MPI_Send(buf, (int)n, MPI_BYTE, 0, k % 3, MPI_COMM_WORLD));
        }
    } else {
        int *next = calloc((size_t)np, sizeof *next);
        for (int k = 0; k < per * (np - 1); k++) {
            MPI_Status st;
            CHECK_RC(MPI_Recv(buf, 300000 + 8, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                              MPI_COMM_WORLD, &st));
            int src = st.MPI_SOURCE, seq, cnt;
            memcpy(&seq, buf, sizeof seq);
            CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &cnt));
            CHECK(src > 0 && src < np, "source %d", src);
            CHECK(seq == next[src], "from %d: message %d came before %d (overtaking)", src, seq,
                  next[src]);
            CHECK(st.MPI_TAG == seq % 3, "tag %d of message %d", st.MPI_TAG, seq);
            CHECK((size_t)cnt == sizes[seq % nsizes], "count %d of message %d", cnt, seq);
            unsigned char head[4];
            fill(head, 4, src, seq);
            memcpy(buf, head, 4);
            CHECK(check(buf, (size_t)cnt, src, seq), "data of message %d from %d", seq, src);
            next[src]++;
        }
        free(next);
    }
    free(buf);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

/* The last rank (on another node than rank 0) and rank 0. */
static void truncation_probe_cancel(void)
{
    int peer = np - 1;
    enum { BIG = 50000 };
    static int big[BIG], got[BIG];
    if (me == peer) {
        for (int i = 0; i < BIG; i++)
            big[i] = i;
        CHECK_RC(MPI_Send(big, 100, MPI_INT, 0, 1, MPI_COMM_WORLD));    /* eager, truncated */
        CHECK_RC(MPI_Send(big, BIG, MPI_INT, 0, 2, MPI_COMM_WORLD));    /* rendezvous, truncated */
        CHECK_RC(MPI_Send(big, BIG, MPI_INT, 0, 3, MPI_COMM_WORLD));    /* probed */
        CHECK_RC(MPI_Send(big, BIG, MPI_INT, 0, 4, MPI_COMM_WORLD));    /* mprobed */
        CHECK_RC(MPI_Send(big, 7, MPI_INT, 0, 5, MPI_COMM_WORLD));      /* improbed */
        CHECK_RC(MPI_Send(NULL, 0, MPI_INT, 0, 6, MPI_COMM_WORLD));     /* zero bytes */
    } else if (me == 0) {
        MPI_Status st;
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int rc = MPI_Recv(got, 10, MPI_INT, peer, 1, MPI_COMM_WORLD, &st);
        int cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "eager truncation gives class %d", cls);
        CHECK(got[9] == 9, "truncated eager data");
        rc = MPI_Recv(got, 1000, MPI_INT, peer, 2, MPI_COMM_WORLD, &st);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "rendezvous truncation gives class %d", cls);
        CHECK(got[999] == 999, "truncated rendezvous data");
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
        /* a receive for a message that never comes, cancelled */
        MPI_Request r;
        CHECK_RC(MPI_Irecv(got, 1, MPI_INT, peer, 99, MPI_COMM_WORLD, &r));
        CHECK_RC(MPI_Cancel(&r));
        CHECK_RC(MPI_Wait(&r, &st));
        int flag;
        CHECK_RC(MPI_Test_cancelled(&st, &flag));
        CHECK(flag, "receive from another node cancelled");
        int cnt;
        CHECK_RC(MPI_Probe(peer, 3, MPI_COMM_WORLD, &st));
        CHECK_RC(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK(cnt == BIG && st.MPI_SOURCE == peer, "probe count %d", cnt);
        memset(got, 0, sizeof got);
        CHECK_RC(MPI_Recv(got, cnt, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
        CHECK(got[BIG - 1] == BIG - 1, "probed data");
        MPI_Message m;
        CHECK_RC(MPI_Mprobe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &m, &st));
        CHECK_RC(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK(cnt == BIG, "mprobe count %d", cnt);
        memset(got, 0, sizeof got);
        CHECK_RC(MPI_Mrecv(got, cnt, MPI_INT, &m, &st));
        CHECK(got[BIG - 1] == BIG - 1 && got[1] == 1, "mprobed data");
        flag = 0;
        while (!flag)
            CHECK_RC(MPI_Improbe(peer, 5, MPI_COMM_WORLD, &flag, &m, &st));
        CHECK_RC(MPI_Mrecv(got, 7, MPI_INT, &m, &st));
        CHECK(got[6] == 6, "improbed data");
        flag = 0;
        while (!flag)
            CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &flag, &st));
        CHECK_RC(MPI_Recv(got, 5, MPI_INT, peer, 6, MPI_COMM_WORLD, &st));
        CHECK_RC(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK(cnt == 0, "zero-byte message count %d", cnt);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

/* MPI_Issend to another node does not complete before the receive. */
static void ssend_waits(void)
{
    int peer = np - 1, v = 42, w = 0;
    if (me == peer) {
        MPI_Request r;
        int flag = 0;
        CHECK_RC(MPI_Issend(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &r));
        double t = MPI_Wtime();
        while (MPI_Wtime() - t < 0.05) {
            CHECK_RC(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "MPI_Issend completed before its receive was posted");
        }
        CHECK_RC(MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD));   /* "go ahead" */
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else if (me == 0) {
        CHECK_RC(MPI_Recv(&w, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Recv(&w, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(w == 42, "ssend data %d", w);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

/* Bsend, persistent requests, non-contiguous datatypes, large counts
 * (the _c calls) between rank 0 and the last rank, both directions. */
static void modes_and_types(void)
{
    int peer = np - 1;
    if (me != 0 && me != peer)
        goto out;
    int other = me == 0 ? peer : 0;
    /* Bsend */
    int bsz = 100000 + MPI_BSEND_OVERHEAD;
    void *bb = malloc((size_t)bsz);
    CHECK_RC(MPI_Buffer_attach(bb, bsz));
    static int v[20000], in[20000];
    for (int i = 0; i < 20000; i++)
        v[i] = me * 100000 + i;
    CHECK_RC(MPI_Bsend(v, 20000, MPI_INT, other, 11, MPI_COMM_WORLD));
    CHECK_RC(MPI_Recv(in, 20000, MPI_INT, other, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[19999] == other * 100000 + 19999, "bsend data");
    CHECK_RC(MPI_Buffer_detach(&bb, &bsz));
    free(bb);
    /* persistent, three starts, eager and rendezvous sizes */
    for (int n = 10; n <= 20000; n *= 2000) {
        MPI_Request r[2];
        CHECK_RC(MPI_Send_init(v, n, MPI_INT, other, 12, MPI_COMM_WORLD, &r[0]));
        CHECK_RC(MPI_Recv_init(in, n, MPI_INT, other, 12, MPI_COMM_WORLD, &r[1]));
        for (int k = 0; k < 3; k++) {
            v[0] = k;
            memset(in, 0, sizeof in);
            CHECK_RC(MPI_Startall(2, r));
            CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
            CHECK(in[0] == k && in[n - 1] == other * 100000 + n - 1, "persistent round %d", k);
        }
        CHECK_RC(MPI_Request_free(&r[0]));
        CHECK_RC(MPI_Request_free(&r[1]));
    }
    v[0] = me * 100000;
    /* a vector type (every other int) into contiguous, and back */
    MPI_Datatype vec;
    CHECK_RC(MPI_Type_vector(5000, 1, 2, MPI_INT, &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    MPI_Request r;
    memset(in, 0, sizeof in);
    CHECK_RC(MPI_Irecv(in, 5000, MPI_INT, other, 13, MPI_COMM_WORLD, &r));
    CHECK_RC(MPI_Send(v, 1, vec, other, 13, MPI_COMM_WORLD));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(in[0] == other * 100000 && in[4999] == other * 100000 + 9998, "vector into contiguous");
    memset(in, 0, sizeof in);
    CHECK_RC(MPI_Irecv(in, 1, vec, other, 14, MPI_COMM_WORLD, &r));
    CHECK_RC(MPI_Send(v, 5000, MPI_INT, other, 14, MPI_COMM_WORLD));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(in[0] == other * 100000 && in[2 * 4999] == other * 100000 + 4999 && in[1] == 0,
          "contiguous into vector");
    CHECK_RC(MPI_Type_free(&vec));
    /* large-count calls: many chunks when SMAP_NET_CHUNK is small */
    MPI_Count cnt = 300000;
    unsigned char *a = malloc((size_t)cnt), *b = malloc((size_t)cnt);
    fill(a, (size_t)cnt, me, 5);
    MPI_Status st;
    CHECK_RC(MPI_Sendrecv(a, 0, MPI_BYTE, other, 0, b, 0, MPI_BYTE, other, 0, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    if (me == 0) {
        CHECK_RC(MPI_Send_c(a, cnt, MPI_BYTE, other, 15, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv_c(b, cnt, MPI_BYTE, other, 15, MPI_COMM_WORLD, &st));
    } else {
        CHECK_RC(MPI_Recv_c(b, cnt, MPI_BYTE, other, 15, MPI_COMM_WORLD, &st));
        CHECK_RC(MPI_Send_c(a, cnt, MPI_BYTE, other, 15, MPI_COMM_WORLD));
    }
    MPI_Count got;
    CHECK_RC(MPI_Get_count_c(&st, MPI_BYTE, &got));
    CHECK(got == cnt && check(b, (size_t)cnt, other, 5), "large-count message");
    free(a);
    free(b);
out:
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

/* SMARTMAP maps exactly the ranks of our own (emulated) node: a rank of
 * another node is never reachable through MPIX_Comm_remote_ptr, even
 * though emulated nodes share the machine and /dev/shm. */
static int marker;

static void mapping_stays_on_node(void)
{
    char names[64][64], mine[64] = "";
    /* the node as placed: SMAP_NODE_NAME where the launcher sets it (smrun's
     * agents, multinode.sh), else the host name (hydra across emulated
     * hosts, each with a host name of its own) */
    const char *nn = getenv("SMAP_NODE_NAME");
    if (nn && *nn)
        snprintf(mine, sizeof mine, "%s", nn);
    else
        CHECK(gethostname(mine, sizeof mine - 1) == 0, "gethostname");
    CHECK(np <= 64, "at most 64 ranks");
    marker = 1000 + me;
    CHECK_RC(MPI_Allgather(mine, 64, MPI_CHAR, names, 64, MPI_CHAR, MPI_COMM_WORLD));
    /* where each rank's marker lives in its own address space */
    MPI_Aint at[64], here;
    CHECK_RC(MPI_Get_address(&marker, &here));
    CHECK_RC(MPI_Allgather(&here, 1, MPI_AINT, at, 1, MPI_AINT, MPI_COMM_WORLD));
    const char *copy = getenv("SMAP_COPY");
    int direct = !copy || !*copy || !strcmp(copy, "direct");
    for (int r = 0; r < np; r++) {
        void *v = &marker;
        CHECK_RC(MPIX_Comm_remote_ptr(MPI_COMM_WORLD, r, (void *)at[r], sizeof marker, &v));
        if (strcmp(names[r], mine) != 0)
            CHECK(v == NULL, "rank %d of node %s is mapped from node %s", r, names[r], mine);
        else if (direct)
            CHECK(v && *(volatile int *)v == 1000 + r, "rank %d of my node is not mapped", r);
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &np));
    CHECK(np >= 2, "needs 2 ranks or more");
    pick_sizes();
    mapping_stays_on_node();
    order_and_wildcards();
    truncation_probe_cancel();
    ssend_waits();
    modes_and_types();
    CHECK_RC(MPI_Finalize());
    if (me == 0)
        printf("net_rules: %d ranks OK\n", np);
    return 0;
}
