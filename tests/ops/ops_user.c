/* User-defined ops through MPI_Reduce_local: commutative and not (the
 * order is inoutvec = invec op inoutvec), the _c variant, the datatype
 * handle the function sees, int-count functions on counts beyond INT_MAX
 * (split into chunks), MPI_Op_commutative and MPI_Op_free (predefined ops
 * and MPI_OP_NULL are refused). */
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "smap_test.h"

static MPI_Datatype seen_type;
static int calls;

/* Not commutative: in - inout. */
static void minus(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = a[i] - b[i];
    seen_type = *dt;
    calls++;
}

static void minus_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    const double *a = in;
    double *b = inout;
    for (MPI_Count i = 0; i < *len; i++)
        b[i] = a[i] - b[i];
    seen_type = *dt;
    calls++;
}

static void plus(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((long *)inout)[i] += ((const long *)in)[i];
    calls++;
}

/* Records the chunks of a huge call without touching the (unmapped) data. */
static char *huge_base;
static MPI_Count huge_total;
static int huge_bad;
static void chunk_rec(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    if (*len <= 0 || (char *)inout - huge_base != huge_total ||
        (char *)in - (huge_base + 1) != huge_total)
        huge_bad = 1;
    huge_total += *len;
    calls++;
}
static void chunk_rec_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)dt;
    (void)in;
    (void)inout;
    huge_total += *len;
    calls++;
}

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void test_order(void)
{
    MPI_Op op;
    int commute = -1;
    CHECK_RC(MPI_Op_create(minus, 0, &op));
    CHECK_RC(MPI_Op_commutative(op, &commute));
    CHECK(commute == 0, "commute %d", commute);
    int a[5] = {10, 20, 30, 40, 50}, b[5] = {1, 2, 3, 4, 5};
    calls = 0;
    CHECK_RC(MPI_Reduce_local(a, b, 5, MPI_INT, op));
    for (int i = 0; i < 5; i++)
        CHECK(b[i] == a[i] - (i + 1), "b[%d]=%d", i, b[i]);
    CHECK(calls == 1 && seen_type == MPI_INT, "calls %d", calls);
    /* a derived type reaches the function as given */
    MPI_Datatype pairt;
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &pairt));
    CHECK_RC(MPI_Type_commit(&pairt));
    int c[4] = {5, 5, 5, 5}, d[4] = {1, 2, 3, 4};
    CHECK_RC(MPI_Reduce_local(c, d, 1, pairt, op));
    CHECK(seen_type == pairt, "type seen");
    /* len counts elements of pairt: the function (which reads ints) did one */
    CHECK(d[0] == 4 && d[1] == 2 && d[2] == 3 && d[3] == 4, "partial: %d %d %d %d", d[0], d[1],
          d[2], d[3]);
    CHECK_RC(MPI_Type_free(&pairt));
    CHECK_RC(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL, "op not reset");
}

static void test_large_variant(void)
{
    MPI_Op op;
    int commute = -1;
    CHECK_RC(MPI_Op_create_c(minus_c, 1, &op));
    CHECK_RC(MPI_Op_commutative(op, &commute));
    CHECK(commute == 1, "commute %d", commute);
    double a[3] = {1.5, 2.5, 3.5}, b[3] = {1, 1, 1};
    CHECK_RC(MPI_Reduce_local_c(a, b, 3, MPI_DOUBLE, op));
    CHECK(b[0] == 0.5 && b[1] == 1.5 && b[2] == 2.5, "c variant");
    CHECK(seen_type == MPI_DOUBLE, "type");
    CHECK_RC(MPI_Op_free(&op));

    CHECK_RC(MPI_Op_create(plus, 1, &op));
    long x[2] = {1, 2}, y[2] = {10, 20};
    CHECK_RC(MPI_Reduce_local(x, y, 2, MPI_LONG, op));
    CHECK(y[0] == 11 && y[1] == 22, "plus");
    CHECK_RC(MPI_Op_free(&op));
}

/* count > INT_MAX of MPI_BYTE: the buffers are an inaccessible reservation
 * (the recording function never reads them). */
static void test_huge(void)
{
    const MPI_Count n = (MPI_Count)INT_MAX * 2 + 5;
    void *m = mmap(NULL, (size_t)n + 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    CHECK(m != MAP_FAILED, "mmap");
    huge_base = m;
    MPI_Op op;
    CHECK_RC(MPI_Op_create(chunk_rec, 1, &op));
    calls = 0;
    huge_total = 0;
    CHECK_RC(MPI_Reduce_local_c(huge_base + 1, huge_base, n, MPI_BYTE, op));
    CHECK(!huge_bad && huge_total == n && calls == 3, "chunks: total %lld calls %d bad %d",
          (long long)huge_total, calls, huge_bad);
    CHECK_RC(MPI_Op_free(&op));
    CHECK_RC(MPI_Op_create_c(chunk_rec_c, 1, &op));
    calls = 0;
    huge_total = 0;
    CHECK_RC(MPI_Reduce_local_c(huge_base + 1, huge_base, n, MPI_BYTE, op));
    CHECK(huge_total == n && calls == 1, "one call for the _c function");
    CHECK_RC(MPI_Op_free(&op));
    munmap(m, (size_t)n + 4096);
}

static void test_errors(void)
{
    MPI_Op ops[] = {MPI_SUM, MPI_MIN, MPI_MAX, MPI_PROD, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND,
                    MPI_BOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        MPI_Op o = ops[i];
        int commute = 0;
        CHECK_RC(MPI_Op_commutative(o, &commute));
        CHECK(commute == 1, "predefined op %zu not commutative", i);
        CHECK(err_class(MPI_Op_free(&o)) == MPI_ERR_OP, "freeing predefined op %zu", i);
        CHECK(o == ops[i], "predefined handle changed");
    }
    MPI_Op null = MPI_OP_NULL, op;
    int commute, x = 0;
    CHECK(err_class(MPI_Op_free(&null)) == MPI_ERR_OP, "free OP_NULL");
    CHECK(err_class(MPI_Op_commutative(MPI_OP_NULL, &commute)) == MPI_ERR_OP, "commutative");
    CHECK(err_class(MPI_Op_commutative(MPI_SUM, NULL)) == MPI_ERR_ARG, "NULL flag");
    CHECK(err_class(MPI_Op_create(NULL, 1, &op)) == MPI_ERR_ARG, "NULL fn");
    CHECK(err_class(MPI_Op_create(plus, 1, NULL)) == MPI_ERR_ARG, "NULL op");
    CHECK(err_class(MPI_Op_free(NULL)) == MPI_ERR_ARG, "free NULL");
    CHECK(err_class(MPI_Reduce_local(&x, &x, 1, MPI_INT, MPI_OP_NULL)) == MPI_ERR_OP, "null op");
    CHECK(err_class(MPI_Reduce_local(&x, &x, -1, MPI_INT, MPI_SUM)) == MPI_ERR_COUNT, "count");
    CHECK(err_class(MPI_Reduce_local(&x, &x, 1, MPI_DATATYPE_NULL, MPI_SUM)) == MPI_ERR_TYPE,
          "type");
    CHECK(err_class(MPI_Reduce_local(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM)) == MPI_ERR_BUFFER,
          "in place");
    CHECK(err_class(MPI_Reduce_local(NULL, &x, 1, MPI_INT, MPI_SUM)) == MPI_ERR_BUFFER, "NULL");
    CHECK_RC(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM));
    MPI_Datatype unc;
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &unc));
    CHECK(err_class(MPI_Reduce_local(&x, &x, 1, unc, MPI_SUM)) == MPI_ERR_TYPE, "uncommitted");
    CHECK_RC(MPI_Type_free(&unc));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_order();
    test_large_variant();
    test_huge();
    test_errors();
    printf("ops_user: ok\n");
    MPI_Finalize();
    return 0;
}
