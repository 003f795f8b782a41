/* The argument checks every entry point shares: an initialised library, a
 * valid communicator, non-NULL pointers, valid (committed) datatypes.  Each
 * returns from the calling function with the error handler's verdict.
 * Used by the binding (src/binding/check.h) and by the layers that take an
 * entry point's arguments as given (src/coll/entry). */
#ifndef SMAP_MPI_ARGS_H
#define SMAP_MPI_ARGS_H

#include <mpi.h>

#include "base/compiler.h"
#include "dtype/dtype.h"
#include "mpi/comm.h"
#include "mpi/errors.h"
#include "mpi/runtime.h"

/* Functions that need an initialised library. */
#define SMAP_CHECK_RUNNING(func)                                                   \
    do {                                                                           \
        if (SMAP_UNLIKELY(!smap_running()))                                        \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_OTHER, func, "%s",        \
                                  atomic_load(&smap_state) == SMAP_STATE_NEW        \
                                      ? "called before MPI_Init"                   \
                                      : "called after MPI_Finalize");              \
    } while (0)

#define SMAP_CHECK_COMM(func, comm, obj)                                           \
    do {                                                                           \
        (obj) = smap_comm_get(comm);                                               \
        if (SMAP_UNLIKELY(!(obj)))                                                 \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_COMM, func, "%s",         \
                                  (comm) == MPI_COMM_NULL ? "comm is MPI_COMM_NULL" \
                                                          : "comm is not a valid communicator"); \
    } while (0)

#define SMAP_CHECK_PTR(func, comm, ptr)                                            \
    do {                                                                           \
        if (SMAP_UNLIKELY(!(ptr)))                                                 \
            return smap_err_raise(comm, MPI_ERR_ARG, func, "%s is NULL", #ptr);    \
    } while (0)

/* The same, naming the argument as the standard does when the variable
 * checked has another name. */
#define SMAP_CHECK_ARG(func, comm, ptr, name)                                      \
    do {                                                                           \
        if (SMAP_UNLIKELY(!(ptr)))                                                 \
            return smap_err_raise(comm, MPI_ERR_ARG, func, "%s is NULL", name);    \
    } while (0)

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
