/* MINLOC/MAXLOC accumulates on every value-index pair type in derived
 * forms (issue 36, MPICH's rma/acc_pairtype: MPI_MAXLOC on a vector of
 * MPI_LONG_DOUBLE_INT).  For MPI_FLOAT_INT, DOUBLE_INT, LONG_INT, 2INT,
 * SHORT_INT and LONG_DOUBLE_INT, every rank accumulates into rank 0's
 * window: MAXLOC through a vector of pairs (every other pair; the ones in
 * between must stay untouched) and MINLOC through a contiguous type of
 * pairs, then a Get_accumulate with MPI_NO_OP through the vector reads
 * the maxima back.  Rank r offers value (r + j) % np, index r, at pair j:
 * the winner is unique and known. */
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

#define N 16   /* pairs per half */

static int me, np;

static int maxloc_rank(int j)
{
    return ((np - 1 - j) % np + np) % np;
}

static int minloc_rank(int j)
{
    return (np - j % np) % np;
}

#define PAIR_TEST(NAME, VT, MPIT)                                                              \
    static void NAME(void)                                                                     \
    {                                                                                          \
        typedef struct {                                                                       \
            VT v;                                                                              \
            int i;                                                                             \
        } pair_t;                                                                              \
        pair_t *mem = malloc(3 * N * sizeof(pair_t)); /* direct, CMA or served */             \
        CHECK(mem, "out of memory");                                                           \
        MPI_Win win;                                                                           \
        CHECK_RC(MPI_Win_create(mem, 3 * N * sizeof(pair_t), sizeof(pair_t), MPI_INFO_NULL,  \
                                MPI_COMM_WORLD, &win));                                        \
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);                                        \
        for (int j = 0; j < 2 * N; j++) {                                                      \
            mem[j].v = (VT)(j % 2 ? 55 : -1000);                                               \
            mem[j].i = j % 2 ? 555 : 999;                                                      \
        }                                                                                      \
        for (int j = 2 * N; j < 3 * N; j++) {                                                  \
            mem[j].v = (VT)1000;                                                               \
            mem[j].i = 999;                                                                    \
        }                                                                                      \
        MPI_Datatype vec, con;                                                                 \
        CHECK_RC(MPI_Type_vector(N, 1, 2, MPIT, &vec));                                        \
        CHECK_RC(MPI_Type_commit(&vec));                                                       \
        CHECK_RC(MPI_Type_contiguous(N, MPIT, &con));                                          \
        CHECK_RC(MPI_Type_commit(&con));                                                       \
        pair_t mine[N], back[N];                                                               \
        for (int j = 0; j < N; j++) {                                                          \
            mine[j].v = (VT)((me + j) % np);                                                   \
            mine[j].i = me;                                                                    \
        }                                                                                      \
        MPI_Barrier(MPI_COMM_WORLD);                                                           \
        CHECK_RC(MPI_Win_lock_all(0, win));                                                    \
        int rc = MPI_Accumulate(mine, N, MPIT, 0, 0, 1, vec, MPI_MAXLOC, win);                 \
        CHECK(rc == MPI_SUCCESS, "%s: MAXLOC on a vector of pairs: class %d", #MPIT,           \
              smap_err_class(rc));                                                             \
        rc = MPI_Accumulate(mine, 1, con, 0, 2 * N, N, MPIT, MPI_MINLOC, win);                 \
        CHECK(rc == MPI_SUCCESS, "%s: MINLOC from a contiguous type of pairs: class %d",       \
              #MPIT, smap_err_class(rc));                                                      \
        CHECK_RC(MPI_Win_unlock_all(win));                                                     \
        MPI_Barrier(MPI_COMM_WORLD);                                                           \
        CHECK_RC(MPI_Win_lock_all(0, win));                                                    \
        CHECK_RC(MPI_Get_accumulate(NULL, 0, MPIT, back, N, MPIT, 0, 0, 1, vec, MPI_NO_OP,     \
                                    win));                                                     \
        CHECK_RC(MPI_Win_unlock_all(win));                                                     \
        for (int j = 0; j < N; j++)                                                            \
            CHECK(back[j].v == (VT)(np - 1) && back[j].i == maxloc_rank(j),                    \
                  "%s: pair %d read back as (%g, %d), want (%d, %d)", #MPIT, j,                \
                  (double)back[j].v, back[j].i, np - 1, maxloc_rank(j));                       \
        if (me == 0) {                                                                         \
            for (int j = 0; j < 2 * N; j++) {                                                  \
                int even = j % 2 == 0;                                                         \
                double wv = even ? np - 1 : 55;                                                \
                int wi = even ? maxloc_rank(j / 2) : 555;                                      \
                CHECK((double)mem[j].v == wv && mem[j].i == wi,                                \
                      "%s: MAXLOC pair %d is (%g, %d), want (%g, %d)", #MPIT, j,              \
                      (double)mem[j].v, mem[j].i, wv, wi);                                     \
            }                                                                                  \
            for (int j = 0; j < N; j++)                                                        \
                CHECK(mem[2 * N + j].v == (VT)0 && mem[2 * N + j].i == minloc_rank(j),         \
                      "%s: MINLOC pair %d is (%g, %d), want (0, %d)", #MPIT, j,                \
                      (double)mem[2 * N + j].v, mem[2 * N + j].i, minloc_rank(j));             \
        }                                                                                      \
        MPI_Barrier(MPI_COMM_WORLD);                                                           \
        MPI_Type_free(&vec);                                                                   \
        MPI_Type_free(&con);                                                                   \
        CHECK_RC(MPI_Win_free(&win));                                                          \
        free(mem);                                                                             \
    }

PAIR_TEST(test_float_int, float, MPI_FLOAT_INT)
PAIR_TEST(test_double_int, double, MPI_DOUBLE_INT)
PAIR_TEST(test_long_int, long, MPI_LONG_INT)
PAIR_TEST(test_2int, int, MPI_2INT)
PAIR_TEST(test_short_int, short, MPI_SHORT_INT)
PAIR_TEST(test_long_double_int, long double, MPI_LONG_DOUBLE_INT)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    test_float_int();
    test_double_int();
    test_long_int();
    test_2int();
    test_short_int();
    test_long_double_int();
    MPI_Finalize();
    return 0;
}
