/* One access across two adjacent attached regions of a dynamic window
 * (issue 36, MPICH's rma/win_dynamic_rma_flush_get): a rank attaches the
 * two halves of one array separately; its peer's MPI_Put, MPI_Get,
 * MPI_Accumulate and MPI_Get_accumulate each covering both halves work,
 * as with MPICH.  A range running past the second half into memory that
 * is not attached is still MPI_ERR_RMA_RANGE.  Rank r targets
 * rank (r+1) % np. */
#include <string.h>

#include "smap_test.h"

#define N 64   /* ints per half */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int to = (me + 1) % np, from = (me + np - 1) % np;
    static int buf[3 * N];   /* two attached halves, then memory not attached */
    for (int i = 0; i < 3 * N; i++)
        buf[i] = -1;
    MPI_Win win;
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_Win_attach(win, buf + N, N * sizeof(int)));   /* out of address order */
    CHECK_RC(MPI_Win_attach(win, buf, N * sizeof(int)));
    MPI_Aint mine, theirs;
    MPI_Get_address(buf, &mine);
    MPI_Sendrecv(&mine, 1, MPI_AINT, from, 0, &theirs, 1, MPI_AINT, to, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);

    int v[2 * N], back[2 * N], old[2 * N];
    for (int i = 0; i < 2 * N; i++)
        v[i] = me * 1000 + i;
    MPI_Aint mid = MPI_Aint_add(theirs, (N - 3) * (MPI_Aint)sizeof(int));
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win));
    CHECK_RC(MPI_Put(v, 2 * N, MPI_INT, to, theirs, 2 * N, MPI_INT, win));
    CHECK_RC(MPI_Win_flush(to, win));
    CHECK_RC(MPI_Get(back, 2 * N, MPI_INT, to, theirs, 2 * N, MPI_INT, win));
    CHECK_RC(MPI_Win_flush(to, win));
    for (int i = 0; i < 2 * N; i++)
        CHECK(back[i] == v[i], "put/get across the regions: element %d is %d, want %d", i,
              back[i], v[i]);
    /* 6 elements around the boundary: element atomics; all of it: bulk */
    int ones[2 * N];
    for (int i = 0; i < 2 * N; i++)
        ones[i] = 1;
    CHECK_RC(MPI_Accumulate(ones, 6, MPI_INT, to, mid, 6, MPI_INT, MPI_SUM, win));
    CHECK_RC(MPI_Get_accumulate(ones, 2 * N, MPI_INT, old, 2 * N, MPI_INT, to, theirs, 2 * N,
                                MPI_INT, MPI_SUM, win));
    CHECK_RC(MPI_Win_flush(to, win));
    for (int i = 0; i < 2 * N; i++) {
        int near = i >= N - 3 && i < N + 3;
        CHECK(old[i] == v[i] + near, "get_accumulate across the regions: element %d is %d, "
              "want %d", i, old[i], v[i] + near);
    }
    /* past the second region: not attached */
    EXPECT_CLASS(MPI_Put(v, 2 * N, MPI_INT, to, MPI_Aint_add(theirs, sizeof(int)), 2 * N,
                         MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT_CLASS(MPI_Accumulate(ones, 2, MPI_INT, to,
                                MPI_Aint_add(theirs, (2 * N - 1) * (MPI_Aint)sizeof(int)), 2,
                                MPI_INT, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    CHECK_RC(MPI_Win_unlock(to, win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 2 * N; i++) {
        int want = from * 1000 + i + 1 + (i >= N - 3 && i < N + 3);
        CHECK(buf[i] == want, "element %d is %d, want %d", i, buf[i], want);
    }
    for (int i = 2 * N; i < 3 * N; i++)
        CHECK(buf[i] == -1, "element %d past the regions was written (%d)", i, buf[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_detach(win, buf));
    CHECK_RC(MPI_Win_detach(win, buf + N));
    CHECK_RC(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
