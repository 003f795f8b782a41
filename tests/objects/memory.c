/* MPI_Alloc_mem / MPI_Free_mem (memory usable for single-copy transfers,
 * distinct addresses, clear errors) and MPI_Type_get_value_index. */
#include <stdint.h>
#include <string.h>

#include "smap_expect.h"

static void alloc_mem(int rank, int size)
{
    MPI_Info info;
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    double *a = NULL, *b = NULL;
    const MPI_Aint n = 1 << 18;   /* 2 MiB: a rendezvous message */
    CHECK_RC(MPI_Alloc_mem(n * (MPI_Aint)sizeof(double), MPI_INFO_NULL, &a));
    CHECK_RC(MPI_Alloc_mem(n * (MPI_Aint)sizeof(double), info, &b));
    CHECK(a && b && a != b, "Alloc_mem gave %p and %p", (void *)a, (void *)b);
    void *z1 = NULL, *z2 = NULL;
    CHECK_RC(MPI_Alloc_mem(0, MPI_INFO_NULL, &z1));
    CHECK_RC(MPI_Alloc_mem(0, MPI_INFO_NULL, &z2));
    CHECK(z1 && z2 && z1 != z2, "zero-byte allocations must be distinct");
    for (MPI_Aint i = 0; i < n; i++)
        a[i] = rank * 1e6 + (double)i;
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    CHECK_RC(MPI_Sendrecv(a, (int)n, MPI_DOUBLE, to, 7, b, (int)n, MPI_DOUBLE, from, 7,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (MPI_Aint i = 0; i < n; i++)
        CHECK(b[i] == from * 1e6 + (double)i, "element %ld: %g", (long)i, b[i]);
    CHECK_RC(MPI_Free_mem(a));
    CHECK_RC(MPI_Free_mem(b));
    CHECK_RC(MPI_Free_mem(z1));
    CHECK_RC(MPI_Free_mem(z2));
    CHECK_RC(MPI_Info_free(&info));

    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    void *p = NULL;
    EXPECT(MPI_ERR_ARG, MPI_Alloc_mem(-1, MPI_INFO_NULL, &p));
    EXPECT(MPI_ERR_ARG, MPI_Alloc_mem(8, MPI_INFO_NULL, NULL));
    EXPECT(MPI_ERR_INFO, MPI_Alloc_mem(8, (MPI_Info)(intptr_t)12345, &p));
    EXPECT(MPI_ERR_NO_MEM, MPI_Alloc_mem((MPI_Aint)1 << 62, MPI_INFO_NULL, &p));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void value_index(void)
{
    static const struct { MPI_Datatype v, i, want; } cases[] = {
        { MPI_FLOAT, MPI_INT, MPI_FLOAT_INT },
        { MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT },
        { MPI_LONG, MPI_INT, MPI_LONG_INT },
        { MPI_INT, MPI_INT, MPI_2INT },
        { MPI_SHORT, MPI_INT, MPI_SHORT_INT },
        { MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT },
        { MPI_REAL, MPI_REAL, MPI_2REAL },
        { MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION },
        { MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER },
        { MPI_INT, MPI_DOUBLE, MPI_DATATYPE_NULL },
        { MPI_CHAR, MPI_INT, MPI_DATATYPE_NULL },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        MPI_Datatype got = (MPI_Datatype)(intptr_t)-1;
        CHECK_RC(MPI_Type_get_value_index(cases[k].v, cases[k].i, &got));
        CHECK(got == cases[k].want, "case %zu: wrong pair type", k);
    }
    /* the pair type works with MINLOC */
    MPI_Datatype pt;
    CHECK_RC(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &pt));
    struct { double v; int i; } in[2] = { { 3.0, 1 }, { -2.0, 5 } }, io[2] = { { 3.0, 0 }, { 1.0, 2 } };
    CHECK_RC(MPI_Reduce_local(in, io, 2, pt, MPI_MINLOC));
    CHECK(io[0].v == 3.0 && io[0].i == 0 && io[1].v == -2.0 && io[1].i == 5, "MINLOC result");
    /* errors of datatype functions go to MPI_COMM_SELF's handler */
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    EXPECT(MPI_ERR_TYPE, MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &pt));
    EXPECT(MPI_ERR_ARG, MPI_Type_get_value_index(MPI_INT, MPI_INT, NULL));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    alloc_mem(rank, size);
    value_index();
    CHECK_RC(MPI_Finalize());
    return 0;
}
