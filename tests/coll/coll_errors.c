/* Argument errors of the collectives, with MPI_ERRORS_RETURN: each bad
 * call must return the right error class (and, being detected before any
 * synchronisation, must not hang the other ranks).  Every rank makes the
 * same bad calls; a final good call proves the control blocks are still in
 * step. */
#include <stdio.h>
#include <string.h>

#include "smap_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int a[64] = { 0 }, b[64 * 8] = { 0 }, counts[64], displs[64];
    for (int i = 0; i < 64; i++)
        counts[i] = 1, displs[i] = i;
    double d[4] = { 0 };
    MPI_Datatype unc;
    MPI_Type_contiguous(2, MPI_INT, &unc);

    EXPECT_CLASS(MPI_Bcast(a, 1, MPI_INT, np, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Bcast(a, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Bcast(a, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Bcast(a, 1, unc, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Bcast(a, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Allreduce(d, d + 2, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(a, b, 1, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(a, b, 1, MPI_2INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Allreduce(a, a, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, np + 3, MPI_COMM_WORLD), MPI_ERR_ROOT);
    if (np > 1)
        EXPECT_CLASS(MPI_Reduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, (me + 1) % np, MPI_COMM_WORLD),
               MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Scan(a, b, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Exscan(a, b, 1, MPI_INT, MPI_LAND, MPI_COMM_SELF) == MPI_SUCCESS ? 0 : -1, 0);
    EXPECT_CLASS(MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_ARG);
    counts[0] = -1;
    EXPECT_CLASS(MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Allgatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_COUNT);
    counts[0] = 1;
    EXPECT_CLASS(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, np, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Gather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, me, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Scatter(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, me, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Allgather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Alltoall(b, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Alltoallv(a, NULL, displs, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Alltoallw(a, counts, displs, NULL, b, counts, displs, NULL, MPI_COMM_WORLD),
           MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Gatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, me, MPI_COMM_WORLD), MPI_ERR_ARG);

    /* still in step: a real collective works */
    a[0] = me + 1;
    CHECK_RC(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(b[0] == np * (np + 1) / 2, "allreduce after the errors gave %d", b[0]);
    MPI_Type_free(&unc);
    MPI_Finalize();
    if (me == 0)
        printf("PASS coll_errors np %d\n", np);
    return 0;
}
