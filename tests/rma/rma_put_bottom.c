/* Origin buffers at MPI_BOTTOM (issue 36, MPICH's rma/put_bottom): a
 * put, get and accumulate whose origin datatype is an hindexed type of
 * absolute addresses (MPI_Get_address) and whose buffer is MPI_BOTTOM
 * move exactly those elements.  A NULL buffer with a type that starts
 * at offset 0 is still MPI_ERR_ARG (it would touch address 0).
 * Rank r targets rank (r+1) % np. */
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#define N 8

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int to = (me + 1) % np, from = (me + np - 1) % np;
    int *mem = malloc(3 * N * sizeof(int));   /* direct, CMA or served */
    CHECK(mem, "out of memory");
    MPI_Win win;
    CHECK_RC(MPI_Win_create(mem, 3 * N * sizeof(int), sizeof(int), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < 3 * N; i++)
        mem[i] = -1;
    /* N ints scattered in two arrays, described by absolute addresses */
    int a[N], b[N], got_a[N], got_b[N];
    MPI_Aint disp[2];
    int bl[2] = { N / 2, N / 2 };
    for (int i = 0; i < N; i++) {
        a[i] = me * 100 + i;
        b[i] = me * 100 + 50 + i;
    }
    MPI_Get_address(a, &disp[0]);
    MPI_Get_address(b + N / 2, &disp[1]);
    MPI_Datatype abs_t, res_t;
    MPI_Type_create_hindexed(2, bl, disp, MPI_INT, &abs_t);
    MPI_Type_commit(&abs_t);
    MPI_Get_address(got_a, &disp[0]);
    MPI_Get_address(got_b + N / 2, &disp[1]);
    MPI_Type_create_hindexed(2, bl, disp, MPI_INT, &res_t);
    MPI_Type_commit(&res_t);
    MPI_Barrier(MPI_COMM_WORLD);

    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Put(MPI_BOTTOM, 1, abs_t, to, 0, N, MPI_INT, win));
    CHECK_RC(MPI_Accumulate(MPI_BOTTOM, 1, abs_t, to, 2 * N, N, MPI_INT, MPI_REPLACE, win));
    CHECK_RC(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++) {
        int want = from * 100 + (i < N / 2 ? i : 50 + i);
        CHECK(mem[i] == want, "put at MPI_BOTTOM: element %d is %d, want %d", i, mem[i], want);
        CHECK(mem[2 * N + i] == want, "accumulate at MPI_BOTTOM: element %d is %d, want %d", i,
              mem[2 * N + i], want);
    }
    for (int i = 0; i < N; i++)
        got_a[i] = got_b[i] = -7;
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
    CHECK_RC(MPI_Get(MPI_BOTTOM, 1, res_t, to, 0, N, MPI_INT, win));
    CHECK_RC(MPI_Win_unlock(to, win));
    for (int i = 0; i < N / 2; i++) {
        CHECK(got_a[i] == me * 100 + i, "get at MPI_BOTTOM: a[%d] is %d", i, got_a[i]);
        CHECK(got_b[N / 2 + i] == me * 100 + 50 + N / 2 + i, "get at MPI_BOTTOM: b[%d] is %d",
              N / 2 + i, got_b[N / 2 + i]);
        CHECK(got_a[N / 2 + i] == -7 && got_b[i] == -7, "get at MPI_BOTTOM wrote outside");
    }
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
    EXPECT_CLASS(MPI_Put(NULL, 1, MPI_INT, to, 0, 1, MPI_INT, win), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Get(NULL, 2, MPI_INT, to, 0, 2, MPI_INT, win), MPI_ERR_ARG);
    CHECK_RC(MPI_Win_unlock(to, win));
    MPI_Type_free(&abs_t);
    MPI_Type_free(&res_t);
    CHECK_RC(MPI_Win_free(&win));
    free(mem);
    MPI_Finalize();
    return 0;
}
