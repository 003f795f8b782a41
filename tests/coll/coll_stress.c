/* Back-to-back rooted collectives with rotating roots and mixed sizes, no
 * barrier in between: receivers of a bcast and non-roots of a reduce wait
 * for fewer peers than a full synchronisation, so ranks drift apart by up
 * to a step; the control blocks must still never hand out data of the
 * wrong call.  Every result is checked. */
#include <stdio.h>
#include <stdlib.h>

#include "smap_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    enum { MAXN = 40000 };
    int *buf = malloc(MAXN * sizeof(int)), *out = malloc(MAXN * sizeof(int));
    static const int sizes[] = { 1, 3, 100, 5000, 40000 };
#if defined(__SANITIZE_ADDRESS__)
    const int iters = 400;   /* -O0 and oversubscribed: fewer rounds, same paths */
#else
    const int iters = 1500;
#endif
    for (int it = 0; it < iters; it++) {
        int n = sizes[(it * 7) % 5], root = (it * 3) % np;
        if (it % 3 == 0) {
            for (int i = 0; i < n; i++)
                buf[i] = me == root ? it * 1000 + i : -1;
            CHECK_RC(MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++)
                CHECK(buf[i] == it * 1000 + i, "bcast %d: [%d] = %d", it, i, buf[i]);
        } else {
            for (int i = 0; i < n; i++)
                buf[i] = it + me + i, out[i] = -1;
            if (it % 3 == 1)
                CHECK_RC(MPI_Reduce(buf, out, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
            else
                CHECK_RC(MPI_Allreduce(buf, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            if (it % 3 == 2 || me == root)
                for (int i = 0; i < n; i++)
                    CHECK(out[i] == np * (it + i) + np * (np - 1) / 2, "reduce %d: [%d] = %d",
                          it, i, out[i]);
        }
    }
    free(buf);
    free(out);
    MPI_Finalize();
    if (me == 0)
        printf("PASS coll_stress np %d\n", np);
    return 0;
}
