/* The rest of the point-to-point chapter: Probe/Iprobe, Mprobe/Improbe
 * with Mrecv/Imrecv, cancel of a receive, persistent requests
 * (Send_init, Ssend_init, Rsend_init, Bsend_init, Recv_init, Start,
 * Startall, Request_free), buffered sends, Isendrecv(_replace), the _c
 * large-count variants and MPI_Request_free of an active request. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

static void probes(int me, int peer)
{
    int big = 100000;
    char *s = malloc((size_t)big), *r = malloc((size_t)big);
    for (int i = 0; i < big; i++)
        s[i] = (char)(i + me);
    if (me % 2 == 0) {
        CHECK_RC(MPI_Send(s, 10, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(s, big, MPI_BYTE, peer, 2, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(s, 20, MPI_BYTE, peer, 3, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        int cnt, flag = 0;
        CHECK_RC(MPI_Probe(peer, 2, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == big && st.MPI_TAG == 2, "probe %d/%d", cnt, st.MPI_TAG);
        while (!flag)
            CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, &st));
        CHECK(st.MPI_SOURCE == peer, "iprobe source");
        MPI_Message m;
        CHECK_RC(MPI_Mprobe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
        CHECK(st.MPI_TAG == 1, "mprobe takes the first: %d", st.MPI_TAG);
        CHECK_RC(MPI_Iprobe(peer, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "message still visible after mprobe");
        CHECK_RC(MPI_Mrecv(r, 10, MPI_BYTE, &m, &st));
        CHECK(m == MPI_MESSAGE_NULL, "mrecv did not clear the handle");
        CHECK(r[9] == (char)(9 + peer), "mrecv data");
        flag = 0;
        while (!flag)
            CHECK_RC(MPI_Improbe(peer, 2, MPI_COMM_WORLD, &flag, &m, &st));
        MPI_Request q;
        CHECK_RC(MPI_Imrecv(r, big, MPI_BYTE, &m, &q));
        CHECK_RC(MPI_Wait(&q, &st));
        for (int i = 0; i < big; i++)
            CHECK(r[i] == (char)(i + peer), "imrecv byte %d", i);
        MPI_Count c;
        CHECK_RC(MPI_Mprobe(peer, 3, MPI_COMM_WORLD, &m, &st));
        CHECK_RC(MPI_Mrecv_c(r, 20, MPI_BYTE, &m, &st));
        MPI_Get_count_c(&st, MPI_BYTE, &c);
        CHECK(c == 20, "mrecv_c count %lld", (long long)c);
        CHECK_RC(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st));
        CHECK(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "mprobe proc_null");
        CHECK_RC(MPI_Mrecv(r, 1, MPI_BYTE, &m, &st));
    }
    free(s);
    free(r);
}

static void cancel(int me, int peer)
{
    int x = 0;
    MPI_Request q;
    MPI_Status st;
    int flag;
    CHECK_RC(MPI_Irecv(&x, 1, MPI_INT, peer, 555, MPI_COMM_WORLD, &q));
    CHECK_RC(MPI_Cancel(&q));
    CHECK_RC(MPI_Wait(&q, &st));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "receive not cancelled");
    /* a matched receive cannot be cancelled */
    int v = me;
    CHECK_RC(MPI_Irecv(&x, 1, MPI_INT, peer, 556, MPI_COMM_WORLD, &q));
    CHECK_RC(MPI_Send(&v, 1, MPI_INT, peer, 556, MPI_COMM_WORLD));
    CHECK_RC(MPI_Wait(&q, &st));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag && x == peer, "matched receive reported cancelled");
}

static void persistent(int me, int peer)
{
    enum { N = 3000 };
    int *a = malloc(N * sizeof(int)), *b = malloc(N * sizeof(int));
    int bsz = 4 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *battach = malloc((size_t)bsz);
    CHECK_RC(MPI_Buffer_attach(battach, bsz));
    MPI_Request q[5];
    CHECK_RC(MPI_Send_init(a, N, MPI_INT, peer, 1, MPI_COMM_WORLD, &q[0]));
    CHECK_RC(MPI_Ssend_init(a, 10, MPI_INT, peer, 2, MPI_COMM_WORLD, &q[1]));
    CHECK_RC(MPI_Bsend_init(a, N, MPI_INT, peer, 3, MPI_COMM_WORLD, &q[2]));
    CHECK_RC(MPI_Recv_init(b, N, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &q[3]));
    CHECK_RC(MPI_Send_init_c(a, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &q[4]));
    for (int it = 0; it < 20; it++) {
        for (int k = 0; k < N; k++)
            a[k] = me * 1000000 + it * 1000 + k % 1000;
        CHECK_RC(MPI_Startall(3, q));
        CHECK_RC(MPI_Start(&q[4]));
        for (int j = 0; j < 3; j++) {
            MPI_Status st;
            CHECK_RC(MPI_Start(&q[3]));
            CHECK_RC(MPI_Wait(&q[3], &st));
            CHECK(q[3] != MPI_REQUEST_NULL, "persistent request freed by wait");
            int n = st.MPI_TAG == 2 ? 10 : N, cnt;
            MPI_Get_count(&st, MPI_INT, &cnt);
            CHECK(cnt == n && st.MPI_TAG == j + 1, "iteration %d: tag %d count %d", it, st.MPI_TAG, cnt);
            for (int k = 0; k < n; k++)
                CHECK(b[k] == peer * 1000000 + it * 1000 + k % 1000, "it %d tag %d elem %d", it, j + 1, k);
        }
        CHECK_RC(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
        CHECK_RC(MPI_Wait(&q[4], MPI_STATUS_IGNORE));
        MPI_Barrier(MPI_COMM_WORLD);   /* a[] is rewritten next round */
    }
    for (int k = 0; k < 5; k++) {
        CHECK_RC(MPI_Request_free(&q[k]));
        CHECK(q[k] == MPI_REQUEST_NULL, "request_free");
    }
    /* buffered sends, blocking and not */
    for (int k = 0; k < N; k++)
        a[k] = k ^ me;
    MPI_Request bq;
    CHECK_RC(MPI_Bsend(a, 100, MPI_INT, peer, 7, MPI_COMM_WORLD));
    CHECK_RC(MPI_Ibsend(a, N, MPI_INT, peer, 8, MPI_COMM_WORLD, &bq));
    memset(a, 0, N * sizeof(int));   /* the data is in the attached buffer */
    CHECK_RC(MPI_Wait(&bq, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Recv(b, 100, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int k = 0; k < 100; k++)
        CHECK(b[k] == (k ^ peer), "bsend elem %d", k);
    CHECK_RC(MPI_Recv(b, N, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int k = 0; k < N; k++)
        CHECK(b[k] == (k ^ peer), "ibsend elem %d", k);
    void *addr;
    int size;
    CHECK_RC(MPI_Buffer_detach(&addr, &size));
    CHECK(addr == battach && size == bsz, "detach");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Bsend(a, 1, MPI_INT, peer, 9, MPI_COMM_WORLD), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "bsend without buffer: %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(battach);
    free(a);
    free(b);
}

static void sendrecvs(int me, int peer)
{
    enum { N = 50000 };
    double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
    for (int k = 0; k < N; k++)
        a[k] = me + k * 0.5;
    MPI_Request q;
    MPI_Status st;
    CHECK_RC(MPI_Isendrecv(a, N, MPI_DOUBLE, peer, 3, b, N, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, &q));
    CHECK_RC(MPI_Wait(&q, &st));
    CHECK(st.MPI_SOURCE == peer, "isendrecv source");
    for (int k = 0; k < N; k++)
        CHECK(b[k] == peer + k * 0.5, "isendrecv %d", k);
    CHECK_RC(MPI_Isendrecv_replace_c(a, N, MPI_DOUBLE, peer, 4, peer, 4, MPI_COMM_WORLD, &q));
    int flag = 0;
    while (!flag)
        CHECK_RC(MPI_Test(&q, &flag, &st));
    for (int k = 0; k < N; k++)
        CHECK(a[k] == peer + k * 0.5, "isendrecv_replace %d", k);
    MPI_Count c;
    CHECK_RC(MPI_Sendrecv_c(a, 7, MPI_DOUBLE, peer, 5, b, N, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &st));
    MPI_Get_count_c(&st, MPI_DOUBLE, &c);
    CHECK(c == 7, "sendrecv_c count %lld", (long long)c);
    CHECK_RC(MPI_Sendrecv(a, 3, MPI_DOUBLE, MPI_PROC_NULL, 0, b, 3, MPI_DOUBLE, MPI_PROC_NULL, 0,
                          MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "sendrecv proc_null");
    /* large-count send/recv */
    CHECK_RC(MPI_Isend_c(a, (MPI_Count)N, MPI_DOUBLE, peer, 6, MPI_COMM_WORLD, &q));
    CHECK_RC(MPI_Recv_c(b, (MPI_Count)N, MPI_DOUBLE, peer, 6, MPI_COMM_WORLD, &st));
    CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
    /* an active send freed by the user still completes */
    CHECK_RC(MPI_Isend(a, N, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &q));
    CHECK_RC(MPI_Request_free(&q));
    CHECK_RC(MPI_Recv(b, N, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    /* a[] holds what the peer sent by MPI_Isendrecv_replace: peer + k/2 */
    for (int k = 0; k < N; k++)
        CHECK(b[k] == me + k * 0.5, "freed isend element %d: %g", k, b[k]);
    MPI_Barrier(MPI_COMM_WORLD);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int peer = me ^ 1;
    probes(me, peer);
    cancel(me, peer);
    persistent(me, peer);
    sendrecvs(me, peer);
    MPI_Finalize();
    return 0;
}
