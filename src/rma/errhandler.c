/* Errors raised on windows: a window has its own error handler
 * (MPI_ERRORS_ARE_FATAL at creation, MPI 5.0 §9.3), which receives the
 * window handle. */
#include <stdarg.h>
#include <stdio.h>

#include "mpi/errhandler.h"
#include "mpi/errors.h"
#include "rma/rma.h"

void smap_win_invoke(MPI_Win h, int code)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    MPI_Errhandler eh = w ? w->errhandler : MPI_ERRORS_ARE_FATAL;
    smap_errhandler_call(eh, &h, "the window", code);
}

int smap_win_raise(MPI_Win h, int cls, const char *func, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int code = smap_err_code(cls, func, "%s", msg);
    smap_win_invoke(h, code);
    return code;
}
