/* Spawned children on their parents' node are node peers (issue 34,
 * src/spawn/README.md "Children as node peers"): every parent <-> every
 * child point-to-point in every size class (empty, eager inline and in a
 * slot, rendezvous below and above the split size, 1 MiB, a strided
 * datatype that is streamed, Ssend, nonblocking both ways, MPI_ANY_SOURCE),
 * collectives over the intercommunicator and the merged communicator,
 * disconnect (the children's views are unmapped: /proc/self/maps), then a
 * second spawn (fresh spare indices) that talks again.
 *
 * The route is checked structurally: a rendezvous between node peers is
 * counted by the MPI_T counters smap_p2p_rndv_direct/_cma/_streamed of
 * the receiver, one through the network transport is not.  argv[1]
 * "shm": each receiver's count must grow by the rendezvous messages it
 * got from the other job; "net" (run with SMAP_SPAWN_PEERS=0): it must not
 * move.  argv[2]: children per spawn (default 2). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;
#define CHECK(c, ...)                                                   \
    do {                                                                \
        if (!(c)) {                                                     \
            fprintf(stderr, __VA_ARGS__);                               \
            fputc('\n', stderr);                                        \
            fails++;                                                    \
        }                                                               \
    } while (0)

#define T(x)                                                            \
    do {                                                                \
        int rc_ = (x);                                                  \
        if (rc_ != MPI_SUCCESS) {                                       \
            fprintf(stderr, "%s failed: %d\n", #x, rc_);                \
            exit(1);                                                    \
        }                                                               \
    } while (0)

static MPI_T_pvar_session sess;
static MPI_T_pvar_handle rndv[3];

static void counters_open(void)
{
    static const char *names[3] = { "smap_p2p_rndv_direct", "smap_p2p_rndv_cma",
                                    "smap_p2p_rndv_streamed" };
    int prov, idx, count;
    T(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
    T(MPI_T_pvar_session_create(&sess));
    for (int i = 0; i < 3; i++) {
        T(MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &idx));
        T(MPI_T_pvar_handle_alloc(sess, idx, NULL, &rndv[i], &count));
    }
    T(MPI_T_pvar_start(sess, MPI_T_PVAR_ALL_HANDLES));
}

/* Rendezvous messages this process received from node peers so far. */
static unsigned long long rendezvous_count(void)
{
    unsigned long long sum = 0, v;
    for (int i = 0; i < 3; i++) {
        T(MPI_T_pvar_read(sess, rndv[i], &v));
        sum += v;
    }
    return sum;
}

static void fill(unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 7 + (size_t)seed);
}

static int same(const unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 7 + (size_t)seed))
            return 0;
    return 1;
}

static const int sizes[] = { 0, 8, 40, 1000, 4096, 20000, 65536, 1 << 20 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define RNDV_MIN 4096   /* sizes from here on are rendezvous (eager limit 1 KiB) */

/* One side of the exchange between `me` and peer `peer` of inter (lo: the
 * side that sends first).  Returns the rendezvous messages received. */
static int exchange(MPI_Comm inter, int peer, int lo, int tagbase)
{
    unsigned char *buf = malloc(1 << 20), *two = malloc(1 << 20);
    int rndv_in = 0;
    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k], tag = tagbase + k;
        MPI_Status st;
        for (int dir = 0; dir < 2; dir++) {
            if ((dir == 0) == lo) {
                fill(buf, (size_t)n, tag + dir);
                if (k & 1)
                    MPI_Ssend(buf, n, MPI_BYTE, peer, tag, inter);
                else
                    MPI_Send(buf, n, MPI_BYTE, peer, tag, inter);
            } else {
                memset(buf, 0xee, (size_t)n);
                MPI_Recv(buf, n, MPI_BYTE, k & 2 ? MPI_ANY_SOURCE : peer, tag, inter, &st);
                int cnt;
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                CHECK(cnt == n && st.MPI_SOURCE == peer && same(buf, (size_t)n, tag + dir),
                      "size %d dir %d: count %d source %d data %s", n, dir, cnt, st.MPI_SOURCE,
                      same(buf, (size_t)n, tag + dir) ? "ok" : "wrong");
                rndv_in += n >= RNDV_MIN;
            }
        }
        /* both ways at once, nonblocking */
        MPI_Request q[2];
        fill(buf, (size_t)n, tag + 50 + lo);
        memset(two, 0xee, (size_t)n);
        MPI_Irecv(two, n, MPI_BYTE, peer, tag + 100, inter, &q[0]);
        MPI_Isend(buf, n, MPI_BYTE, peer, tag + 100, inter, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        CHECK(same(two, (size_t)n, tag + 50 + !lo), "size %d: nonblocking exchange wrong", n);
        rndv_in += n >= RNDV_MIN;
    }
    /* a strided type (not one block): the single copy cannot take it */
    MPI_Datatype vec;
    MPI_Type_vector(4096, 8, 16, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    if (lo) {
        fill(buf, 65536, 3);
        MPI_Send(buf, 1, vec, peer, tagbase + 99, inter);
    } else {
        memset(buf, 0, 65536);
        MPI_Recv(buf, 1, vec, peer, tagbase + 99, inter, MPI_STATUS_IGNORE);
        int ok = 1;
        for (int i = 0; i < 65536; i++)
            ok &= buf[i] == (i % 16 < 8 ? (unsigned char)(i * 7 + 3) : 0);
        CHECK(ok, "strided message wrong");
        rndv_in++;
    }
    MPI_Type_free(&vec);
    free(buf);
    free(two);
    return rndv_in;
}

/* Collectives over the intercommunicator and the merged one. */
static void collectives(MPI_Comm inter, int is_child)
{
    int rank, lsize, rsize;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    enum { N = 40000 };   /* large enough to be rendezvous */
    int *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    for (int i = 0; i < N; i++)
        a[i] = is_child ? 1000 + rank + i : rank + i;
    MPI_Allreduce(a, b, N, MPI_INT, MPI_SUM, inter);
    int ok = 1;
    for (int i = 0; i < N; i++) {
        int want = 0;
        for (int r = 0; r < rsize; r++)
            want += is_child ? r + i : 1000 + r + i;
        ok &= b[i] == want;
    }
    CHECK(ok, "intercomm allreduce wrong");
    /* bcast from parent 0 */
    for (int i = 0; i < N; i++)
        b[i] = is_child ? -1 : i ^ 0x55;
    int root = is_child ? 0 : rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
    MPI_Bcast(b, N, MPI_INT, root, inter);
    ok = 1;
    for (int i = 0; is_child && i < N; i++)
        ok &= b[i] == (i ^ 0x55);
    CHECK(ok, "intercomm bcast wrong");
    /* alltoall of one int each way */
    int *s = malloc((size_t)rsize * sizeof *s), *r = malloc((size_t)rsize * sizeof *r);
    for (int i = 0; i < rsize; i++)
        s[i] = (is_child ? 500 : 0) + rank * 10 + i;
    MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, inter);
    ok = 1;
    for (int i = 0; i < rsize; i++)
        ok &= r[i] == (is_child ? 0 : 500) + i * 10 + rank;
    CHECK(ok, "intercomm alltoall wrong");
    MPI_Barrier(inter);
    /* merged: parents first */
    MPI_Comm m;
    MPI_Intercomm_merge(inter, is_child, &m);
    int mr, ms;
    MPI_Comm_rank(m, &mr);
    MPI_Comm_size(m, &ms);
    for (int i = 0; i < N; i++)
        a[i] = mr + i;
    MPI_Allreduce(a, b, N, MPI_INT, MPI_SUM, m);
    ok = 1;
    for (int i = 0; i < N; i++)
        ok &= b[i] == ms * (ms - 1) / 2 + ms * i;
    CHECK(ok, "merged allreduce wrong");
    int *g = malloc((size_t)ms * 1000 * sizeof *g);
    for (int i = 0; i < 1000; i++)
        a[i] = mr * 1000 + i;
    MPI_Allgather(a, 1000, MPI_INT, g, 1000, MPI_INT, m);
    ok = 1;
    for (int i = 0; i < ms * 1000; i++)
        ok &= g[i] == i;
    CHECK(ok, "merged allgather wrong");
    for (int i = 0; i < N; i++)
        b[i] = mr == ms - 1 ? 7 * i : 0;
    MPI_Bcast(b, N, MPI_INT, ms - 1, m);   /* from the last child */
    ok = 1;
    for (int i = 0; i < N; i++)
        ok &= b[i] == 7 * i;
    CHECK(ok, "merged bcast from a child wrong");
    MPI_Barrier(m);
    MPI_Comm_free(&m);
    free(g);
    free(s);
    free(r);
    free(a);
    free(b);
}

/* Every parent with every child; counts the rendezvous received from the
 * other side and checks the route. */
static void round_trip(MPI_Comm inter, int is_child, int shm, const char *what)
{
    int rank, rsize;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_remote_size(inter, &rsize);
    unsigned long long before = rendezvous_count();
    int expect = 0;
    for (int p = 0; p < rsize; p++)
        /* tags of their own per (parent, child): a wildcard receive
         * must not take another pair's message */
        expect += exchange(inter, p, !is_child, 200 * (is_child ? p * 8 + rank : rank * 8 + p));
    unsigned long long got = rendezvous_count() - before;
    if (shm)
        CHECK(got >= (unsigned long long)expect,
              "%s %d (%s): %llu rendezvous counted as node peer copies, expected %d: the other "
              "job is not reached through shm", is_child ? "child" : "parent", rank, what, got,
              expect);
    else
        CHECK(got == 0, "%s %d (%s): %llu rendezvous through shm, expected the network",
              is_child ? "child" : "parent", rank, what, got);
    collectives(inter, is_child);
}

/* Mappings of control regions (ours and our node peers'): a child mapped
 * as a node peer adds its own, and MPI_Comm_disconnect takes it away. */
static int ctl_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, "smartmap-ctl") != NULL;
    if (f)
        fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    counters_open();
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    int shm = argc > 1 && strcmp(argv[1], "shm") == 0;
    int nchild = argc > 2 ? atoi(argv[2]) : 2;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (parent != MPI_COMM_NULL) {
        /* every child talks to every parent in turn: parents in order,
         * each walking the children in order */
        round_trip(parent, 1, shm, argv[3]);
        MPI_Comm_disconnect(&parent);
    } else {
        for (int round = 0; round < 2; round++) {
            char *cargs[] = { argv[1], argv[2] ? argv[2] : "2", round ? "second" : "first", NULL };
            MPI_Comm inter;
            int errs[16], before = ctl_mappings();
            MPI_Comm_spawn(argv[0], cargs, nchild, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
            int during = ctl_mappings();
            CHECK(shm ? during == before + nchild : during == before,
                  "parent %d: %d control regions mapped with the children, %d before", rank,
                  during, before);
            round_trip(inter, 0, shm, round ? "second spawn" : "first spawn");
            MPI_Comm_disconnect(&inter);
            int after = ctl_mappings();
            CHECK(after == before, "parent %d: %d control regions mapped after disconnect, %d "
                  "before: the children's views were not taken down", rank, after, before);
        }
    }
    int all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && parent == MPI_COMM_NULL)
        printf(all ? "FAILED\n" : "spawn_peer: OK\n");
    MPI_T_pvar_session_free(&sess);
    MPI_T_finalize();
    MPI_Finalize();
    return all != 0;
}
