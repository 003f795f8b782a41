/* MPI_Waitany, MPI_Testany, MPI_Waitsome and MPI_Testsome report the
 * lowest index(es) among the completed requests, as Open MPI and MPICH do
 * (issue 15: a rotating index; mpi4py relies on the lowest). */
#include "smap_test.h"

enum { N = 6 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int v[N];
    /* complete requests on MPI_COMM_SELF: one Waitany on a single request,
     * then three complete at once must give 0, 1, 2 (a rotating start
     * would give 1 first) */
    for (int rep = 0; rep < 3; rep++) {
        MPI_Request q[3];
        int x[3] = {0, 1, 2}, y[3], idx;
        for (int i = 0; i < 3; i++)
            CHECK_RC(MPI_Isend(&x[i], 1, MPI_INT, 0, i, MPI_COMM_SELF, &q[i]));
        CHECK_RC(MPI_Waitany(1, &q[0], &idx, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Waitall(2, &q[1], MPI_STATUSES_IGNORE));
        for (int i = 0; i < 3; i++)
            CHECK_RC(MPI_Irecv(&y[i], 1, MPI_INT, 0, i, MPI_COMM_SELF, &q[i]));
        for (int i = 0; i < 3; i++) {
            CHECK_RC(MPI_Waitany(3, q, &idx, MPI_STATUS_IGNORE));
            CHECK(idx == i && y[i] == i, "self Waitany gave %d, want %d", idx, i);
        }
    }
    for (int round = 0; round < 5; round++) {
        MPI_Request r[N];
        if (rank == 1) {
            for (int i = 0; i < N; i++)
                CHECK_RC(MPI_Send(&i, 1, MPI_INT, 0, i, MPI_COMM_WORLD));
            CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
            continue;
        }
        for (int i = 0; i < N; i++)
            CHECK_RC(MPI_Irecv(&v[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &r[i]));
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));   /* every message has been sent */
        /* all N complete (or will be at the first poll): take them in order */
        int idx, flag, out, ind[N];
        switch (round) {
        case 0:
        case 1:
            for (int i = 0; i < N; i++) {
                CHECK_RC(MPI_Waitany(N, r, &idx, MPI_STATUS_IGNORE));
                CHECK(idx == i, "Waitany round %d gave %d, want %d", round, idx, i);
                CHECK(v[idx] == idx, "value");
            }
            break;
        case 2:
            for (int i = 0; i < N; i++) {
                do
                    CHECK_RC(MPI_Testany(N, r, &idx, &flag, MPI_STATUS_IGNORE));
                while (!flag);
                CHECK(idx == i, "Testany gave %d, want %d", idx, i);
            }
            break;
        default: {
            int seen = 0;
            while (seen < N) {
                if (round == 3)
                    CHECK_RC(MPI_Waitsome(N, r, &out, ind, MPI_STATUSES_IGNORE));
                else
                    CHECK_RC(MPI_Testsome(N, r, &out, ind, MPI_STATUSES_IGNORE));
                for (int j = 0; j < out; j++) {
                    CHECK(ind[j] == seen, "%s: index %d, want %d", round == 3 ? "Waitsome" : "Testsome",
                          ind[j], seen);
                    seen++;
                }
            }
        }
        }
    }
    /* two incomplete requests, the higher one completing first: Waitany
     * returns it, then the lower one */
    if (rank == 0) {
        MPI_Request r[2];
        int a = -1, b = -1, idx;
        CHECK_RC(MPI_Irecv(&a, 1, MPI_INT, 1, 100, MPI_COMM_WORLD, &r[0]));
        CHECK_RC(MPI_Irecv(&b, 1, MPI_INT, 1, 101, MPI_COMM_WORLD, &r[1]));
        CHECK_RC(MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE));
        CHECK(idx == 1 && b == 101, "first completion: %d", idx);
        CHECK_RC(MPI_Send(&a, 1, MPI_INT, 1, 102, MPI_COMM_WORLD));
        CHECK_RC(MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE));
        CHECK(idx == 0 && a == 100, "second completion: %d", idx);
        printf("p2p_waitany_lowest: ok\n");
    } else {
        int x = 101, y;
        CHECK_RC(MPI_Send(&x, 1, MPI_INT, 0, 101, MPI_COMM_WORLD));
        CHECK_RC(MPI_Recv(&y, 1, MPI_INT, 0, 102, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        x = 100;
        CHECK_RC(MPI_Send(&x, 1, MPI_INT, 0, 100, MPI_COMM_WORLD));
    }
    MPI_Finalize();
    return 0;
}
