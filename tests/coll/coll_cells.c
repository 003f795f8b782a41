/* The single-cell fast paths of the small collectives (src/coll/README.md,
 * "The small-message protocol"): a bcast of <= 48 bytes through the root's
 * cell, tiny reductions of predefined types through every rank's cell with
 * the op's loop called directly.  A writer may run up to three cells ahead
 * of its slowest reader (four cells per header), so here runs of
 * consecutive calls share a root while one rank at a time lags (sleeps
 * before its call): a writer that rewrote a cell too early shows as a
 * wrong value on the lagging rank.  Types: MPI_INT and MPI_DOUBLE
 * (contiguous: plain copies), a strided vector (packed into the cell), and
 * int buffers at an odd address (the op loop needs aligned operands: the
 * fallback runs).  Every result is checked on every rank.  Argument:
 * iterations (default 1200). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smap_test.h"

static int val(int rank, int it, int i)
{
    return rank * 1000003 + it * 37 + i * 11 - 5000;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int iters = argc > 1 ? atoi(argv[1]) : 1200;
    MPI_Datatype vec;   /* 3 ints, every other one: 12 bytes in a 20-byte span */
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int ibuf[32], iout[32];
    double dbuf[8], dout[8];
    char raw[128];
    for (int it = 0; it < iters; it++) {
        int block = it / 24, kind = block % 5;
        int root = (block / 5 + block) % np;
        /* one rank lags now and then: the others run ahead of it */
        int lagger = (it / 3) % np;
        if (me == lagger && it % 7 == 0)
            usleep(300);
        int n = 1 + (it * 5) % 12;   /* 1..12 ints: 4..48 bytes */
        switch (kind) {
        case 0:   /* bcast of MPI_INT */
            for (int i = 0; i < n; i++)
                ibuf[i] = me == root ? val(root, it, i) : -1;
            CHECK_RC(MPI_Bcast(ibuf, n, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++)
                CHECK(ibuf[i] == val(root, it, i), "it %d bcast %d ints [%d] = %d", it, n, i,
                      ibuf[i]);
            break;
        case 1: { /* bcast of a strided vector, up to 4 of them (48 bytes) */
            int m = 1 + it % 4;
            for (int i = 0; i < 32; i++)
                ibuf[i] = me == root ? val(root, it, i) : -1;
            CHECK_RC(MPI_Bcast(ibuf, m, vec, root, MPI_COMM_WORLD));
            for (int e = 0; e < m; e++)
                for (int k = 0; k < 3; k++) {
                    int i = e * 5 + 2 * k;   /* extent: 5 ints */
                    CHECK(ibuf[i] == val(root, it, i), "it %d bcast %d vectors [%d] = %d", it,
                          m, i, ibuf[i]);
                }
            break;
        }
        case 2:   /* reduce, MPI_INT sum and MPI_DOUBLE max alternately */
            if (it % 2 == 0) {
                for (int i = 0; i < n; i++)
                    ibuf[i] = val(me, it, i), iout[i] = -7;
                CHECK_RC(MPI_Reduce(ibuf, iout, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
                if (me == root)
                    for (int i = 0; i < n; i++) {
                        int want = 0;
                        for (int r = 0; r < np; r++)
                            want += val(r, it, i);
                        CHECK(iout[i] == want, "it %d reduce sum %d ints [%d] = %d, want %d",
                              it, n, i, iout[i], want);
                    }
            } else {
                int m = 1 + n / 2;   /* <= 6 doubles */
                for (int i = 0; i < m; i++)
                    dbuf[i] = (double)val(me, it, i) * ((me + i) % 2 ? 1.0 : -1.0),
                    dout[i] = 0.5;
                CHECK_RC(MPI_Reduce(dbuf, dout, m, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD));
                if (me == root)
                    for (int i = 0; i < m; i++) {
                        double want = -1e300;
                        for (int r = 0; r < np; r++) {
                            double v = (double)val(r, it, i) * ((r + i) % 2 ? 1.0 : -1.0);
                            want = v > want ? v : want;
                        }
                        CHECK(dout[i] == want, "it %d reduce max %d doubles [%d]", it, m, i);
                    }
            }
            break;
        case 3:   /* allreduce, in place every other time */
            for (int i = 0; i < n; i++)
                ibuf[i] = val(me, it, i), iout[i] = -7;
            if (it % 2)
                memcpy(iout, ibuf, (size_t)n * sizeof *ibuf);
            CHECK_RC(MPI_Allreduce(it % 2 ? MPI_IN_PLACE : ibuf, iout, n, MPI_INT, MPI_SUM,
                                   MPI_COMM_WORLD));
            for (int i = 0; i < n; i++) {
                int want = 0;
                for (int r = 0; r < np; r++)
                    want += val(r, it, i);
                CHECK(iout[i] == want, "it %d allreduce %d ints [%d] = %d, want %d", it, n, i,
                      iout[i], want);
            }
            break;
        default: { /* allreduce and reduce of ints at an odd address */
            char *in = raw + 1, *out = raw + 1 + 64;
            for (int i = 0; i < n; i++) {
                int v = val(me, it, i), z = -7;
                memcpy(in + 4 * i, &v, 4);
                memcpy(out + 4 * i, &z, 4);
            }
            if (it % 2)
                CHECK_RC(MPI_Allreduce(in, out, n, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
            else
                CHECK_RC(MPI_Reduce(in, out, n, MPI_INT, MPI_MIN, root, MPI_COMM_WORLD));
            if (it % 2 || me == root)
                for (int i = 0; i < n; i++) {
                    int want = val(0, it, i), got;
                    for (int r = 1; r < np; r++)
                        want = val(r, it, i) < want ? val(r, it, i) : want;
                    memcpy(&got, out + 4 * i, 4);
                    CHECK(got == want, "it %d misaligned min %d ints [%d] = %d, want %d", it, n, i,
                          got, want);
                }
            break;
        }
        }
    }
    MPI_Type_free(&vec);
    MPI_Finalize();
    if (me == 0)
        printf("PASS coll_cells np %d\n", np);
    return 0;
}
