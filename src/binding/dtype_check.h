/* Argument check for datatype handles, shared by the entry points that
 * take one (datatype.c, pack.c, and later point-to-point/collectives). */
#ifndef SMAP_BINDING_DTYPE_CHECK_H
#define SMAP_BINDING_DTYPE_CHECK_H

#include <mpi.h>

#include "base/compiler.h"
#include "dtype/dtype.h"
#include "mpi/errors.h"

/* obj = the datatype behind handle h, or raise MPI_ERR_TYPE on comm. */
#define SMAP_CHECK_DTYPE(func, comm, h, obj)                                              \
    do {                                                                                   \
        (obj) = smap_dtype_get(h);                                                         \
        if (SMAP_UNLIKELY(!(obj)))                                                         \
            return smap_err_raise(comm, MPI_ERR_TYPE, func, "%s",                          \
                                  (h) == MPI_DATATYPE_NULL                                 \
                                      ? "datatype is MPI_DATATYPE_NULL"                    \
                                      : "datatype is not a valid datatype");               \
    } while (0)

/* Same, and the type must be committed (communication, packing). */
#define SMAP_CHECK_DTYPE_COMMITTED(func, comm, h, obj)                                    \
    do {                                                                                   \
        SMAP_CHECK_DTYPE(func, comm, h, obj);                                              \
        if (SMAP_UNLIKELY(!smap_dtype_committed(obj)))                                     \
            return smap_err_raise(comm, MPI_ERR_TYPE, func, "%s",                          \
                                  "datatype is not committed (MPI_Type_commit)");          \
    } while (0)

#endif
