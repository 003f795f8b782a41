/* MPI_Comm_idup_with_info and MPI_Comm_dup_with_info with MPI_INFO_NULL:
 * a duplicate without hints (issue 15: the idup aborted inside an internal
 * MPI_Info_free of the null info). */
#include "smap_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm c = MPI_COMM_NULL, d = MPI_COMM_NULL;
    MPI_Request r;
    CHECK_RC(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c, &r));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(c != MPI_COMM_NULL, "no communicator");
    CHECK_RC(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size - 1) / 2, "sum %d", sum);
    MPI_Info got;
    int nkeys = -1;
    CHECK_RC(MPI_Comm_get_info(c, &got));
    CHECK_RC(MPI_Info_get_nkeys(got, &nkeys));
    CHECK(nkeys == 0, "%d hints on a dup with MPI_INFO_NULL", nkeys);
    CHECK_RC(MPI_Info_free(&got));
    CHECK_RC(MPI_Comm_dup_with_info(c, MPI_INFO_NULL, &d));
    CHECK_RC(MPI_Barrier(d));
    CHECK_RC(MPI_Comm_free(&d));
    /* a real info object is still duplicated and freed by the idup */
    MPI_Info info;
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    CHECK_RC(MPI_Comm_idup_with_info(c, info, &d, &r));
    CHECK_RC(MPI_Info_free(&info));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Barrier(d));
    CHECK_RC(MPI_Comm_free(&d));
    CHECK_RC(MPI_Comm_free(&c));
    if (rank == 0)
        printf("comm_idup_info_null: ok\n");
    MPI_Finalize();
    return 0;
}
