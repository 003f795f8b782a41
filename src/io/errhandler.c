/* Errors raised on files: a file has its own error handler, which starts
 * as MPI_FILE_NULL's (MPI_ERRORS_RETURN by default, MPI 5.0 §9.3 and
 * §14.7); errors with no valid file (open, delete, a bad handle) go to
 * MPI_FILE_NULL's handler.  Also the errno → error class table. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "io/io.h"
#include "mpi/errhandler.h"
#include "mpi/errors.h"

int smap_io_errno_class(int err)
{
    switch (err) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES: case EPERM: return MPI_ERR_ACCESS;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENOSPC: case EFBIG: return MPI_ERR_NO_SPACE;
#ifdef EDQUOT
    case EDQUOT: return MPI_ERR_QUOTA;
#endif
    case ETXTBSY: case EBUSY: return MPI_ERR_FILE_IN_USE;
    case EISDIR: case ENOTDIR: case ENAMETOOLONG: case ELOOP: case ENXIO: case ENODEV:
        return MPI_ERR_BAD_FILE;
    case ENOMEM: return MPI_ERR_NO_MEM;
    default: return MPI_ERR_IO;
    }
}

/* MPI_FILE_NULL's handler; set before any thread could race on it (the
 * standard's MPI_File_set_errhandler on MPI_FILE_NULL), read at opens. */
static MPI_Errhandler null_eh = MPI_ERRORS_RETURN;

MPI_Errhandler smap_file_default_errhandler(void)
{
    return null_eh;
}

void smap_file_set_default_errhandler(MPI_Errhandler eh)
{
    smap_errhandler_retain(eh);
    MPI_Errhandler old = null_eh;
    null_eh = eh;
    smap_errhandler_release(old);
}

void smap_file_invoke(MPI_File h, int code)
{
    struct MPI_ABI_File *f = smap_file_get(h);
    MPI_Errhandler eh = f ? f->errhandler : null_eh;
    MPI_File obj = f ? h : MPI_FILE_NULL;
    smap_errhandler_call(eh, &obj, f ? "the file" : "MPI_FILE_NULL", code);
}

int smap_file_raise(MPI_File h, int cls, const char *func, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int code = smap_err_code(cls, func, "%s", msg);
    smap_file_invoke(h, code);
    return code;
}
