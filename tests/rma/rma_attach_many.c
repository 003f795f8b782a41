/* Dynamic windows with thousands of attached regions (issue 36, MPICH's
 * rma/window_attach and linked_list_bench_lock_*): each rank attaches
 * 5000 separate regions, peers put into and get from a spread of them
 * (first, last, every 97th), then every region is detached; a put to a
 * detached region is MPI_ERR_RMA_RANGE again.  Rank r targets
 * rank (r+1) % np. */
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#define NREG 5000
#define STRIDE 32   /* bytes between region starts: 16 attached, 16 not */
#define LEN 16

/* The regions accessed: every 97th, then the last. */
static int next(int i)
{
    return i == NREG - 1 ? NREG : i + 97 < NREG ? i + 97 : NREG - 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int to = (me + 1) % np, from = (me + np - 1) % np;
    unsigned char *buf = calloc(NREG, STRIDE);
    CHECK(buf, "out of memory");
    MPI_Win win;
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < NREG; i++) {
        int rc = MPI_Win_attach(win, buf + (size_t)i * STRIDE, LEN);
        CHECK(rc == MPI_SUCCESS, "MPI_Win_attach of region %d failed (class %d)", i,
              smap_err_class(rc));
    }
    MPI_Aint mine, theirs;
    MPI_Get_address(buf, &mine);
    MPI_Sendrecv(&mine, 1, MPI_AINT, from, 0, &theirs, 1, MPI_AINT, to, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);

    CHECK_RC(MPI_Win_lock_all(0, win));
    for (int i = 0; i < NREG; i = next(i)) {
        unsigned char v[LEN], back[LEN];
        for (int k = 0; k < LEN; k++)
            v[k] = (unsigned char)(me + i + k);
        MPI_Aint at = MPI_Aint_add(theirs, (MPI_Aint)i * STRIDE);
        CHECK_RC(MPI_Put(v, LEN, MPI_BYTE, to, at, LEN, MPI_BYTE, win));
        CHECK_RC(MPI_Win_flush(to, win));
        CHECK_RC(MPI_Get(back, LEN, MPI_BYTE, to, at, LEN, MPI_BYTE, win));
        CHECK_RC(MPI_Win_flush(to, win));
        CHECK(!memcmp(v, back, LEN), "region %d: got back other bytes", i);
        /* the bytes between regions are not in the window */
        EXPECT_CLASS(MPI_Put(v, 1, MPI_BYTE, to, MPI_Aint_add(at, LEN), 1, MPI_BYTE, win),
                     MPI_ERR_RMA_RANGE);
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < NREG; i = next(i))
        for (int k = 0; k < LEN; k++)
            CHECK(buf[(size_t)i * STRIDE + k] == (unsigned char)(from + i + k),
                  "region %d byte %d is %u", i, k, buf[(size_t)i * STRIDE + k]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = NREG - 1; i >= 0; i -= 2)   /* out of attach order */
        CHECK_RC(MPI_Win_detach(win, buf + (size_t)i * STRIDE));
    for (int i = NREG - 2; i >= 0; i -= 2)
        CHECK_RC(MPI_Win_detach(win, buf + (size_t)i * STRIDE));
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char v = 1;
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
    EXPECT_CLASS(MPI_Put(&v, 1, MPI_BYTE, to, theirs, 1, MPI_BYTE, win), MPI_ERR_RMA_RANGE);
    CHECK_RC(MPI_Win_unlock(to, win));
    CHECK_RC(MPI_Win_free(&win));
    free(buf);
    MPI_Finalize();
    return 0;
}
