/* One-sided accumulates of MPI_SUM, MPI_PROD, MIN and MAX on MPI_BYTE
 * (issue 36): MPICH and Open MPI accept them, and mpi4py probes one-sided
 * support with exactly MPI_Get_accumulate(count 0, MPI_BYTE, MPI_SUM).
 * The bytes combine as unsigned 8-bit integers (wrapping); every rank
 * accumulates into rank 0's window, by MPI_Accumulate (one element, the
 * element atomics; 16, the bulk loop; a vector of bytes), MPI_Raccumulate,
 * MPI_Fetch_and_op and MPI_Get_accumulate, and rank 0 checks the sums.
 * Run at every copy level (direct, CMA, served by the target). */
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    /* program memory: direct, CMA or served as SMAP_COPY says */
    unsigned char *mem = malloc(64);
    CHECK(mem, "out of memory");
    MPI_Win win;
    CHECK_RC(MPI_Win_create(mem, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    memset(mem, 0, 64);
    mem[1] = 1;     /* PROD */
    mem[2] = 255;   /* MIN */
    mem[6] = 200;   /* wraps */
    MPI_Barrier(MPI_COMM_WORLD);

    CHECK_RC(MPI_Win_lock_all(0, win));
    /* mpi4py's probe */
    unsigned char none[1];
    CHECK_RC(MPI_Get_accumulate(none, 0, MPI_BYTE, none, 0, MPI_BYTE, 0, 0, 0, MPI_BYTE, MPI_SUM,
                                win));
    CHECK_RC(MPI_Accumulate(none, 0, MPI_BYTE, 0, 0, 0, MPI_BYTE, MPI_SUM, win));

    unsigned char v = (unsigned char)(me + 1);
    CHECK_RC(MPI_Accumulate(&v, 1, MPI_BYTE, 0, 0, 1, MPI_BYTE, MPI_SUM, win));
    unsigned char two = 2;
    CHECK_RC(MPI_Accumulate(&two, 1, MPI_BYTE, 0, 1, 1, MPI_BYTE, MPI_PROD, win));
    unsigned char m = (unsigned char)(me + 10);
    CHECK_RC(MPI_Accumulate(&m, 1, MPI_BYTE, 0, 2, 1, MPI_BYTE, MPI_MIN, win));
    CHECK_RC(MPI_Accumulate(&m, 1, MPI_BYTE, 0, 3, 1, MPI_BYTE, MPI_MAX, win));
    unsigned char one = 1, old = 0xAA;
    CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_BYTE, 0, 4, MPI_SUM, win));
    CHECK(old < np, "fetch_and_op fetched %u, want < %d", old, np);
    unsigned char three = 3;
    MPI_Request rq;
    CHECK_RC(MPI_Raccumulate(&three, 1, MPI_BYTE, 0, 5, 1, MPI_BYTE, MPI_SUM, win, &rq));
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (me == 0) {
        unsigned char h = 100;
        CHECK_RC(MPI_Accumulate(&h, 1, MPI_BYTE, 0, 6, 1, MPI_BYTE, MPI_SUM, win));
    }
    unsigned char sixteen[16], got[16];
    for (int i = 0; i < 16; i++)
        sixteen[i] = (unsigned char)(me * 3 + i * 17);
    CHECK_RC(MPI_Get_accumulate(sixteen, 16, MPI_BYTE, got, 16, MPI_BYTE, 0, 16, 16, MPI_BYTE,
                                MPI_SUM, win));
    /* every other byte of [32, 40) by a vector of bytes */
    MPI_Datatype vec;
    MPI_Type_vector(4, 1, 2, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    unsigned char four[4] = { 1, 2, 3, 4 };
    CHECK_RC(MPI_Accumulate(four, 4, MPI_BYTE, 0, 32, 1, vec, MPI_SUM, win));
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);

    if (me == 0) {
        unsigned sum = 0, prod = 1;
        for (int r = 0; r < np; r++) {
            sum += (unsigned)r + 1;
            prod *= 2;
        }
        CHECK(mem[0] == (unsigned char)sum, "SUM: %u, want %u", mem[0], sum & 255);
        CHECK(mem[1] == (unsigned char)prod, "PROD: %u, want %u", mem[1], prod & 255);
        CHECK(mem[2] == 10, "MIN: %u, want 10", mem[2]);
        CHECK(mem[3] == np + 9, "MAX: %u, want %d", mem[3], np + 9);
        CHECK(mem[4] == np, "fetch_and_op SUM: %u, want %d", mem[4], np);
        CHECK(mem[5] == 3 * np, "Raccumulate SUM: %u, want %d", mem[5], 3 * np);
        CHECK(mem[6] == 44, "200 + 100 on a byte: %u, want 44 (wrapped)", mem[6]);
        for (int i = 0; i < 16; i++) {
            unsigned want = 0;
            for (int r = 0; r < np; r++)
                want += (unsigned)(r * 3 + i * 17);
            CHECK(mem[16 + i] == (unsigned char)want, "bulk SUM byte %d: %u, want %u", i,
                  mem[16 + i], want & 255);
        }
        for (int i = 0; i < 8; i++) {
            unsigned want = i % 2 ? 0 : (unsigned)(np * (i / 2 + 1));
            CHECK(mem[32 + i] == want, "vector SUM byte %d: %u, want %u", i, mem[32 + i], want);
        }
    }
    MPI_Type_free(&vec);
    CHECK_RC(MPI_Win_free(&win));
    free(mem);
    MPI_Finalize();
    return 0;
}
