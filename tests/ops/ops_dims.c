/* MPI_Dims_create: a table of cases (free and fixed entries, balance,
 * non-increasing free entries) and the errors. */
#include <string.h>

#include "smap_test.h"

struct dcase {
    int nnodes, ndims;
    int in[6], out[6];
};

static const struct dcase cases[] = {
    {6, 2, {0, 0}, {3, 2}},
    {7, 2, {0, 0}, {7, 1}},
    {6, 3, {0, 3, 0}, {2, 3, 1}},
    {6, 3, {0, 0, 0}, {3, 2, 1}},
    {1, 3, {0, 0, 0}, {1, 1, 1}},
    {16, 2, {0, 0}, {4, 4}},
    {16, 3, {0, 0, 0}, {4, 2, 2}},
    {64, 4, {0, 0, 0, 0}, {4, 4, 2, 2}},
    {12, 2, {0, 0}, {4, 3}},
    {24, 3, {0, 0, 0}, {4, 3, 2}},
    {30, 2, {0, 0}, {6, 5}},
    {36, 2, {0, 0}, {6, 6}},
    {8, 4, {0, 0, 0, 0}, {2, 2, 2, 1}},
    {12, 3, {2, 0, 0}, {2, 3, 2}},
    {12, 3, {0, 0, 2}, {3, 2, 2}},
    {24, 3, {0, 2, 0}, {4, 2, 3}},
    {6, 2, {2, 3}, {2, 3}},
    {97, 3, {0, 0, 0}, {97, 1, 1}},
    {1024, 6, {0, 0, 0, 0, 0, 0}, {4, 4, 4, 4, 2, 2}},
    {360, 3, {0, 0, 0}, {9, 8, 5}},   /* ties 10,6,6 in spread: smaller maximum wins */
    {2147483647, 2, {0, 0}, {2147483647, 1}},
    {1073741824, 2, {0, 0}, {32768, 32768}},
    {5, 1, {0}, {5}},
    {5, 1, {5}, {5}},
};

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const struct dcase *k = &cases[c];
        int d[6];
        memcpy(d, k->in, sizeof d);
        CHECK_RC(MPI_Dims_create(k->nnodes, k->ndims, d));
        long long prod = 1;
        for (int i = 0; i < k->ndims; i++)
            prod *= d[i];
        CHECK(prod == k->nnodes, "case %zu: product %lld", c, prod);
        for (int i = 0; i < k->ndims; i++)
            CHECK(d[i] == k->out[i], "case %zu (nnodes %d): dims[%d]=%d, want %d", c, k->nnodes,
                  i, d[i], k->out[i]);
    }
    /* ndims 0: nothing to do */
    CHECK_RC(MPI_Dims_create(4, 0, NULL));
    int d[3] = {0, 3, 0};
    CHECK(err_class(MPI_Dims_create(7, 3, d)) == MPI_ERR_DIMS, "7 not a multiple of 3");
    int e[2] = {2, 2};
    CHECK(err_class(MPI_Dims_create(8, 2, e)) == MPI_ERR_DIMS, "fixed product != nnodes");
    int f[2] = {-1, 0};
    CHECK(err_class(MPI_Dims_create(4, 2, f)) == MPI_ERR_DIMS, "negative entry");
    int g[2] = {0, 0};
    CHECK(err_class(MPI_Dims_create(-4, 2, g)) == MPI_ERR_ARG, "negative nnodes");
    CHECK(err_class(MPI_Dims_create(0, 2, g)) == MPI_ERR_ARG, "zero nnodes");
    CHECK(err_class(MPI_Dims_create(4, -1, g)) == MPI_ERR_DIMS, "negative ndims");
    CHECK(err_class(MPI_Dims_create(4, 2, NULL)) == MPI_ERR_ARG, "NULL dims");
    int h[2] = {65536, 65536};
    CHECK(err_class(MPI_Dims_create(16, 2, h)) == MPI_ERR_DIMS, "overflowing product");
    printf("ops_dims: ok\n");
    MPI_Finalize();
    return 0;
}
