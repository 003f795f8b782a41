/* Raising MPI errors: every failing entry point ends here, so the right
 * error handler runs and the message names the function. */
#ifndef SMAP_MPI_ERRORS_H
#define SMAP_MPI_ERRORS_H

#include <mpi.h>

#include "base/compiler.h"

/* Creates an error code of class `cls` whose MPI_Error_string is
 * "<func>: <message>", and invokes comm's error handler with it (errors not
 * tied to a communicator, comm == MPI_COMM_NULL, go to MPI_COMM_SELF's
 * handler, as MPI-4 specifies).  Returns the code, for `return` in the
 * caller when the handler returns. */
int smap_err_raise(MPI_Comm comm, int cls, const char *func, const char *fmt, ...)
    SMAP_PRINTF_LIKE(4, 5) SMAP_COLD;

/* The same, raised on handler h of a non-communicator object (see
 * smap_errhandler_call): sessions, and the communicator constructors that
 * take an error handler (MPI_Comm_create_from_group). */
int smap_err_raise_on(MPI_Errhandler h, void *obj, const char *what, int cls, const char *func,
                      const char *fmt, ...) SMAP_PRINTF_LIKE(6, 7) SMAP_COLD;

/* The same code without raising it: for objects whose handlers are not a
 * communicator's (windows: src/rma). */
int smap_err_code(int cls, const char *func, const char *fmt, ...) SMAP_PRINTF_LIKE(3, 4) SMAP_COLD;

/* For every function not implemented yet (used by the generated stubs). */
int smap_err_unsupported(MPI_Comm comm, const char *func) SMAP_COLD;

/* Same for the MPI_T tool interface, which does not use error handlers:
 * returns MPI_T_ERR_NOT_SUPPORTED (and logs the name at SMAP_VERBOSE>=2). */
int smap_err_tool_unsupported(const char *func) SMAP_COLD;

#endif

#ifndef SMAP_MPI_ERRORS_LOOKUP
#define SMAP_MPI_ERRORS_LOOKUP
/* MPI_Error_class / MPI_Error_string without argument checks: return
 * MPI_SUCCESS, or MPI_ERR_ARG for a code that names no error. */
int smap_error_class(int code, int *cls);
int smap_error_string(int code, char *text, int *len);

/* User-defined error classes and codes (MPI_Add_error_class ...).  Each
 * returns MPI_SUCCESS, or the error class to raise with *why saying why. */
int smap_err_add_class(int *cls, const char **why);
int smap_err_add_code(int cls, int *code, const char **why);
int smap_err_add_string(int code, const char *text, const char **why);
int smap_err_remove_class(int cls, const char **why);
int smap_err_remove_code(int code, const char **why);
int smap_err_remove_string(int code, const char **why);
/* Where the value of the MPI_LASTUSEDCODE attribute lives. */
int *smap_err_lastusedcode(void);
#endif
