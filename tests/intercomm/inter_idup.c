/* MPI_Comm_idup and MPI_Comm_idup_with_info of an intercommunicator (issue
 * 15: unsupported).  The duplicate is an intercommunicator congruent to the
 * original, with its own traffic; and the idup does not block: group A's
 * leader starts it, then receives a synchronous send that group B's leader
 * makes before starting its own idup. */
#include <string.h>

#include "inter_common.h"

static void check_dup(const struct inter *x, MPI_Comm d)
{
    int flag, res, rs;
    CHECK_RC(MPI_Comm_test_inter(d, &flag));
    CHECK(flag, "idup of an intercommunicator is not one");
    CHECK_RC(MPI_Comm_compare(x->comm, d, &res));
    CHECK(res == MPI_CONGRUENT, "compare %d", res);
    CHECK_RC(MPI_Comm_remote_size(d, &rs));
    CHECK(rs == x->rsize, "remote size %d", rs);
    /* an intercommunicator allreduce: the sum of the remote group's ranks */
    int sum = -1, me = x->rank;
    CHECK_RC(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, d));
    CHECK(sum == x->rsize * (x->rsize - 1) / 2, "inter allreduce %d", sum);
    /* point-to-point: rank i of each group to rank i % rsize of the other */
    int out = 1000 * x->color + x->rank, in = -1;
    MPI_Request r[64];
    int nr = 0;
    for (int j = 0; j < x->rsize; j++)
        if (j % x->size == x->rank)
            CHECK_RC(MPI_Irecv(&in, 1, MPI_INT, j, 4, d, &r[nr++]));
    CHECK_RC(MPI_Send(&out, 1, MPI_INT, x->rank % x->rsize, 4, d));
    CHECK_RC(MPI_Waitall(nr, r, MPI_STATUSES_IGNORE));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int s = 0; s < NSCHEMES; s++) {
        struct inter x;
        inter_make(s, &x);
        for (int round = 0; round < 3; round++) {
            MPI_Comm d = MPI_COMM_NULL;
            MPI_Request q;
            MPI_Info info = MPI_INFO_NULL;
            if (round == 2) {
                CHECK_RC(MPI_Info_create(&info));
                CHECK_RC(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
            }
            int token = 0;
            if (x.color == 1 && x.rank == 0)   /* B's leader: first a synchronous send */
                CHECK_RC(MPI_Ssend(&token, 1, MPI_INT, 0, 77, x.comm));
            if (round == 0)
                CHECK_RC(MPI_Comm_idup(x.comm, &d, &q));
            else
                CHECK_RC(MPI_Comm_idup_with_info(x.comm, info, &d, &q));
            if (x.color == 0 && x.rank == 0)   /* A's leader: only after its idup */
                CHECK_RC(MPI_Recv(&token, 1, MPI_INT, 0, 77, x.comm, MPI_STATUS_IGNORE));
            CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
            if (info != MPI_INFO_NULL)
                CHECK_RC(MPI_Info_free(&info));
            check_dup(&x, d);
            CHECK_RC(MPI_Comm_free(&d));
        }
        inter_free(&x);
    }
    if (wrank == 0)
        printf("inter_idup: ok\n");
    MPI_Finalize();
    return 0;
}
