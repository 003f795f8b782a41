/* Partitioned point-to-point (MPI 4.0): a send of 4 partitions received
 * as 2 (the partitionings may differ), restarted several times, readied in
 * reverse order / by range / by list / from several threads at once;
 * MPI_Parrived never true before the partition's data is there; two
 * requests with the same peer and tag match in init order even when the
 * second is readied first; MPI_PROC_NULL; errors. */
#include <pthread.h>
#include <string.h>

#include "smap_test.h"

enum { SP = 4, SN = 8, RP = 2, RN = 16, REPS = 4 };
static int me, np, thread_multiple;

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

struct readier {
    MPI_Request r;
    int partition;
};

static void *ready_one(void *arg)
{
    struct readier *w = arg;
    CHECK_RC(MPI_Pready(w->partition, w->r));
    return NULL;
}

static void basic(void)
{
    int sbuf[SP * SN] = {0}, rbuf[RP * RN] = {0};
    MPI_Request r;
    if (me == 0)
        CHECK_RC(MPI_Psend_init(sbuf, SP, SN, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    else
        CHECK_RC(MPI_Precv_init(rbuf, RP, RN, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int k = 0; k < REPS; k++) {
        if (me == 1)
            memset(rbuf, 0xff, sizeof rbuf);
        CHECK_RC(MPI_Start(&r));
        if (me == 0) {
            for (int i = 0; i < SP * SN; i++)
                sbuf[i] = 1000 * k + i;
            if (k == 0) {
                for (int p = SP - 1; p >= 0; p--)
                    CHECK_RC(MPI_Pready(p, r));
            } else if (k == 1) {
                CHECK_RC(MPI_Pready_range(0, SP - 1, r));
            } else if (k == 2 || !thread_multiple) {
                int list[SP] = {2, 0, 3, 1};
                CHECK_RC(MPI_Pready_list(SP, list, r));
            } else {
                pthread_t th[SP];
                struct readier w[SP];
                for (int p = 0; p < SP; p++) {
                    w[p] = (struct readier){r, p};
                    CHECK(pthread_create(&th[p], NULL, ready_one, &w[p]) == 0, "thread");
                }
                for (int p = 0; p < SP; p++)
                    pthread_join(th[p], NULL);
            }
            MPI_Status st;
            CHECK_RC(MPI_Wait(&r, &st));
        } else {
            int flag = 0;
            while (!flag)
                CHECK_RC(MPI_Parrived(r, 0, &flag));
            /* honest: partition 0 is there once it says so */
            for (int i = 0; i < RN; i++)
                CHECK(rbuf[i] == 1000 * k + i, "rep %d: partition 0 elem %d is %d after Parrived",
                      k, i, rbuf[i]);
            MPI_Status st;
            CHECK_RC(MPI_Wait(&r, &st));
            int count = -1;
            CHECK_RC(MPI_Get_count(&st, MPI_INT, &count));
            CHECK(count == RP * RN && st.MPI_SOURCE == 0 && st.MPI_TAG == 7,
                  "status count %d source %d tag %d", count, st.MPI_SOURCE, st.MPI_TAG);
            for (int i = 0; i < RP * RN; i++)
                CHECK(rbuf[i] == 1000 * k + i, "rep %d elem %d: %d", k, i, rbuf[i]);
            CHECK_RC(MPI_Parrived(r, 1, &flag));
            CHECK(flag, "an inactive request's partitions have arrived");
        }
    }
    CHECK_RC(MPI_Request_free(&r));
}

/* Same peer, same tag: A and B initialised in that order on both sides;
 * the sender readies B first.  A's receive must still get A's data. */
static void init_order(void)
{
    int a[4] = {0}, b[4] = {0};
    MPI_Request r[2];
    for (int i = 0; i < 2; i++) {
        int *buf = i ? b : a;
        if (me == 0)
            CHECK_RC(MPI_Psend_init(buf, 2, 2, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_INFO_NULL,
                                    &r[i]));
        else
            CHECK_RC(MPI_Precv_init(buf, 1, 4, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_INFO_NULL,
                                    &r[i]));
    }
    for (int k = 0; k < 2; k++) {
        CHECK_RC(MPI_Startall(2, r));
        if (me == 0) {
            for (int i = 0; i < 4; i++) {
                a[i] = 10 + i + k;
                b[i] = 20 + i + k;
            }
            CHECK_RC(MPI_Pready_range(0, 1, r[1]));
            CHECK_RC(MPI_Wait(&r[1], MPI_STATUS_IGNORE));   /* B is out before A starts */
            CHECK_RC(MPI_Pready_range(0, 1, r[0]));
        }
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        if (me == 1)
            for (int i = 0; i < 4; i++)
                CHECK(a[i] == 10 + i + k && b[i] == 20 + i + k, "init order: a %d b %d", a[i],
                      b[i]);
    }
    CHECK_RC(MPI_Request_free(&r[0]));
    CHECK_RC(MPI_Request_free(&r[1]));
}

static void errors(void)
{
    int buf[4] = {0};
    MPI_Request r;
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    /* to MPI_PROC_NULL: completes once ready */
    CHECK_RC(MPI_Psend_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &r));
    int rc = MPI_Pready(0, r);
    CHECK(err_class(rc) == MPI_ERR_REQUEST, "Pready of an inactive request: class %d",
          err_class(rc));
    CHECK_RC(MPI_Start(&r));
    CHECK_RC(MPI_Pready(0, r));
    rc = MPI_Pready(0, r);
    CHECK(err_class(rc) == MPI_ERR_REQUEST, "Pready twice: class %d", err_class(rc));
    rc = MPI_Pready(2, r);
    CHECK(err_class(rc) == MPI_ERR_ARG, "Pready out of range: class %d", err_class(rc));
    int flag;
    rc = MPI_Parrived(r, 0, &flag);
    CHECK(err_class(rc) == MPI_ERR_REQUEST, "Parrived of a send: class %d", err_class(rc));
    CHECK_RC(MPI_Pready(1, r));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Request_free(&r));
    /* from MPI_PROC_NULL */
    CHECK_RC(MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &r));
    CHECK_RC(MPI_Start(&r));
    MPI_Status st;
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "source %d", st.MPI_SOURCE);
    rc = MPI_Pready(0, r);
    CHECK(err_class(rc) == MPI_ERR_REQUEST, "Pready of a receive: class %d", err_class(rc));
    CHECK_RC(MPI_Request_free(&r));
    rc = MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    CHECK(rc != MPI_SUCCESS, "Precv_init from MPI_ANY_SOURCE accepted");
    rc = MPI_Precv_init(buf, 2, 2, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    CHECK(err_class(rc) == MPI_ERR_TAG, "Precv_init with MPI_ANY_TAG: class %d", err_class(rc));
    rc = MPI_Psend_init(buf, -1, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    CHECK(err_class(rc) == MPI_ERR_ARG, "negative partitions: class %d", err_class(rc));
    rc = MPI_Psend_init(buf, 1, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    CHECK(err_class(rc) == MPI_ERR_COUNT, "negative count: class %d", err_class(rc));
    MPI_Request other;
    CHECK_RC(MPI_Irecv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &other));
    rc = MPI_Pready(0, other);
    CHECK(err_class(rc) == MPI_ERR_REQUEST, "Pready of a plain receive: class %d",
          err_class(rc));
    CHECK_RC(MPI_Wait(&other, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    int provided;
    CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    thread_multiple = provided == MPI_THREAD_MULTIPLE;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &np));
    if (np >= 2 && me < 2) {
        basic();
        init_order();
    }
    errors();
    CHECK_RC(MPI_Finalize());
    return 0;
}
