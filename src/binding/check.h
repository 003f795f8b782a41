/* Argument checks shared by the hand-written entry points.  Each returns
 * from the calling entry point with the error handler's verdict. */
#ifndef SMAP_BINDING_CHECK_H
#define SMAP_BINDING_CHECK_H

#include <mpi.h>

#include "base/compiler.h"
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

#endif
