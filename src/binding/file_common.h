/* Checks shared by the MPI-IO entry points (file.c, file_view.c,
 * file_rw.c).  Errors on a valid file go to the file's handler; errors
 * with no valid file go to MPI_FILE_NULL's (MPI 5.0 §14.7: by default
 * MPI_ERRORS_RETURN). */
#ifndef SMAP_BINDING_FILE_COMMON_H
#define SMAP_BINDING_FILE_COMMON_H

#include <mpi.h>

#include "binding/check.h"
#include "io/io.h"

#define FILE_CHECK(func, fh, f)                                                            \
    do {                                                                                   \
        SMAP_CHECK_RUNNING(func);                                                          \
        (f) = smap_file_get(fh);                                                           \
        if (SMAP_UNLIKELY(!(f)))                                                           \
            return smap_file_raise(MPI_FILE_NULL, MPI_ERR_FILE, func, "%s",                \
                                   (fh) == MPI_FILE_NULL ? "fh is MPI_FILE_NULL"            \
                                                         : "fh is not a valid file");      \
    } while (0)

#define FILE_RAISE(func, fh, cls, ...) smap_file_raise(fh, cls, func, __VA_ARGS__)

/* The result of a call into src/io. */
#define FILE_DONE(func, fh, rc)                                                            \
    ((rc) == MPI_SUCCESS ? MPI_SUCCESS : smap_file_raise(fh, rc, func, "%s", smap_why()))

#define FILE_CHECK_PTR(func, fh, ptr)                                                      \
    do {                                                                                   \
        if (SMAP_UNLIKELY(!(ptr)))                                                         \
            return FILE_RAISE(func, fh, MPI_ERR_ARG, "%s is NULL", #ptr);                  \
    } while (0)

#endif
