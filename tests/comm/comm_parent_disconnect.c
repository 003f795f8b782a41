/* MPI_Comm_get_parent gives MPI_COMM_NULL (a smartmap process is never
 * spawned); MPI_Comm_disconnect on an ordinary communicator completes its
 * pending traffic and frees it; on MPI_COMM_NULL it raises MPI_ERR_COMM
 * (issue 15). */
#include "smap_expect.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm parent = MPI_COMM_WORLD;
    CHECK_RC(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "get_parent gave a communicator");

    /* pending traffic: every rank Isends to the next, Irecv posted late */
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    int out = rank, in = -1;
    MPI_Request s;
    CHECK_RC(MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 3, d, &s));
    CHECK_RC(MPI_Request_free(&s));   /* only disconnect can complete it now */
    CHECK_RC(MPI_Recv(&in, 1, MPI_INT, (rank + size - 1) % size, 3, d, MPI_STATUS_IGNORE));
    CHECK(in == (rank + size - 1) % size, "received %d", in);
    CHECK_RC(MPI_Comm_disconnect(&d));
    CHECK(d == MPI_COMM_NULL, "disconnect did not set MPI_COMM_NULL");

    /* a buffered send still in flight at disconnect */
    MPI_Comm e;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &e));
    static char buf[1 << 16];
    static int big[4096];
    CHECK_RC(MPI_Buffer_attach(buf, sizeof buf));
    for (int i = 0; i < 4096; i++)
        big[i] = i + rank;
    CHECK_RC(MPI_Bsend(big, 4096, MPI_INT, (rank + 1) % size, 4, e));
    static int got[4096];
    CHECK_RC(MPI_Recv(got, 4096, MPI_INT, (rank + size - 1) % size, 4, e, MPI_STATUS_IGNORE));
    CHECK(got[7] == 7 + (rank + size - 1) % size, "bsend data");
    CHECK_RC(MPI_Comm_disconnect(&e));
    void *a;
    int sz;
    CHECK_RC(MPI_Buffer_detach(&a, &sz));

    MPI_Comm null = MPI_COMM_NULL;
    EXPECT(MPI_ERR_COMM, MPI_Comm_disconnect(&null));
    MPI_Comm world = MPI_COMM_WORLD;
    EXPECT(MPI_ERR_COMM, MPI_Comm_disconnect(&world));
    if (rank == 0)
        printf("comm_parent_disconnect: ok\n");
    MPI_Finalize();
    return 0;
}
