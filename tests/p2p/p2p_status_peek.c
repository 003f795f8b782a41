/* MPI_Request_get_status_all/any/some: they report completion without
 * freeing or deactivating the requests (a later MPI_Waitall still finds
 * them and gets the same statuses), treat MPI_REQUEST_NULL as complete
 * and empty, and report MPI_UNDEFINED when nothing is active. */
#include <mpi.h>
#include <stdio.h>

#include "smap_test.h"

enum { N = 4 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(np == 2, "needs 2 ranks, got %d", np);
    int peer = 1 - me, flag = -1, idx = -2, out = -2, ind[N + 1];
    MPI_Request req[N + 1];
    MPI_Status st[N + 1];
    int v[N];

    if (me == 1) {
        for (int i = 0; i < N; i++)
            CHECK_RC(MPI_Irecv(&v[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &req[i]));
        req[N] = MPI_REQUEST_NULL;
        /* Nothing sent yet (rank 0 waits for the barrier): not complete. */
        CHECK_RC(MPI_Request_get_status_all(N + 1, req, &flag, st));
        CHECK(flag == 0, "get_status_all: flag %d before any send", flag);
        CHECK_RC(MPI_Request_get_status_any(N, req, &idx, &flag, &st[0]));
        CHECK(flag == 0 && idx == MPI_UNDEFINED, "get_status_any: flag %d index %d", flag, idx);
        CHECK_RC(MPI_Request_get_status_some(N, req, &out, ind, st));
        CHECK(out == 0, "get_status_some: outcount %d before any send", out);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        for (int i = 0; i < N; i++) {
            int x = 100 + i;
            CHECK_RC(MPI_Send(&x, 1, MPI_INT, peer, i, MPI_COMM_WORLD));
        }
    } else {
        do
            CHECK_RC(MPI_Request_get_status_all(N + 1, req, &flag, st));
        while (!flag);
        for (int i = 0; i < N; i++)
            CHECK(st[i].MPI_SOURCE == peer && st[i].MPI_TAG == i && st[i].MPI_ERROR == MPI_SUCCESS,
                  "status %d: source %d tag %d", i, st[i].MPI_SOURCE, st[i].MPI_TAG);
        CHECK(st[N].MPI_SOURCE == MPI_ANY_SOURCE && st[N].MPI_TAG == MPI_ANY_TAG,
              "null request: status not empty");
        for (int i = 0; i < N; i++)
            CHECK(req[i] != MPI_REQUEST_NULL, "get_status_all freed request %d", i);
        CHECK_RC(MPI_Request_get_status_any(N, req, &idx, &flag, &st[0]));
        CHECK(flag == 1 && idx >= 0 && idx < N && st[0].MPI_TAG == idx,
              "get_status_any: flag %d index %d tag %d", flag, idx, st[0].MPI_TAG);
        CHECK(req[idx] != MPI_REQUEST_NULL, "get_status_any freed its request");
        CHECK_RC(MPI_Request_get_status_some(N + 1, req, &out, ind, st));
        CHECK(out == N, "get_status_some: outcount %d, want %d", out, N);
        for (int k = 0; k < out; k++)
            CHECK(ind[k] == k && st[k].MPI_TAG == k, "get_status_some: entry %d index %d", k,
                  ind[k]);
        /* Still there for the real completion. */
        CHECK_RC(MPI_Waitall(N, req, st));
        for (int i = 0; i < N; i++)
            CHECK(v[i] == 100 + i && req[i] == MPI_REQUEST_NULL, "message %d: %d", i, v[i]);
        /* Nothing active: MPI_UNDEFINED. */
        CHECK_RC(MPI_Request_get_status_any(N, req, &idx, &flag, &st[0]));
        CHECK(flag == 1 && idx == MPI_UNDEFINED, "all null: any gave flag %d index %d", flag, idx);
        CHECK_RC(MPI_Request_get_status_some(N, req, &out, ind, st));
        CHECK(out == MPI_UNDEFINED, "all null: some gave %d", out);
    }
    MPI_Finalize();
    if (me == 0)
        printf("PASS\n");
    return 0;
}
