/* Error handlers and error codes: MPI_ERRORS_RETURN, user handlers, codes
 * whose strings name the failing function, and every class described. */
#include <string.h>

#include "smap_test.h"

static int user_calls;
static MPI_Comm user_comm;
static int user_code;

static void user_handler(MPI_Comm *comm, int *code, ...)
{
    user_calls++;
    user_comm = *comm;
    user_code = *code;
}

static int class_of(int code)
{
    int cls = -1;
    CHECK_RC(MPI_Error_class(code, &cls));
    return cls;
}

static void expect_message(int code, const char *needle)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = -1;
    CHECK_RC(MPI_Error_string(code, text, &len));
    CHECK(len == (int)strlen(text) && strstr(text, needle), "message '%s' lacks '%s'", text, needle);
}

static void check_errors_return(void)
{
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int rc = MPI_Comm_rank(MPI_COMM_WORLD, NULL);
    CHECK(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_ARG, "NULL rank gave %d", rc);
    expect_message(rc, "MPI_Comm_rank");
    int size;
    rc = MPI_Comm_size(MPI_COMM_NULL, &size);
    CHECK(class_of(rc) == MPI_ERR_COMM, "MPI_COMM_NULL gave class %d", class_of(rc));
    expect_message(rc, "MPI_COMM_NULL");
    rc = MPI_Barrier((MPI_Comm)(intptr_t)12345);
    CHECK(class_of(rc) == MPI_ERR_COMM, "bogus comm gave class %d", class_of(rc));
    int cls;
    rc = MPI_Error_class(-5, &cls);
    CHECK(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_ARG, "MPI_Error_class(-5) gave %d", rc);
    rc = MPI_Init(NULL, NULL);
    CHECK(class_of(rc) == MPI_ERR_OTHER, "second MPI_Init gave %d", rc);
    expect_message(rc, "already initialized");
}

static void check_get_set_free(void)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    CHECK_RC(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "get_errhandler gave %p", (void *)eh);
    CHECK_RC(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "free did not null the handle");
    int rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL);
    CHECK(class_of(rc) == MPI_ERR_ARG, "setting MPI_ERRHANDLER_NULL gave %d", rc);
}

static void check_user_handler(void)
{
    MPI_Errhandler eh, got;
    CHECK_RC(MPI_Comm_create_errhandler(user_handler, &eh));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    CHECK_RC(MPI_Errhandler_free(&eh));   /* the communicator keeps it alive */
    int rc = MPI_Comm_rank(MPI_COMM_WORLD, NULL);
    CHECK(user_calls == 1 && user_comm == MPI_COMM_WORLD && user_code == rc,
          "user handler calls %d code %d rc %d", user_calls, user_code, rc);
    CHECK_RC(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_TAG));
    CHECK(user_calls == 2 && user_code == MPI_ERR_TAG, "call_errhandler: calls %d code %d", user_calls, user_code);
    CHECK_RC(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got != MPI_ERRORS_RETURN && got != MPI_ERRORS_ARE_FATAL, "get returned a predefined handler");
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Errhandler_free(&got));  /* last reference */
    rc = MPI_Comm_rank(MPI_COMM_WORLD, NULL);
    CHECK(user_calls == 2 && rc != MPI_SUCCESS, "handler ran after being replaced");
}

static void check_class_strings(void)
{
    for (int cls = MPI_SUCCESS; cls <= MPI_ERR_ABI; cls++) {
        char text[MPI_MAX_ERROR_STRING];
        int len;
        CHECK_RC(MPI_Error_string(cls, text, &len));
        CHECK(strncmp(text, "MPI_", 4) == 0 && len > 10, "class %d: '%s'", cls, text);
        CHECK(class_of(cls) == cls, "class of class %d", cls);
    }
    expect_message(MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE");
    expect_message(MPI_T_ERR_INVALID_HANDLE, "MPI_T_ERR_INVALID_HANDLE");
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    check_errors_return();
    check_get_set_free();
    check_user_handler();
    check_class_strings();
    CHECK_RC(MPI_Finalize());
    return 0;
}
