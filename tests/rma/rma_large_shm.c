/* Large windows (issue 36, MPICH's rma/win_large_shm): MPI_Win_allocate_shared
 * of 1 GiB per rank (the node's whole window is one allocation) and
 * MPI_Win_allocate of 1.5 GiB per rank succeed: windows are limited by
 * memory, not by the size of a per-rank arena.  Only a few pages are
 * touched (the first and last bytes of every rank's segment, through the
 * pointers MPI_Win_shared_query gives, and by puts at the far end of the
 * allocated window), so the test costs little memory. */
#include <stdint.h>
#include <string.h>

#include "smap_test.h"

#define SHM ((MPI_Aint)1 << 30)
#define BIG ((MPI_Aint)3 << 29)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nme, nn;
    MPI_Comm_rank(node, &nme);
    MPI_Comm_size(node, &nn);

    char *base;
    MPI_Win win;
    int rc = MPI_Win_allocate_shared(SHM, 1, MPI_INFO_NULL, node, &base, &win);
    CHECK(rc == MPI_SUCCESS, "MPI_Win_allocate_shared of %lld bytes per rank: class %d",
          (long long)SHM, smap_err_class(rc));
    base[0] = (char)(nme + 1);
    base[SHM - 1] = (char)(nme + 101);
    CHECK_RC(MPI_Win_fence(0, win));
    for (int r = 0; r < nn; r++) {
        MPI_Aint size;
        int du;
        char *p;
        CHECK_RC(MPI_Win_shared_query(win, r, &size, &du, &p));
        CHECK(size == SHM, "rank %d's segment is %lld bytes", r, (long long)size);
        CHECK(p[0] == r + 1 && p[SHM - 1] == r + 101, "rank %d's segment holds %d .. %d", r,
              p[0], p[SHM - 1]);
        if (r > 0) {
            char *prev;
            CHECK_RC(MPI_Win_shared_query(win, r - 1, &size, &du, &prev));
            CHECK(prev + SHM == p, "the segments are not contiguous");
        }
    }
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Win_free(&win));

    int to = (me + 1) % np, from = (me + np - 1) % np;
    rc = MPI_Win_allocate(BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    CHECK(rc == MPI_SUCCESS, "MPI_Win_allocate of %lld bytes per rank: class %d",
          (long long)BIG, smap_err_class(rc));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int64_t v = 1000 + me, back = 0;
    CHECK_RC(MPI_Win_lock_all(0, win));
    CHECK_RC(MPI_Put(&v, 1, MPI_INT64_T, to, BIG - 8, 1, MPI_INT64_T, win));
    CHECK_RC(MPI_Win_flush(to, win));
    CHECK_RC(MPI_Get(&back, 1, MPI_INT64_T, to, BIG - 8, 1, MPI_INT64_T, win));
    CHECK_RC(MPI_Win_flush(to, win));
    CHECK(back == v, "got %lld back from the window's last word, want %lld", (long long)back,
          (long long)v);
    EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT64_T, to, BIG - 4, 1, MPI_INT64_T, win),
                 MPI_ERR_RMA_RANGE);
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t at;
    memcpy(&at, base + BIG - 8, 8);
    CHECK(at == 1000 + from, "our last word is %lld, want %d", (long long)at, 1000 + from);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_free(&win));
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
