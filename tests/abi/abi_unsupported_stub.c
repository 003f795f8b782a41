/* abi_unsupported_stub: a function smartmap does not implement returns an
 * error of class MPI_ERR_UNSUPPORTED_OPERATION through the error handler
 * (here MPI_ERRORS_RETURN), and its error string names the function. The
 * functions used are ones expected to stay unimplemented for a while
 * (datarep registration; the dynamic-process functions were the examples
 * until src/spawn implemented them); if one of them gets implemented, pick
 * another from docs/STATUS.md. */
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

    /* a large-count variant */
    expect_unsupported(MPI_Register_datarep_c("abi_unsupported_c", MPI_CONVERSION_FN_NULL_C,
                                              MPI_CONVERSION_FN_NULL_C, NULL, NULL),
                       "MPI_Register_datarep_c");

    /* no communicator argument: MPI_COMM_SELF's handler */
    expect_unsupported(MPI_Register_datarep("abi_unsupported", MPI_CONVERSION_FN_NULL,
                                            MPI_CONVERSION_FN_NULL, NULL, NULL),
                       "MPI_Register_datarep");

    /* the tool interface (implemented: tests/tool) returns its errors and
     * does not use error handlers */
    MPI_T_event_registration reg;
    int rc = MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg);
    CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "MPI_T_event_handle_alloc returned %d, expected %d",
          rc, MPI_T_ERR_NOT_INITIALIZED);

    CHECK_RC(MPI_Finalize());
    return 0;
}
