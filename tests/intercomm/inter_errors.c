/* Intercommunicator errors under MPI_ERRORS_RETURN, each of the right
 * class and none hanging: MPI_Intercomm_create with a bad local or remote
 * leader, a bad tag, an intercommunicator as local_comm; queries and merge
 * on an intracommunicator; collectives with an invalid root, MPI_IN_PLACE,
 * scans (intracommunicators only), the non-blocking ones likewise;
 * point-to-point ranks checked against the remote group.  The
 * intercommunicator still works afterwards. */
#include <stdint.h>

#include "inter_common.h"
#include "smap_expect.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    CHECK(wsize >= 2 && wsize <= 64, "needs 2..64 ranks");
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    struct inter x;
    inter_make(0, &x);   /* inherits ERRORS_RETURN through the split */
    MPI_Comm nc = MPI_COMM_NULL;
    int lsize = x.size, other = x.theirs[0];
    /* creation: every member passes the same bad argument */
    EXPECT(MPI_ERR_RANK, MPI_Intercomm_create(x.local, -1, MPI_COMM_WORLD, other, 1, &nc));
    EXPECT(MPI_ERR_RANK, MPI_Intercomm_create(x.local, lsize, MPI_COMM_WORLD, other, 1, &nc));
    EXPECT(MPI_ERR_RANK, MPI_Intercomm_create(x.local, 0, MPI_COMM_WORLD, wsize, 1, &nc));
    EXPECT(MPI_ERR_RANK, MPI_Intercomm_create(x.local, 0, MPI_COMM_WORLD, x.mine[0], 1, &nc));
    EXPECT(MPI_ERR_TAG, MPI_Intercomm_create(x.local, 0, MPI_COMM_WORLD, other, -5, &nc));
    EXPECT(MPI_ERR_COMM, MPI_Intercomm_create(x.local, 0, MPI_COMM_NULL, other, 1, &nc));
    EXPECT(MPI_ERR_COMM, MPI_Intercomm_create(x.comm, 0, MPI_COMM_WORLD, other, 1, &nc));
    EXPECT(MPI_ERR_COMM, MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, other, 1, &nc));
    EXPECT(MPI_ERR_ARG, MPI_Intercomm_create(x.local, 0, MPI_COMM_WORLD, other, 1, NULL));
    CHECK(nc == MPI_COMM_NULL, "a failed create wrote newintercomm");
    EXPECT(MPI_ERR_GROUP,   /* (the calling process is in neither group) */
           MPI_Intercomm_create_from_groups(MPI_GROUP_EMPTY, 0, MPI_GROUP_EMPTY, 0, "t",
                                            MPI_INFO_NULL, MPI_ERRORS_RETURN, &nc));

    /* intercommunicator-only calls on an intracommunicator */
    int n;
    MPI_Group g;
    EXPECT(MPI_ERR_COMM, MPI_Comm_remote_size(MPI_COMM_WORLD, &n));
    EXPECT(MPI_ERR_COMM, MPI_Comm_remote_group(x.local, &g));
    EXPECT(MPI_ERR_COMM, MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &nc));
    EXPECT(MPI_ERR_ARG, MPI_Comm_remote_size(x.comm, NULL));
    EXPECT(MPI_ERR_ARG, MPI_Intercomm_merge(x.comm, 0, NULL));

    /* collectives */
    int a[64] = { 0 }, b[64] = { 0 };
    EXPECT(MPI_ERR_ROOT, MPI_Bcast(a, 1, MPI_INT, x.rsize, x.comm));
    EXPECT(MPI_ERR_ROOT, MPI_Bcast(a, 1, MPI_INT, -7, x.comm));
    EXPECT(MPI_ERR_ROOT, MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, x.rsize, x.comm));
    EXPECT(MPI_ERR_ROOT, MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, -1, x.comm));
    EXPECT(MPI_ERR_COMM, MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, x.comm));
    EXPECT(MPI_ERR_COMM, MPI_Exscan(a, b, 1, MPI_INT, MPI_SUM, x.comm));
    EXPECT(MPI_ERR_COMM, MPI_Scan_c(a, b, 1, MPI_INT, MPI_SUM, x.comm));
    EXPECT(MPI_ERR_BUFFER, MPI_Allreduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, x.comm));
    EXPECT(MPI_ERR_BUFFER, MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, x.comm));
    EXPECT(MPI_ERR_COUNT, MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, x.comm));
    EXPECT(MPI_ERR_OP, MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, x.comm));
    MPI_Request r = MPI_REQUEST_NULL;
    /* non-blocking: the same checks as the blocking ones */
    EXPECT(MPI_ERR_COMM, MPI_Iscan(a, b, 1, MPI_INT, MPI_SUM, x.comm, &r));
    EXPECT(MPI_ERR_COMM, MPI_Iexscan(a, b, 1, MPI_INT, MPI_SUM, x.comm, &r));
    EXPECT(MPI_ERR_BUFFER, MPI_Iallreduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, x.comm, &r));
    EXPECT(MPI_ERR_ROOT, MPI_Ibcast(a, 1, MPI_INT, x.rsize, x.comm, &r));
    CHECK(r == MPI_REQUEST_NULL, "a refused collective returned a request");
    CHECK_RC(MPI_Ibarrier(x.comm, &r));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));

    /* point-to-point: ranks are the remote group's */
    EXPECT(MPI_ERR_RANK, MPI_Send(a, 1, MPI_INT, x.rsize, 0, x.comm));
    EXPECT(MPI_ERR_RANK, MPI_Recv(a, 1, MPI_INT, x.rsize, 0, x.comm, MPI_STATUS_IGNORE));
    EXPECT(MPI_ERR_RANK, MPI_Isend(a, 1, MPI_INT, -5, 0, x.comm, &r));
    EXPECT(MPI_ERR_TAG, MPI_Send(a, 1, MPI_INT, 0, -3, x.comm));
    int flag;
    EXPECT(MPI_ERR_RANK, MPI_Iprobe(x.rsize + 1, 0, x.comm, &flag, MPI_STATUS_IGNORE));
    /* the last remote rank is valid even where this group is smaller:
     * everyone sends there, the last member of each group receives */
    int v = wrank, got = -1;
    CHECK_RC(MPI_Isend(&v, 1, MPI_INT, x.rsize - 1, 1, x.comm, &r));
    if (x.rank == x.size - 1)
        for (int i = 0; i < x.rsize; i++) {
            MPI_Status st;
            CHECK_RC(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 1, x.comm, &st));
            CHECK(got == x.theirs[st.MPI_SOURCE], "got %d from %d", got, st.MPI_SOURCE);
        }
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));

    /* still usable */
    CHECK_RC(MPI_Barrier(x.comm));
    CHECK_RC(MPI_Allreduce(&v, &got, 1, MPI_INT, MPI_SUM, x.comm));
    int want = 0;
    for (int i = 0; i < x.rsize; i++)
        want += x.theirs[i];
    CHECK(got == want, "allreduce after errors %d", got);
    inter_free(&x);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (wrank == 0)
        printf("inter_errors: %d cases OK\n", smap_expect_cases);
    MPI_Finalize();
    return 0;
}
