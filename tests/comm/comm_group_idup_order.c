/* Independent communicator constructions in different orders on different
 * ranks (issue 15, a hang): half the ranks call MPI_Comm_create_group then
 * MPI_Comm_idup on the same parent, the others MPI_Comm_idup then
 * MPI_Comm_create_group.  Legal: the idup is non-blocking, and the group
 * creation involves its group's members only.  Each group is {me, partner}
 * where partners follow the same order, so the program must finish. */
#include "smap_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size % 2 == 0, "needs an even number of ranks");
    for (int round = 0; round < 20; round++) {
        /* pairs {0,1},{2,3}: one order each; whole group: even ranks first */
        int first_group = round % 2 ? (rank / 2 + round / 2) % 2 : rank % 2 == 0;
        int pair[2] = {rank & ~1, rank | 1};
        MPI_Group world, g;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        /* even rounds: MPICH's comm_create_group_idup (the whole group) */
        if (round % 2)
            MPI_Group_incl(world, 2, pair, &g);
        else
            MPI_Comm_group(MPI_COMM_WORLD, &g);
        int gsize;
        MPI_Group_size(g, &gsize);
        MPI_Comm gc = MPI_COMM_NULL, dc = MPI_COMM_NULL;
        MPI_Request r;
        if (first_group) {
            CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &gc));
            CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &dc, &r));
        } else {
            CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &dc, &r));
            CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &gc));
        }
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
        int s = 0, one = 1;
        CHECK_RC(MPI_Allreduce(&one, &s, 1, MPI_INT, MPI_SUM, gc));
        CHECK(s == gsize, "group comm sum %d", s);
        CHECK_RC(MPI_Allreduce(&one, &s, 1, MPI_INT, MPI_SUM, dc));
        CHECK(s == size, "dup sum %d", s);
        MPI_Comm_free(&gc);
        MPI_Comm_free(&dc);
        MPI_Group_free(&g);
        MPI_Group_free(&world);
    }
    if (rank == 0)
        printf("comm_group_idup_order: ok\n");
    MPI_Finalize();
    return 0;
}
