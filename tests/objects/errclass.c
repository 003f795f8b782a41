/* User-defined error classes, codes and strings: round trips through
 * MPI_Error_class / MPI_Error_string, MPI_LASTUSEDCODE, removal (MPI-4.1),
 * and a user code going through an error handler. */
#include <string.h>

#include "smap_test.h"

static int class_of(int code)
{
    int cls = -1;
    CHECK_RC(MPI_Error_class(code, &cls));
    return cls;
}

static void expect_string(int code, const char *want)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = -1;
    CHECK_RC(MPI_Error_string(code, text, &len));
    CHECK(strcmp(text, want) == 0 && len == (int)strlen(want), "string of %d is '%s', expected '%s'",
          code, text, want);
}

static int lastused(void)
{
    int *p, flag;
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag));
    CHECK(flag, "MPI_LASTUSEDCODE not set");
    return *p;
}

static int handler_code;
static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_code = *code;
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK(lastused() == MPI_ERR_LASTCODE, "initial MPI_LASTUSEDCODE %d", lastused());

    int c1, c2, k1, k2, k3;
    CHECK_RC(MPI_Add_error_class(&c1));
    CHECK(c1 > MPI_ERR_LASTCODE, "new class %d is not above MPI_ERR_LASTCODE", c1);
    CHECK(lastused() == c1, "MPI_LASTUSEDCODE %d after adding class %d", lastused(), c1);
    CHECK(class_of(c1) == c1, "a class is its own class");
    expect_string(c1, "");   /* no string yet: "" */
    CHECK_RC(MPI_Add_error_string(c1, "my first class"));
    expect_string(c1, "my first class");
    CHECK_RC(MPI_Add_error_string(c1, "renamed class"));
    expect_string(c1, "renamed class");

    CHECK_RC(MPI_Add_error_code(c1, &k1));
    CHECK(k1 != c1 && class_of(k1) == c1 && lastused() == k1, "code %d class %d lastused %d", k1,
          class_of(k1), lastused());
    CHECK_RC(MPI_Add_error_string(k1, "a code of my class"));
    expect_string(k1, "a code of my class");
    CHECK_RC(MPI_Add_error_class(&c2));
    CHECK(c2 != c1 && c2 != k1 && lastused() == c2, "second class %d", c2);
    CHECK_RC(MPI_Add_error_code(MPI_ERR_TAG, &k2));   /* codes of predefined classes too */
    CHECK(class_of(k2) == MPI_ERR_TAG && lastused() == k2, "code of MPI_ERR_TAG: class %d", class_of(k2));
    expect_string(k2, "");
    CHECK_RC(MPI_Add_error_code(c2, &k3));

    /* errors: predefined strings, codes that are not classes, unknown values */
    int rc = MPI_Add_error_string(MPI_ERR_TAG, "no");
    CHECK(class_of(rc) == MPI_ERR_ARG, "string on a predefined class gave %d", rc);
    int dummy;
    rc = MPI_Add_error_code(k1, &dummy);
    CHECK(class_of(rc) == MPI_ERR_ARG, "a code as class gave %d", rc);
    rc = MPI_Add_error_code(999999, &dummy);
    CHECK(class_of(rc) == MPI_ERR_ARG, "unknown class gave %d", rc);
    static char longs[MPI_MAX_ERROR_STRING + 1];
    memset(longs, 's', MPI_MAX_ERROR_STRING);
    rc = MPI_Add_error_string(c1, longs);
    CHECK(class_of(rc) == MPI_ERR_ARG, "overlong string gave %d", rc);
    expect_string(c1, "renamed class");

    /* a user code through an error handler and a raised error of a user class */
    MPI_Errhandler eh;
    CHECK_RC(MPI_Comm_create_errhandler(handler, &eh));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    CHECK_RC(MPI_Comm_call_errhandler(MPI_COMM_WORLD, k1));
    CHECK(handler_code == k1 && class_of(handler_code) == c1, "handler got %d", handler_code);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Errhandler_free(&eh));

    /* removal (MPI-4.1) */
    rc = MPI_Remove_error_class(c1);
    CHECK(class_of(rc) == MPI_ERR_ARG, "removing a class with codes gave %d", rc);
    rc = MPI_Remove_error_class(MPI_ERR_TAG);
    CHECK(class_of(rc) == MPI_ERR_ARG, "removing a predefined class gave %d", rc);
    rc = MPI_Remove_error_code(c2);
    CHECK(class_of(rc) == MPI_ERR_ARG, "removing a class as a code gave %d", rc);
    CHECK_RC(MPI_Remove_error_string(k1));
    expect_string(k1, "");
    CHECK_RC(MPI_Remove_error_code(k1));
    rc = MPI_Error_class(k1, &dummy);
    CHECK(class_of(rc) == MPI_ERR_ARG, "a removed code still has a class");
    CHECK_RC(MPI_Remove_error_class(c1));
    rc = MPI_Error_string(c1, longs, &dummy);
    CHECK(class_of(rc) == MPI_ERR_ARG, "a removed class still has a string");
    CHECK(lastused() == k3, "MPI_LASTUSEDCODE %d, expected %d", lastused(), k3);
    CHECK_RC(MPI_Remove_error_code(k3));
    CHECK(lastused() == k2, "MPI_LASTUSEDCODE %d, expected %d", lastused(), k2);
    CHECK_RC(MPI_Remove_error_code(k2));
    CHECK_RC(MPI_Remove_error_class(c2));
    CHECK(lastused() == MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d after removing all", lastused());
    /* removed values are recycled, lowest first (the same calls give the
     * same values on every process) */
    int c3, lowest = c1 < c2 ? c1 : c2;
    lowest = k1 < lowest ? k1 : lowest;
    CHECK_RC(MPI_Add_error_class(&c3));
    CHECK(c3 == lowest, "class %d, want the lowest removed value %d", c3, lowest);
    CHECK(lastused() == c3, "MPI_LASTUSEDCODE %d, expected %d", lastused(), c3);
    CHECK_RC(MPI_Finalize());
    return 0;
}
