/* MPI_Comm_disconnect ignores inactive persistent requests (issue 36,
 * MPICH's comm/inactive_reqs: it hung): requests made by MPI_Send_init,
 * MPI_Recv_init and MPI_Bcast_init but never started, and a persistent
 * send started and completed, do not count as pending communication.
 * They are freed after the disconnect. */
#include "smap_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dst = (rank + 1) % size, src = (rank + size - 1) % size;
    int out = rank, in = -1, b = 0, x = rank, y = -1;

    MPI_Comm comm;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Request never[3], done[2];
    CHECK_RC(MPI_Send_init(&out, 1, MPI_INT, dst, 0, comm, &never[0]));
    CHECK_RC(MPI_Recv_init(&in, 1, MPI_INT, src, 0, comm, &never[1]));
    CHECK_RC(MPI_Bcast_init(&b, 1, MPI_INT, 0, comm, MPI_INFO_NULL, &never[2]));
    /* started once and completed: inactive again */
    CHECK_RC(MPI_Send_init(&x, 1, MPI_INT, dst, 1, comm, &done[0]));
    CHECK_RC(MPI_Recv_init(&y, 1, MPI_INT, src, 1, comm, &done[1]));
    CHECK_RC(MPI_Startall(2, done));
    CHECK_RC(MPI_Waitall(2, done, MPI_STATUSES_IGNORE));
    CHECK(y == src, "received %d, want %d", y, src);

    CHECK_RC(MPI_Comm_disconnect(&comm));
    CHECK(comm == MPI_COMM_NULL, "disconnect did not set MPI_COMM_NULL");
    for (int i = 0; i < 3; i++)
        CHECK_RC(MPI_Request_free(&never[i]));
    for (int i = 0; i < 2; i++)
        CHECK_RC(MPI_Request_free(&done[i]));
    MPI_Finalize();
    return 0;
}
