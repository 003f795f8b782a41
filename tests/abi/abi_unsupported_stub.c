/* abi_unsupported_stub: a function smartmap does not implement returns an
 * error of class MPI_ERR_UNSUPPORTED_OPERATION through the error handler
 * (here MPI_ERRORS_RETURN), and its error string names the function. The
 * functions used are ones expected to stay unimplemented for a long time
 * (dynamic processes); if one of them gets
 * implemented, pick another from docs/STATUS.md. */
#include <string.h>

#include "smap_test.h"

static void expect_unsupported(int rc, const char *func)
{
    int cls = -1, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    CHECK(rc != MPI_SUCCESS, "%s returned MPI_SUCCESS", func);
    CHECK_RC(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION,
          "%s: error class %d, expected MPI_ERR_UNSUPPORTED_OPERATION (%d)", func, cls,
          MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_RC(MPI_Error_string(rc, text, &len));
    CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(text) == len,
          "%s: bad error string length %d", func, len);
    CHECK(strstr(text, func) != NULL, "error string \"%s\" does not name %s", text, func);
    printf("ok %s: \"%s\"\n", func, text);
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    /* a communicator argument: the error goes to MPI_COMM_WORLD's handler */
    MPI_Comm conn = MPI_COMM_NULL;
    expect_unsupported(MPI_Comm_connect("abi_unsupported_port", MPI_INFO_NULL, 0,
                                        MPI_COMM_WORLD, &conn),
                       "MPI_Comm_connect");

    MPI_Comm inter = MPI_COMM_NULL;
    int errcodes[1] = {0};
    expect_unsupported(MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0,
                                      MPI_COMM_SELF, &inter, errcodes),
                       "MPI_Comm_spawn");

    /* no communicator argument: MPI_COMM_SELF's handler */
    MPI_Comm joined = MPI_COMM_NULL;
    expect_unsupported(MPI_Comm_join(-1, &joined), "MPI_Comm_join");

    /* the tool interface (implemented: tests/tool) returns its errors and
     * does not use error handlers */
    MPI_T_event_registration reg;
    int rc = MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg);
    CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "MPI_T_event_handle_alloc returned %d, expected %d",
          rc, MPI_T_ERR_NOT_INITIALIZED);

    CHECK_RC(MPI_Finalize());
    return 0;
}
