/* The MPI 5.0 ABI information functions (before MPI_Init too), the Fortran
 * details a Fortran layer records, MPI_Get_hw_resource_info (its types
 * usable with MPI_COMM_TYPE_HW_GUIDED), and MPI_Type_create_f90_*
 * (the smallest kind meeting the precision and range, errors beyond). */
#include <string.h>

#include "smap_test.h"

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void want_key(MPI_Info info, const char *key, const char *value)
{
    char v[MPI_MAX_INFO_VAL];
    int flag = 0;
    CHECK_RC(MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, v, &flag));
    CHECK(flag, "key %s missing", key);
    if (value)
        CHECK(!strcmp(v, value), "%s = %s, expected %s", key, v, value);
}

static void abi_before_init(void)
{
    int major = -1, minor = -1;
    CHECK_RC(MPI_Abi_get_version(&major, &minor));
    CHECK(major == 1 && minor == 0, "ABI version %d.%d", major, minor);
    MPI_Info info;
    CHECK_RC(MPI_Abi_get_info(&info));
    char sz[8];
    snprintf(sz, sizeof sz, "%zu", sizeof(MPI_Aint));
    want_key(info, "mpi_aint_size", sz);
    snprintf(sz, sizeof sz, "%zu", sizeof(MPI_Count));
    want_key(info, "mpi_count_size", sz);
    snprintf(sz, sizeof sz, "%zu", sizeof(MPI_Offset));
    want_key(info, "mpi_offset_size", sz);
    CHECK_RC(MPI_Info_free(&info));

    /* Fortran booleans: none until set, then per size */
    int t = -1, f = -1, is_set = 1;
    CHECK_RC(MPI_Abi_get_fortran_booleans(4, &t, &f, &is_set));
    CHECK(!is_set, "booleans set before any set");
    int one = 1, zero = 0;
    CHECK_RC(MPI_Abi_set_fortran_booleans(4, &one, &zero));
    CHECK_RC(MPI_Abi_get_fortran_booleans(4, &t, &f, &is_set));
    CHECK(is_set && t == 1 && f == 0, "booleans %d %d %d", is_set, t, f);
    long long lt, lf;
    CHECK_RC(MPI_Abi_get_fortran_booleans(8, &lt, &lf, &is_set));
    CHECK(!is_set, "8-byte booleans were never set");

    /* Fortran info: empty until set, then a copy of what was set */
    int n = -1;
    CHECK_RC(MPI_Abi_get_fortran_info(&info));
    CHECK_RC(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 0, "fortran info has %d keys before a set", n);
    CHECK_RC(MPI_Info_free(&info));
    MPI_Info set;
    CHECK_RC(MPI_Info_create(&set));
    CHECK_RC(MPI_Info_set(set, "mpi_logical_size", "4"));
    CHECK_RC(MPI_Abi_set_fortran_info(set));
    CHECK_RC(MPI_Info_free(&set));
    CHECK_RC(MPI_Abi_get_fortran_info(&info));
    want_key(info, "mpi_logical_size", "4");
    CHECK_RC(MPI_Info_free(&info));
}

/* MPI_Type_create_f90_* hands out a type of its own (with the F90
 * combiner) of the kind's size */
static int same_kind(MPI_Datatype t, MPI_Datatype kind)
{
    int a = -1, b = -2;
    CHECK_RC(MPI_Type_size(t, &a));
    CHECK_RC(MPI_Type_size(kind, &b));
    return a == b;
}

static void f90(void)
{
    struct {
        int r;
        MPI_Datatype t;
    } ints[] = {{0, MPI_INTEGER1},  {2, MPI_INTEGER1},  {3, MPI_INTEGER2}, {9, MPI_INTEGER4},
                {10, MPI_INTEGER8}, {18, MPI_INTEGER8}, {38, MPI_INTEGER16}};
    for (unsigned i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        MPI_Datatype t;
        CHECK_RC(MPI_Type_create_f90_integer(ints[i].r, &t));
        CHECK(same_kind(t, ints[i].t), "f90_integer(%d)", ints[i].r);
    }
    const int U = MPI_UNDEFINED;
    struct {
        int p, r;
        MPI_Datatype real, cplx;
    } reals[] = {{6, U, MPI_REAL4, MPI_COMPLEX8},       {U, 37, MPI_REAL4, MPI_COMPLEX8},
                 {7, U, MPI_REAL8, MPI_COMPLEX16},      {15, 307, MPI_REAL8, MPI_COMPLEX16},
                 {6, 38, MPI_REAL8, MPI_COMPLEX16},     {U, 308, MPI_REAL16, MPI_COMPLEX32},
                 {33, 4931, MPI_REAL16, MPI_COMPLEX32}};
    for (unsigned i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        MPI_Datatype t;
        CHECK_RC(MPI_Type_create_f90_real(reals[i].p, reals[i].r, &t));
        CHECK(same_kind(t, reals[i].real), "f90_real(%d, %d)", reals[i].p, reals[i].r);
        CHECK_RC(MPI_Type_create_f90_complex(reals[i].p, reals[i].r, &t));
        CHECK(same_kind(t, reals[i].cplx), "f90_complex(%d, %d)", reals[i].p, reals[i].r);
    }
    /* the types work: 8-byte integers through MPI_COMM_SELF */
    MPI_Datatype i8;
    CHECK_RC(MPI_Type_create_f90_integer(15, &i8));
    int size = 0;
    CHECK_RC(MPI_Type_size(i8, &size));
    CHECK(size == 8, "size %d", size);
    long long in = 1234567890123LL, out = 0;
    CHECK_RC(MPI_Sendrecv(&in, 1, i8, 0, 0, &out, 1, i8, 0, 0, MPI_COMM_SELF,
                          MPI_STATUS_IGNORE));
    CHECK(out == in, "sent through an f90 integer type");
    /* beyond every kind, or no requirement at all */
    MPI_Datatype t;
    int rc = MPI_Type_create_f90_integer(39, &t);
    CHECK(err_class(rc) == MPI_ERR_ARG, "f90_integer(39): class %d", err_class(rc));
    rc = MPI_Type_create_f90_real(34, U, &t);
    CHECK(err_class(rc) == MPI_ERR_ARG, "f90_real(34): class %d", err_class(rc));
    rc = MPI_Type_create_f90_complex(U, 5000, &t);
    CHECK(err_class(rc) == MPI_ERR_ARG, "f90_complex(r 5000): class %d", err_class(rc));
    rc = MPI_Type_create_f90_real(U, U, &t);
    CHECK(err_class(rc) == MPI_ERR_ARG, "f90_real(UNDEFINED, UNDEFINED): class %d",
          err_class(rc));
}

static void hw_resources(void)
{
    MPI_Info hw;
    CHECK_RC(MPI_Get_hw_resource_info(&hw));
    char types[MPI_MAX_INFO_VAL];
    int flag = 0;
    CHECK_RC(MPI_Info_get(hw, "mpi_hw_resource_type", MPI_MAX_INFO_VAL - 1, types, &flag));
    CHECK(flag && strstr(types, "mpi_shared_memory"), "resource types: %s", flag ? types : "-");
    CHECK_RC(MPI_Info_free(&hw));
    /* every listed type splits with MPI_COMM_TYPE_HW_GUIDED */
    MPI_Info guide;
    CHECK_RC(MPI_Info_create(&guide));
    CHECK_RC(MPI_Info_set(guide, "mpi_hw_resource_type", "mpi_shared_memory"));
    MPI_Comm node;
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, guide, &node));
    CHECK(node != MPI_COMM_NULL, "HW_GUIDED split by a listed type gave MPI_COMM_NULL");
    CHECK_RC(MPI_Comm_free(&node));
    CHECK_RC(MPI_Info_free(&guide));
}

int main(int argc, char **argv)
{
    abi_before_init();
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    f90();
    hw_resources();
    int rc = MPI_Abi_set_fortran_booleans(3, &rc, &rc);
    CHECK(err_class(rc) == MPI_ERR_ARG, "logical size 3: class %d", err_class(rc));
    rc = MPI_Abi_set_fortran_info(MPI_INFO_NULL);
    CHECK(err_class(rc) == MPI_ERR_INFO, "set_fortran_info(MPI_INFO_NULL): class %d",
          err_class(rc));
    CHECK_RC(MPI_Finalize());
    int major = 0, minor = 0;
    CHECK_RC(MPI_Abi_get_version(&major, &minor));   /* after finalize too */
    CHECK(major == 1, "ABI major %d after finalize", major);
    return 0;
}
