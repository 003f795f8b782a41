/* Persistent collectives started in different orders on different ranks
 * (MPICH's coll/p_order, issue 36).  MPI 4.1 lets the members start their
 * persistent collectives in any order (unless the info key
 * mpi_assert_strict_persistent_collective_ordering says otherwise): each
 * start must match its own request's starts on the other members, never
 * another request's, never a non-blocking collective started meanwhile,
 * and the blocking collectives between them stay unaffected.  Every case
 * runs several times, so restarts of the same request match too. */
#include <string.h>

#include "smap_test.h"

enum { ITERS = 6, LEN = 40 };
static int me, np;

/* MPICH's p_order: a Bcast_init and a Barrier_init, created in that order
 * everywhere, started bcast-first on rank 0 and barrier-first elsewhere. */
static void bcast_and_barrier(MPI_Comm comm)
{
    int a = -1;
    MPI_Request r[2];
    CHECK_RC(MPI_Bcast_init(&a, 1, MPI_INT, 0, comm, MPI_INFO_NULL, &r[0]));
    CHECK_RC(MPI_Barrier_init(comm, MPI_INFO_NULL, &r[1]));
    for (int it = 0; it < ITERS; it++) {
        a = me == 0 ? 42 + it : -1;
        int first = me == 0 ? 0 : 1;
        if (it & 1)   /* and the other way round */
            first = 1 - first;
        CHECK_RC(MPI_Start(&r[first]));
        CHECK_RC(MPI_Start(&r[1 - first]));
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK(a == 42 + it, "iteration %d: bcast gave %d, want %d", it, a, 42 + it);
    }
    CHECK_RC(MPI_Request_free(&r[0]));
    CHECK_RC(MPI_Request_free(&r[1]));
}

/* Two requests of the same kind (two Bcast_init, different roots and
 * data) started in opposite orders on even and odd ranks, an Ibcast
 * started between the two starts (in the same order everywhere, as MPI
 * requires of it), then blocking collectives while both are in flight. */
static void two_bcasts(MPI_Comm comm)
{
    int x[LEN], y[LEN], z[LEN];
    int rx = 0, ry = np - 1;
    MPI_Request r[3];
    CHECK_RC(MPI_Bcast_init(x, LEN, MPI_INT, rx, comm, MPI_INFO_NULL, &r[0]));
    CHECK_RC(MPI_Bcast_init(y, LEN, MPI_INT, ry, comm, MPI_INFO_NULL, &r[1]));
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < LEN; i++) {
            x[i] = me == rx ? 1000 * it + i : -1;
            y[i] = me == ry ? -1000 * it - i : -1;
            z[i] = me == 0 ? 7 * it + i : -1;
        }
        int first = (me + it) % 2;
        CHECK_RC(MPI_Start(&r[first]));
        CHECK_RC(MPI_Ibcast(z, LEN, MPI_INT, 0, comm, &r[2]));
        CHECK_RC(MPI_Start(&r[1 - first]));
        /* blocking collectives while the three are in flight */
        int one = 1, sum = 0, b = me == np - 1 ? it : -1;
        CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm));
        CHECK(sum == np, "iteration %d: allreduce %d, want %d", it, sum, np);
        CHECK_RC(MPI_Bcast(&b, 1, MPI_INT, np - 1, comm));
        CHECK(b == it, "iteration %d: blocking bcast %d", it, b);
        CHECK_RC(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < LEN; i++) {
            CHECK(x[i] == 1000 * it + i, "iteration %d: x[%d] = %d", it, i, x[i]);
            CHECK(y[i] == -1000 * it - i, "iteration %d: y[%d] = %d", it, i, y[i]);
            CHECK(z[i] == 7 * it + i, "iteration %d: z[%d] = %d", it, i, z[i]);
        }
    }
    CHECK_RC(MPI_Request_free(&r[0]));
    CHECK_RC(MPI_Request_free(&r[1]));
}

/* An Allreduce_init and an Allgather_init started in a different order
 * on each rank (rotating), one rank starting only the second one first
 * and completing it before it starts the first. */
static void reduce_and_gather(MPI_Comm comm)
{
    int v = 0, s = 0, g[64];
    MPI_Request r[2];
    CHECK(np <= 64, "np %d", np);
    CHECK_RC(MPI_Allreduce_init(&v, &s, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r[0]));
    CHECK_RC(MPI_Allgather_init(&v, 1, MPI_INT, g, 1, MPI_INT, comm, MPI_INFO_NULL, &r[1]));
    for (int it = 0; it < ITERS; it++) {
        v = 10 * me + it;
        s = -1;
        memset(g, 0xff, sizeof g);
        int first = (me + it) % 2;
        if (me == it % np) {   /* one request done before the other starts */
            CHECK_RC(MPI_Start(&r[first]));
            CHECK_RC(MPI_Wait(&r[first], MPI_STATUS_IGNORE));
            CHECK_RC(MPI_Start(&r[1 - first]));
        } else {
            CHECK_RC(MPI_Start(&r[first]));
            CHECK_RC(MPI_Start(&r[1 - first]));
        }
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK(s == 10 * np * (np - 1) / 2 + np * it, "iteration %d: sum %d", it, s);
        for (int i = 0; i < np; i++)
            CHECK(g[i] == 10 * i + it, "iteration %d: g[%d] = %d", it, i, g[i]);
    }
    CHECK_RC(MPI_Request_free(&r[0]));
    CHECK_RC(MPI_Request_free(&r[1]));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Comm comms[2] = {MPI_COMM_WORLD, dup};
    for (int k = 0; k < 2; k++) {
        bcast_and_barrier(comms[k]);
        two_bcasts(comms[k]);
        reduce_and_gather(comms[k]);
    }
    CHECK_RC(MPI_Comm_free(&dup));
    if (me == 0)
        printf("persist_order: ok\n");
    MPI_Finalize();
    return 0;
}
