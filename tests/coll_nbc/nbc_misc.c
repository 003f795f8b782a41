/* Non-blocking collectives beyond single results: several outstanding on
 * one communicator completed in reverse order, by Waitany and by Testall
 * loops; point-to-point traffic on the same communicator meanwhile; a rank
 * that only tests; blocking collectives on more communicators than there
 * are control blocks; MPI_Comm_idup (several outstanding, the new
 * communicators used); errors. */
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

static int me, np;

static void outstanding(MPI_Comm comm)
{
    enum { N = 6, LEN = 1000 };
    int in[N][LEN], out[N][LEN];
    MPI_Request r[N];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) {
            for (int e = 0; e < LEN; e++)
                in[i][e] = me * 100 + i + e;
            memset(out[i], 0, sizeof out[i]);
            if (i % 3 == 0)
                CHECK_RC(MPI_Iallreduce(in[i], out[i], LEN, MPI_INT, MPI_SUM, comm, &r[i]));
            else if (i % 3 == 1)
                CHECK_RC(MPI_Iscan(in[i], out[i], LEN, MPI_INT, MPI_SUM, comm, &r[i]));
            else
                CHECK_RC(MPI_Iallgather(in[i], 1, MPI_INT, out[i], 1, MPI_INT, comm, &r[i]));
        }
        if (round == 0) {
            for (int i = N - 1; i >= 0; i--)
                CHECK_RC(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
        } else if (round == 1) {
            for (int k = 0; k < N; k++) {
                int idx;
                MPI_Status st;
                CHECK_RC(MPI_Waitany(N, r, &idx, &st));
                CHECK(idx >= 0 && idx < N, "Waitany index %d", idx);
            }
        } else {
            int flag = 0;
            while (!flag)
                CHECK_RC(MPI_Testall(N, r, &flag, MPI_STATUSES_IGNORE));
        }
        for (int i = 0; i < N; i++) {
            CHECK(r[i] == MPI_REQUEST_NULL, "request %d not freed", i);
            for (int e = 0; e < (i % 3 == 2 ? np : LEN); e++) {
                int want = 0;
                if (i % 3 == 0)
                    for (int j = 0; j < np; j++)
                        want += j * 100 + i + e;
                else if (i % 3 == 1)
                    for (int j = 0; j <= me; j++)
                        want += j * 100 + i + e;
                else
                    want = e * 100 + i;
                CHECK(out[i][e] == want, "round %d coll %d elem %d: %d, expected %d", round, i,
                      e, out[i][e], want);
            }
        }
    }
}

/* User messages with any tag from any source, posted before a collective
 * starts, must get the user's message, never the collective's. */
static void with_p2p(MPI_Comm comm)
{
    int got = -1, msg = 1000 + me, x = me, sum = 0;
    MPI_Request rr, cr, sr;
    CHECK_RC(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &rr));
    CHECK_RC(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm, &cr));
    CHECK_RC(MPI_Wait(&cr, MPI_STATUS_IGNORE));
    CHECK(sum == np * (np - 1) / 2, "allreduce %d", sum);
    CHECK_RC(MPI_Isend(&msg, 1, MPI_INT, (me + 1) % np, 0, comm, &sr));
    MPI_Status st;
    CHECK_RC(MPI_Wait(&rr, &st));
    CHECK_RC(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    CHECK(got == 1000 + (me - 1 + np) % np && st.MPI_TAG == 0, "p2p got %d tag %d", got,
          st.MPI_TAG);
}

/* Rank 0 (an inner node of every tree) only calls MPI_Test. */
static void test_only(MPI_Comm comm)
{
    enum { LEN = 200000 };
    double *a = malloc(LEN * sizeof *a), *b = malloc(LEN * sizeof *b);
    for (int e = 0; e < LEN; e++)
        a[e] = me + e;
    MPI_Request r;
    CHECK_RC(MPI_Iallreduce(a, b, LEN, MPI_DOUBLE, MPI_SUM, comm, &r));
    if (me == 0) {
        int flag = 0;
        long polls = 0;
        while (!flag) {
            CHECK_RC(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            polls++;
        }
    } else {
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    for (int e = 0; e < LEN; e += 997)
        CHECK(b[e] == (double)np * e + np * (np - 1) / 2, "test-only allreduce elem %d", e);
    free(a);
    free(b);
}

/* 12 communicators alive, more than the 8 control blocks: all run blocking
 * collectives (the last ones through schedules). */
static void many_comms(void)
{
    enum { NC = 12 };
    MPI_Comm c[NC];
    for (int i = 0; i < NC; i++)
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &c[i]));
    for (int i = NC - 1; i >= 0; i--) {
        int x = me + i, s = -1, b = me == 0 ? 42 + i : 0;
        CHECK_RC(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, c[i]));
        CHECK(s == np * (np - 1) / 2 + np * i, "comm %d allreduce %d", i, s);
        CHECK_RC(MPI_Bcast(&b, 1, MPI_INT, 0, c[i]));
        CHECK(b == 42 + i, "comm %d bcast %d", i, b);
        CHECK_RC(MPI_Barrier(c[i]));
    }
    /* a communicator made from one without a control block */
    MPI_Comm sub;
    CHECK_RC(MPI_Comm_split(c[NC - 1], me % 2, -me, &sub));
    int x = 1, s = 0;
    CHECK_RC(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, sub));
    CHECK(s == (np + (me % 2 == 0)) / 2, "split allreduce %d", s);
    CHECK_RC(MPI_Comm_free(&sub));
    for (int i = 0; i < NC; i++)
        CHECK_RC(MPI_Comm_free(&c[i]));
}

static void use_comm(MPI_Comm n, MPI_Comm parent)
{
    int res;
    CHECK_RC(MPI_Comm_compare(n, parent, &res));
    CHECK(res == MPI_CONGRUENT, "idup compare %d", res);
    int tok = me, got = -1, s = 0;
    CHECK_RC(MPI_Sendrecv(&tok, 1, MPI_INT, (me + 1) % np, 5, &got, 1, MPI_INT,
                          (me - 1 + np) % np, 5, n, MPI_STATUS_IGNORE));
    CHECK(got == (me - 1 + np) % np, "idup comm p2p %d", got);
    CHECK_RC(MPI_Allreduce(&tok, &s, 1, MPI_INT, MPI_SUM, n));
    CHECK(s == np * (np - 1) / 2, "idup comm allreduce %d", s);
}

static void idups(void)
{
    enum { N = 4 };
    MPI_Comm d0, n[N];
    MPI_Request r[N + 1];
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d0));
    int key;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)(intptr_t)77));
    CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &n[0], &r[0]));
    int x = me, s = 0;
    CHECK_RC(MPI_Iallreduce(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[N]));
    CHECK_RC(MPI_Comm_idup(d0, &n[1], &r[1]));
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    CHECK_RC(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &n[2], &r[2]));
    MPI_Info_free(&info);
    CHECK_RC(MPI_Comm_idup(d0, &n[3], &r[3]));
    /* a blocking creation while idups are outstanding */
    MPI_Comm b;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    int flag = 0;
    while (!flag)
        CHECK_RC(MPI_Testall(N + 1, r, &flag, MPI_STATUSES_IGNORE));
    CHECK(s == np * (np - 1) / 2, "allreduce beside idup %d", s);
    for (int i = 0; i < N; i++) {
        CHECK(n[i] != MPI_COMM_NULL, "idup %d gave no communicator", i);
        use_comm(n[i], i % 2 ? d0 : MPI_COMM_WORLD);
    }
    use_comm(b, MPI_COMM_WORLD);
    void *v;
    CHECK_RC(MPI_Comm_get_attr(n[0], key, &v, &flag));
    CHECK(flag && (intptr_t)v == 77, "idup attribute not copied");
    /* distinct context ids: a message on one is not received on another */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int res;
            CHECK_RC(MPI_Comm_compare(n[i], n[j], &res));
            CHECK(i == j ? res == MPI_IDENT : res == MPI_CONGRUENT, "compare %d %d", i, j);
        }
    int tok = me, got = -1;
    MPI_Request rr;
    CHECK_RC(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, n[1], &rr));
    CHECK_RC(MPI_Send(&tok, 1, MPI_INT, (me + 1) % np, 9, n[0]));
    CHECK_RC(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 9, n[0], MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Send(&tok, 1, MPI_INT, (me + 1) % np, 9, n[1]));
    CHECK_RC(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    CHECK(got == (me - 1 + np) % np, "cross-communicator message");
    for (int i = 0; i < N; i++)
        CHECK_RC(MPI_Comm_free(&n[i]));
    CHECK_RC(MPI_Comm_free(&b));
    CHECK_RC(MPI_Comm_free(&d0));
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    CHECK_RC(MPI_Comm_free_keyval(&key));
}

static void errors(void)
{
    MPI_Comm c;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_RC(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    /* Static: the Iallreduce freed while active below may write y after
     * this function returns (MPI_Finalize completes it at the latest). */
    static int x = 0, y = 0;
    int cls;
    MPI_Request r;
    int rc = MPI_Ibcast(&x, 1, MPI_INT, np, c, &r);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ROOT, "Ibcast bad root: class %d", cls);
    rc = MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, c, NULL);
    CHECK(rc != MPI_SUCCESS, "Iallreduce with a NULL request succeeded");
    rc = MPI_Iallreduce(&x, &y, -1, MPI_INT, MPI_SUM, c, &r);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT, "negative count: class %d", cls);
    rc = MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, c, &r);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP, "MPI_OP_NULL: class %d", cls);
    rc = MPI_Iallgather(&x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, c, &r);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "IN_PLACE recvbuf: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rc = MPI_Ibarrier(MPI_COMM_NULL, &r);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    CHECK(rc != MPI_SUCCESS, "Ibarrier on MPI_COMM_NULL succeeded");
    /* MPI_Cancel of a collective: an error; the collective still completes */
    CHECK_RC(MPI_Ibarrier(c, &r));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Cancel(&r);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_REQUEST, "MPI_Cancel of Ibarrier: class %d", cls);
    MPI_Status st;
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "status not empty");
    /* freed while active: completes in the background */
    CHECK_RC(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, c, &r));
    CHECK_RC(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL, "Request_free did not null the handle");
    CHECK_RC(MPI_Barrier(c));
    CHECK_RC(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    outstanding(MPI_COMM_WORLD);
    with_p2p(MPI_COMM_WORLD);
    test_only(MPI_COMM_WORLD);
    many_comms();
    idups();
    errors();
    MPI_Finalize();
    return 0;
}
