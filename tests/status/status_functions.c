/* MPI_Get_count / MPI_Get_elements / MPI_Status_set_elements (and their
 * _c / _x twins), the cancelled flag and MPI 5.0's status accessors, on
 * statuses filled by MPI_Status_set_*: derived types (vector, struct with
 * padding, MPI_DOUBLE_INT), MPI_UNDEFINED cases, counts past 2^31, and the
 * error classes of invalid arguments under MPI_ERRORS_RETURN. */
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "smap_test.h"

/* A status full of garbage, so nothing passes by luck of zeroed memory. */
static MPI_Status dirty(void)
{
    MPI_Status st;
    memset(&st, 0xa5, sizeof st);
    return st;
}

static void expect_int(MPI_Status *st, MPI_Datatype t, int want_count, int want_elems,
                       int line)
{
    int c = -7, e = -7;
    CHECK_RC(MPI_Get_count(st, t, &c));
    CHECK_RC(MPI_Get_elements(st, t, &e));
    CHECK(c == want_count, "line %d: MPI_Get_count %d, wanted %d", line, c, want_count);
    CHECK(e == want_elems, "line %d: MPI_Get_elements %d, wanted %d", line, e, want_elems);
}

static void expect_big(MPI_Status *st, MPI_Datatype t, MPI_Count want_count,
                       MPI_Count want_elems, int line)
{
    MPI_Count c = -7, e = -7, x = -7;
    CHECK_RC(MPI_Get_count_c(st, t, &c));
    CHECK_RC(MPI_Get_elements_c(st, t, &e));
    CHECK_RC(MPI_Get_elements_x(st, t, &x));
    CHECK(c == want_count, "line %d: MPI_Get_count_c %lld, wanted %lld", line, (long long)c,
          (long long)want_count);
    CHECK(e == want_elems && x == want_elems,
          "line %d: MPI_Get_elements_c %lld / _x %lld, wanted %lld", line, (long long)e,
          (long long)x, (long long)want_elems);
}

#define EXPECT(st, t, c, e) expect_int(st, t, c, e, __LINE__)
#define EXPECT_BIG(st, t, c, e) expect_big(st, t, c, e, __LINE__)
#define U MPI_UNDEFINED

static void test_basic_and_derived(void)
{
    MPI_Status st = dirty();

    CHECK_RC(MPI_Status_set_elements(&st, MPI_INT, 5));
    EXPECT(&st, MPI_INT, 5, 5);
    EXPECT(&st, MPI_BYTE, 20, 20);
    EXPECT(&st, MPI_DOUBLE, U, U);   /* 20 bytes: 2.5 doubles */
    EXPECT(&st, MPI_SHORT, 10, 10);
    CHECK_RC(MPI_Status_set_elements(&st, MPI_INT, 0));
    EXPECT(&st, MPI_INT, 0, 0);
    EXPECT(&st, MPI_DOUBLE_INT, 0, 0);

    /* vector: 3 blocks of 2 ints, stride 4: 6 elements, 24 bytes, extent 40 */
    MPI_Datatype vec;
    CHECK_RC(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    CHECK_RC(MPI_Status_set_elements(&st, vec, 6));
    EXPECT(&st, vec, 1, 6);
    EXPECT(&st, MPI_INT, 6, 6);
    CHECK_RC(MPI_Status_set_elements(&st, vec, 4));   /* part of one vector */
    EXPECT(&st, vec, U, 4);
    EXPECT(&st, MPI_INT, 4, 4);
    EXPECT(&st, MPI_BYTE, 16, 16);
    CHECK_RC(MPI_Status_set_elements(&st, vec, 15));  /* 2 vectors + 3 ints */
    EXPECT(&st, vec, U, 15);
    EXPECT(&st, MPI_INT, 15, 15);
    CHECK_RC(MPI_Status_set_elements(&st, vec, 18));
    EXPECT(&st, vec, 3, 18);
    CHECK_RC(MPI_Status_set_elements(&st, MPI_BYTE, 26));   /* ends inside an int */
    EXPECT(&st, vec, U, U);
    EXPECT(&st, MPI_INT, U, U);

    /* MPI_DOUBLE_INT: {double, int}, 12 bytes of data, 2 basic elements */
    CHECK_RC(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 4));
    EXPECT(&st, MPI_DOUBLE_INT, 2, 4);
    EXPECT(&st, MPI_BYTE, 24, 24);
    CHECK_RC(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 3));   /* pair + double: 20 bytes */
    EXPECT(&st, MPI_DOUBLE_INT, U, 3);
    EXPECT(&st, MPI_BYTE, 20, 20);
    CHECK_RC(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 1));   /* the double alone */
    EXPECT(&st, MPI_DOUBLE_INT, U, 1);
    EXPECT(&st, MPI_DOUBLE, 1, 1);
    CHECK_RC(MPI_Status_set_elements(&st, MPI_BYTE, 10));        /* inside the int */
    EXPECT(&st, MPI_DOUBLE_INT, U, U);
    CHECK_RC(MPI_Status_set_elements(&st, MPI_BYTE, 36));
    EXPECT(&st, MPI_DOUBLE_INT, 3, 6);

    /* a user struct with padding: {char; double} = 9 bytes of data, extent 16 */
    struct cd { char c; double d; };
    MPI_Datatype sty;
    CHECK_RC(MPI_Type_create_struct(2, (int[]){1, 1},
                                    (MPI_Aint[]){offsetof(struct cd, c), offsetof(struct cd, d)},
                                    (MPI_Datatype[]){MPI_CHAR, MPI_DOUBLE}, &sty));
    CHECK_RC(MPI_Type_commit(&sty));
    CHECK_RC(MPI_Status_set_elements(&st, sty, 2));
    EXPECT(&st, sty, 1, 2);
    EXPECT(&st, MPI_BYTE, 9, 9);
    CHECK_RC(MPI_Status_set_elements(&st, sty, 3));   /* one struct + a char */
    EXPECT(&st, sty, U, 3);
    EXPECT(&st, MPI_BYTE, 10, 10);
    CHECK_RC(MPI_Status_set_elements(&st, sty, 7));
    EXPECT(&st, sty, U, 7);
    EXPECT(&st, MPI_BYTE, 28, 28);
    CHECK_RC(MPI_Status_set_elements(&st, MPI_BYTE, 5));   /* char + half a double */
    EXPECT(&st, sty, U, U);

    /* several runs of different basic types: {int[2]; double; char}, 4
     * elements, 17 bytes of data; counts that end after the first run */
    MPI_Datatype mix;
    CHECK_RC(MPI_Type_create_struct(3, (int[]){2, 1, 1}, (MPI_Aint[]){0, 8, 16},
                                    (MPI_Datatype[]){MPI_INT, MPI_DOUBLE, MPI_CHAR}, &mix));
    CHECK_RC(MPI_Type_commit(&mix));
    CHECK_RC(MPI_Status_set_elements(&st, mix, 3));   /* 2 ints + the double */
    EXPECT(&st, mix, U, 3);
    EXPECT(&st, MPI_BYTE, 16, 16);
    CHECK_RC(MPI_Status_set_elements(&st, mix, 11));  /* 2 structs + 2 ints + double */
    EXPECT(&st, mix, U, 11);
    EXPECT(&st, MPI_BYTE, 50, 50);
    CHECK_RC(MPI_Status_set_elements(&st, mix, 12));
    EXPECT(&st, mix, 3, 12);
    CHECK_RC(MPI_Type_free(&mix));

    /* an uncommitted type is accepted too (the engine compiles it) */
    MPI_Datatype pair;
    CHECK_RC(MPI_Type_contiguous(2, MPI_SHORT, &pair));
    CHECK_RC(MPI_Status_set_elements(&st, pair, 6));
    EXPECT(&st, pair, 3, 6);
    CHECK_RC(MPI_Type_free(&pair));

    /* zero-size type: count 0, and elements cannot be set */
    MPI_Datatype zero;
    CHECK_RC(MPI_Type_contiguous(0, MPI_INT, &zero));
    CHECK_RC(MPI_Type_commit(&zero));
    CHECK_RC(MPI_Status_set_elements(&st, zero, 0));
    EXPECT(&st, zero, 0, 0);
    EXPECT(&st, MPI_INT, 0, 0);
    CHECK_RC(MPI_Status_set_elements(&st, MPI_INT, 3));
    int c = -7;
    CHECK_RC(MPI_Get_count(&st, zero, &c));
    CHECK(c == 0, "zero-size type: MPI_Get_count %d, wanted 0", c);
    EXPECT_CLASS(MPI_Status_set_elements(&st, zero, 1), MPI_ERR_COUNT);

    CHECK_RC(MPI_Type_free(&zero));
    CHECK_RC(MPI_Type_free(&sty));
    CHECK_RC(MPI_Type_free(&vec));
}

static void test_large(void)
{
    MPI_Status st = dirty();
    const MPI_Count big = 3LL << 30;   /* 3221225472 > 2^31 elements */

    CHECK_RC(MPI_Status_set_elements_c(&st, MPI_INT, big));
    EXPECT_BIG(&st, MPI_INT, big, big);
    EXPECT_BIG(&st, MPI_BYTE, 4 * big, 4 * big);   /* > 2^32: needs the high word */
    EXPECT(&st, MPI_INT, U, U);                     /* does not fit an int */
    EXPECT(&st, MPI_BYTE, U, U);

    const MPI_Count huge = (1LL << 40) + 3;
    CHECK_RC(MPI_Status_set_elements_x(&st, MPI_DOUBLE, huge));
    EXPECT_BIG(&st, MPI_DOUBLE, huge, huge);
    EXPECT_BIG(&st, MPI_BYTE, 8 * huge, 8 * huge);
    EXPECT_BIG(&st, MPI_INT, 2 * huge, 2 * huge);

    /* derived type with large counts: 1000 ints a piece */
    MPI_Datatype k;
    CHECK_RC(MPI_Type_contiguous(1000, MPI_INT, &k));
    CHECK_RC(MPI_Type_commit(&k));
    CHECK_RC(MPI_Status_set_elements_c(&st, MPI_INT, 5000000000LL));
    EXPECT_BIG(&st, k, 5000000, 5000000000LL);
    CHECK_RC(MPI_Status_set_elements_x(&st, k, 5000000001LL));
    EXPECT_BIG(&st, k, U, 5000000001LL);
    EXPECT_BIG(&st, MPI_INT, 5000000001LL, 5000000001LL);

    /* MPI_DOUBLE_INT past 2^31 elements, ending on a lone double */
    const MPI_Count odd = (1LL << 33) + 1;
    CHECK_RC(MPI_Status_set_elements_c(&st, MPI_DOUBLE_INT, odd));
    EXPECT_BIG(&st, MPI_DOUBLE_INT, U, odd);
    EXPECT_BIG(&st, MPI_BYTE, (odd / 2) * 12 + 8, (odd / 2) * 12 + 8);

    /* small values after big ones clear the high word */
    CHECK_RC(MPI_Status_set_elements(&st, MPI_INT, 7));
    EXPECT(&st, MPI_INT, 7, 7);
    EXPECT_BIG(&st, MPI_INT, 7, 7);

    /* byte counts that overflow an MPI_Count */
    EXPECT_CLASS(MPI_Status_set_elements_c(&st, MPI_DOUBLE, LLONG_MAX / 4), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Status_set_elements_x(&st, k, LLONG_MAX), MPI_ERR_COUNT);
    EXPECT(&st, MPI_INT, 7, 7);   /* a failed call leaves the status alone */
    CHECK_RC(MPI_Type_free(&k));
}

static void test_cancelled_and_fields(void)
{
    MPI_Status st = dirty();
    int flag = -1;
    CHECK_RC(MPI_Status_set_elements(&st, MPI_INT, 9));
    CHECK_RC(MPI_Status_set_cancelled(&st, 1));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "cancelled flag %d after set 1", flag);
    CHECK_RC(MPI_Status_set_cancelled(&st, 0));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0, "cancelled flag %d after set 0", flag);
    CHECK_RC(MPI_Status_set_cancelled(&st, 42));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "cancelled flag %d after set 42 (wanted true as 1)", flag);
    EXPECT(&st, MPI_INT, 9, 9);   /* the flag does not touch the count */
    CHECK_RC(MPI_Status_set_elements_c(&st, MPI_INT, 3LL << 31));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "set_elements changed the cancelled flag");

    int v = -9;
    CHECK_RC(MPI_Status_set_source(&st, 3));
    CHECK_RC(MPI_Status_set_tag(&st, 4242));
    CHECK_RC(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE));
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 4242 && st.MPI_ERROR == MPI_ERR_TRUNCATE,
          "public fields %d %d %d", st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
    CHECK_RC(MPI_Status_get_source(&st, &v));
    CHECK(v == 3, "MPI_Status_get_source %d", v);
    CHECK_RC(MPI_Status_get_tag(&st, &v));
    CHECK(v == 4242, "MPI_Status_get_tag %d", v);
    CHECK_RC(MPI_Status_get_error(&st, &v));
    CHECK(v == MPI_ERR_TRUNCATE, "MPI_Status_get_error %d", v);
    st.MPI_SOURCE = MPI_ANY_SOURCE;
    st.MPI_TAG = MPI_ANY_TAG;
    st.MPI_ERROR = MPI_SUCCESS;
    CHECK_RC(MPI_Status_get_source(&st, &v));
    CHECK(v == MPI_ANY_SOURCE, "get_source after direct write: %d", v);
    CHECK_RC(MPI_Status_get_tag(&st, &v));
    CHECK(v == MPI_ANY_TAG, "get_tag after direct write: %d", v);
    CHECK_RC(MPI_Status_get_error(&st, &v));
    CHECK(v == MPI_SUCCESS, "get_error after direct write: %d", v);
    EXPECT_BIG(&st, MPI_INT, 3LL << 31, 3LL << 31);   /* the fields do not touch the count */
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "the field setters changed the cancelled flag");
}

static void test_errors(void)
{
    MPI_Status st = dirty(), *ign = MPI_STATUS_IGNORE;
    int i;
    MPI_Count c;
    MPI_Datatype bogus = (MPI_Datatype)(intptr_t)0x2ff;
    CHECK_RC(MPI_Status_set_elements(&st, MPI_INT, 2));

    EXPECT_CLASS(MPI_Get_count(ign, MPI_INT, &i), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Get_count_c(ign, MPI_INT, &c), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Get_elements(ign, MPI_INT, &i), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Get_elements_c(ign, MPI_INT, &c), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Get_elements_x(ign, MPI_INT, &c), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_set_elements(ign, MPI_INT, 1), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_set_elements_c(ign, MPI_INT, 1), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_set_elements_x(ign, MPI_INT, 1), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_set_cancelled(ign, 1), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Test_cancelled(ign, &i), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_get_source(ign, &i), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_get_tag(ign, &i), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_get_error(ign, &i), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_set_source(ign, 1), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_set_tag(ign, 1), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_set_error(ign, 1), MPI_ERR_ARG);

    EXPECT_CLASS(MPI_Get_count(&st, MPI_DATATYPE_NULL, &i), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Get_count_c(&st, bogus, &c), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Get_elements(&st, MPI_DATATYPE_NULL, &i), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Get_elements_x(&st, bogus, &c), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Status_set_elements_c(&st, bogus, 1), MPI_ERR_TYPE);

    EXPECT_CLASS(MPI_Get_count(&st, MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Get_count_c(&st, MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Get_elements(&st, MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Get_elements_c(&st, MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Test_cancelled(&st, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_get_source(&st, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_get_tag(&st, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Status_get_error(&st, NULL), MPI_ERR_ARG);

    EXPECT_CLASS(MPI_Status_set_elements(&st, MPI_INT, -1), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Status_set_elements_c(&st, MPI_INT, -5), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Status_set_elements_x(&st, MPI_INT, -(1LL << 40)), MPI_ERR_COUNT);
    EXPECT(&st, MPI_INT, 2, 2);   /* failed calls left the status alone */

    /* the error string names the function and the reason */
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0, rc = MPI_Get_count(ign, MPI_INT, &i);
    CHECK_RC(MPI_Error_string(rc, msg, &len));
    CHECK(strstr(msg, "MPI_Get_count") && strstr(msg, "MPI_STATUS_IGNORE"),
          "error string \"%s\"", msg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    test_basic_and_derived();
    test_large();
    test_cancelled_and_fields();
    test_errors();
    MPI_Finalize();
    printf("status_functions: OK\n");
    return 0;
}
