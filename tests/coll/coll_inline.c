/* The small-message protocol's hazards (src/coll/smap/README.md): blocks
 * and reduction inputs of up to 48 bytes travel in the cache line that
 * publishes a rank's step, two such lines alternate, and rooted
 * collectives let ranks drift a step apart.  Here every kind of collective
 * runs back to back with no barrier in between, sizes straddling the
 * inline limits (48 bytes per cell, 48/(n-1) per alltoall/scatter
 * destination, an alltoall's wide lines: 56 bytes each, min(5, 15/(n-1))
 * lines per destination, the payload area above), roots rotating, MPI_IN_PLACE, and
 * a non-commutative user op whose result shows any reordering.  Every
 * result is checked on every rank.  Argument: iterations (default 600). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

/* An affine map v -> a v + b (mod 2^32); x op y = "x, then y". */
typedef struct {
    uint32_t a, b;
} aff_t;

static aff_t compose(aff_t x, aff_t y)
{
    return (aff_t){ x.a * y.a, y.a * x.b + y.b };
}

static void aff_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    aff_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++)
        y[i] = compose(x[i], y[i]);
}

static aff_t aff_of(int rank, int it, int i)
{
    return (aff_t){ 2u * (uint32_t)(rank * 7 + it + i) + 1u, (uint32_t)(rank * 131 + it * 3 + i) };
}

/* Sizes around the limits: bytes for the movers, elements for reductions. */
static const int bytes_of[] = { 1, 7, 8, 16, 23, 24, 25, 40, 47, 48, 49, 56, 64, 100, 112, 113, 168,
                                 169, 280, 281, 700, 5000 };
static const int elems_of[] = { 1, 2, 3, 5, 6, 7, 8, 13, 100 };
#define NB ((int)(sizeof bytes_of / sizeof bytes_of[0]))
#define NE ((int)(sizeof elems_of / sizeof elems_of[0]))

static unsigned char pat(int src, int dst, int it, int i)
{
    return (unsigned char)(src * 31 + dst * 17 + it * 5 + i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int iters = argc > 1 ? atoi(argv[1]) : 600;
    MPI_Datatype aff;
    MPI_Type_contiguous(2, MPI_UINT32_T, &aff);
    MPI_Type_commit(&aff);
    MPI_Op op;
    MPI_Op_create(aff_op, 0, &op);
    size_t cap = (size_t)5000 * (size_t)np;
    unsigned char *a = malloc(cap), *b = malloc(cap);
    aff_t *x = malloc(100 * sizeof(aff_t) * (size_t)np), *y = malloc(100 * sizeof(aff_t) * (size_t)np);
    CHECK(a && b && x && y, "out of memory");
    for (int it = 0; it < iters; it++) {
        int kind = it % 11, root = (it / 11 + it) % np;
        int n = bytes_of[(it * 5 + it / 7) % NB], e = elems_of[(it * 3 + it / 5) % NE];
        switch (kind) {
        case 0:   /* bcast */
            for (int i = 0; i < n; i++)
                a[i] = me == root ? pat(root, 0, it, i) : 0xEE;
            CHECK_RC(MPI_Bcast(a, n, MPI_BYTE, root, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++)
                CHECK(a[i] == pat(root, 0, it, i), "it %d bcast %d B [%d]", it, n, i);
            break;
        case 1:   /* allgather, in place every other time */
        case 2: { /* gather */
            int inplace = (it / 11) % 2;
            for (int i = 0; i < n * np; i++)
                b[i] = 0xEE;
            for (int i = 0; i < n; i++)
                a[i] = pat(me, 0, it, i), b[me * n + i] = a[i];
            if (kind == 1)
                CHECK_RC(MPI_Allgather(inplace ? MPI_IN_PLACE : a, n, MPI_BYTE, b, n, MPI_BYTE,
                                       MPI_COMM_WORLD));
            else
                CHECK_RC(MPI_Gather(inplace && me == root ? MPI_IN_PLACE : a, n, MPI_BYTE, b, n,
                                    MPI_BYTE, root, MPI_COMM_WORLD));
            if (kind == 1 || me == root)
                for (int r = 0; r < np; r++)
                    for (int i = 0; i < n; i++)
                        CHECK(b[r * n + i] == pat(r, 0, it, i), "it %d %s %d B from %d [%d]", it,
                              kind == 1 ? "allgather" : "gather", n, r, i);
            break;
        }
        case 3:   /* alltoall, in place every other time */
        case 4: { /* scatter */
            int inplace = (it / 11) % 2;
            for (int d = 0; d < np; d++)
                for (int i = 0; i < n; i++)
                    a[d * n + i] = pat(kind == 4 ? root : me, d, it, i), b[d * n + i] = 0xEE;
            if (kind == 3) {
                if (inplace)
                    memcpy(b, a, (size_t)n * (size_t)np);
                CHECK_RC(MPI_Alltoall(inplace ? MPI_IN_PLACE : a, n, MPI_BYTE, b, n, MPI_BYTE,
                                      MPI_COMM_WORLD));
                for (int r = 0; r < np; r++)
                    for (int i = 0; i < n; i++)
                        CHECK(b[r * n + i] == pat(r, me, it, i), "it %d alltoall %d B from %d [%d]",
                              it, n, r, i);
            } else {
                int ip = inplace && me == root;
                CHECK_RC(MPI_Scatter(a, n, MPI_BYTE, ip ? MPI_IN_PLACE : b, n, MPI_BYTE, root,
                                     MPI_COMM_WORLD));
                const unsigned char *got = ip ? a + (size_t)root * (size_t)n : b;
                for (int i = 0; i < n; i++)
                    CHECK(got[i] == pat(root, me, it, i), "it %d scatter %d B [%d]", it, n, i);
            }
            break;
        }
        case 5:   /* reduce */
        case 6:   /* allreduce */
        case 7: { /* allreduce in place */
            for (int i = 0; i < e; i++)
                x[i] = aff_of(me, it, i), y[i] = (aff_t){ 0, 0 };
            if (kind == 7)
                memcpy(y, x, (size_t)e * sizeof *x);
            if (kind == 5)
                CHECK_RC(MPI_Reduce(x, y, e, aff, op, root, MPI_COMM_WORLD));
            else
                CHECK_RC(MPI_Allreduce(kind == 7 ? MPI_IN_PLACE : x, y, e, aff, op,
                                       MPI_COMM_WORLD));
            if (kind != 5 || me == root)
                for (int i = 0; i < e; i++) {
                    aff_t want = aff_of(0, it, i);
                    for (int r = 1; r < np; r++)
                        want = compose(want, aff_of(r, it, i));
                    CHECK(y[i].a == want.a && y[i].b == want.b, "it %d %s %d el [%d]", it,
                          kind == 5 ? "reduce" : "allreduce", e, i);
                }
            break;
        }
        case 8:   /* scan and exscan */
        case 9: {
            for (int i = 0; i < e; i++)
                x[i] = aff_of(me, it, i), y[i] = (aff_t){ 7, 7 };
            if (kind == 8)
                CHECK_RC(MPI_Scan(x, y, e, aff, op, MPI_COMM_WORLD));
            else
                CHECK_RC(MPI_Exscan(x, y, e, aff, op, MPI_COMM_WORLD));
            int hi = kind == 8 ? me : me - 1;
            for (int i = 0; hi >= 0 && i < e; i++) {
                aff_t want = aff_of(0, it, i);
                for (int r = 1; r <= hi; r++)
                    want = compose(want, aff_of(r, it, i));
                CHECK(y[i].a == want.a && y[i].b == want.b, "it %d %s %d el [%d]", it,
                      kind == 8 ? "scan" : "exscan", e, i);
            }
            break;
        }
        default: { /* reduce_scatter_block, then a barrier now and then */
            for (int i = 0; i < e * np; i++)
                x[i] = aff_of(me, it, i);
            CHECK_RC(MPI_Reduce_scatter_block(x, y, e, aff, op, MPI_COMM_WORLD));
            for (int i = 0; i < e; i++) {
                aff_t want = aff_of(0, it, me * e + i);
                for (int r = 1; r < np; r++)
                    want = compose(want, aff_of(r, it, me * e + i));
                CHECK(y[i].a == want.a && y[i].b == want.b, "it %d reduce_scatter %d el [%d]", it,
                      e, i);
            }
            if ((it / 11) % 3 == 0)
                CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
            break;
        }
        }
    }
    MPI_Op_free(&op);
    MPI_Type_free(&aff);
    free(a), free(b), free(x), free(y);
    MPI_Finalize();
    if (me == 0)
        printf("PASS coll_inline np %d\n", np);
    return 0;
}
