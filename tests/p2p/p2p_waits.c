/* The completion calls: Waitany, Waitsome, Testany, Testsome, Testall,
 * Request_get_status, MPI_REQUEST_NULL entries, and progress driven only
 * by MPI_Test (the receiver of a rendezvous message and of a stream only
 * tests; the sender only tests too). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#define N 16
#define BIG (1 << 20)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int peer = me ^ 1;
    int *bufs = calloc(N * 1024, sizeof(int));
    MPI_Request q[N + 2];
    if (me % 2 == 0) {
        for (int i = 0; i < N; i++) {
            for (int k = 0; k < 1024; k++)
                bufs[i * 1024 + k] = i * 1000 + k;
            CHECK_RC(MPI_Send(&bufs[i * 1024], i < 8 ? 8 : 1024, MPI_INT, peer, i, MPI_COMM_WORLD));
        }
    } else {
        for (int i = 0; i < N; i++)
            CHECK_RC(MPI_Irecv(&bufs[i * 1024], 1024, MPI_INT, peer, i, MPI_COMM_WORLD, &q[i]));
        q[N] = MPI_REQUEST_NULL;
        int seen[N + 1] = { 0 }, done = 0;
        /* Waitany for a quarter, Waitsome for a quarter, Testany / Testsome
         * for the rest. */
        while (done < N / 4) {
            int idx;
            MPI_Status st;
            CHECK_RC(MPI_Waitany(N + 1, q, &idx, &st));
            CHECK(idx >= 0 && idx < N && !seen[idx], "waitany index %d", idx);
            CHECK(st.MPI_TAG == idx, "waitany tag %d for %d", st.MPI_TAG, idx);
            seen[idx] = 1;
            done++;
        }
        while (done < N / 2) {
            int out, idx[N + 1];
            MPI_Status st[N + 1];
            CHECK_RC(MPI_Waitsome(N + 1, q, &out, idx, st));
            CHECK(out >= 1, "waitsome outcount %d", out);
            for (int k = 0; k < out; k++) {
                CHECK(!seen[idx[k]] && st[k].MPI_TAG == idx[k], "waitsome %d", idx[k]);
                seen[idx[k]] = 1;
                done++;
            }
        }
        while (done < N) {
            int idx, flag;
            CHECK_RC(MPI_Testany(N + 1, q, &idx, &flag, MPI_STATUS_IGNORE));
            if (flag && idx != MPI_UNDEFINED) {
                CHECK(!seen[idx], "testany %d twice", idx);
                seen[idx] = 1;
                done++;
            }
            int out, ids[N + 1];
            CHECK_RC(MPI_Testsome(N + 1, q, &out, ids, MPI_STATUSES_IGNORE));
            if (out != MPI_UNDEFINED)
                for (int k = 0; k < out; k++) {
                    CHECK(!seen[ids[k]], "testsome %d twice", ids[k]);
                    seen[ids[k]] = 1;
                    done++;
                }
        }
        for (int i = 0; i < N; i++) {
            CHECK(q[i] == MPI_REQUEST_NULL, "request %d not freed", i);
            int n = i < 8 ? 8 : 1024;
            for (int k = 0; k < n; k++)
                CHECK(bufs[i * 1024 + k] == i * 1000 + k, "message %d element %d", i, k);
        }
        int idx, flag, out;
        CHECK_RC(MPI_Waitany(N, q, &idx, MPI_STATUS_IGNORE));
        CHECK(idx == MPI_UNDEFINED, "waitany on nulls: %d", idx);
        CHECK_RC(MPI_Testsome(N, q, &out, &idx, MPI_STATUSES_IGNORE));
        CHECK(out == MPI_UNDEFINED, "testsome on nulls: %d", out);
        CHECK_RC(MPI_Testall(N, q, &flag, MPI_STATUSES_IGNORE));
        CHECK(flag, "testall on nulls");
    }
    /* Test-only progress, large (rendezvous or streamed) both ways. */
    char *s = malloc(BIG), *r = malloc(BIG);
    for (int i = 0; i < BIG; i++)
        s[i] = (char)(i * 13 + me);
    MPI_Request rq[2];
    CHECK_RC(MPI_Irecv(r, BIG, MPI_BYTE, peer, 99, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Isend(s, BIG, MPI_BYTE, peer, 99, MPI_COMM_WORLD, &rq[1]));
    int flag = 0, polls = 0;
    MPI_Status st;
    while (!flag) {
        CHECK_RC(MPI_Request_get_status(rq[0], &flag, &st));
        polls++;
    }
    CHECK(st.MPI_SOURCE == peer, "get_status source %d", st.MPI_SOURCE);
    CHECK(rq[0] != MPI_REQUEST_NULL, "get_status freed the request");
    flag = 0;
    while (!flag)
        CHECK_RC(MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE));
    for (int i = 0; i < BIG; i++)
        CHECK(r[i] == (char)(i * 13 + peer), "big byte %d", i);
    /* MPI_Test only, nothing else */
    CHECK_RC(MPI_Issend(s, BIG / 2, MPI_BYTE, peer, 98, MPI_COMM_WORLD, &rq[1]));
    CHECK_RC(MPI_Irecv(r, BIG / 2, MPI_BYTE, peer, 98, MPI_COMM_WORLD, &rq[0]));
    for (int k = 0; k < 2; k++) {
        flag = 0;
        while (!flag)
            CHECK_RC(MPI_Test(&rq[k], &flag, MPI_STATUS_IGNORE));
        CHECK(rq[k] == MPI_REQUEST_NULL, "test did not free");
    }
    for (int i = 0; i < BIG / 2; i++)
        CHECK(r[i] == (char)(i * 13 + peer), "ssend byte %d", i);
    (void)polls;
    free(s);
    free(r);
    free(bufs);
    MPI_Finalize();
    return 0;
}
