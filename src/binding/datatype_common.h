/* What the datatype constructors (datatype_create.c) share: argument-check
 * macros and the way a constructor's result is handed out. */
#ifndef SMAP_BINDING_DATATYPE_COMMON_H
#define SMAP_BINDING_DATATYPE_COMMON_H

#include <mpi.h>

#include "binding/check.h"
#include "dtype/dtype.h"

/* Raises the error a datatype-engine return code rc stands for. */
int smap_bind_type_raise(const char *func, int rc);
/* Hands a new type to the caller, or frees it and raises. */
int smap_bind_type_done(const char *func, int rc, smap_dtype_t *t, MPI_Datatype *newtype);

/* Checks a count-sized array argument. */
#define CHECK_ARRAY(func, n, a)                                                            \
    do {                                                                                   \
        if ((n) > 0 && !(a))                                                               \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func, "%s is NULL", #a);     \
    } while (0)

#define CHECK_COUNT(func, n)                                                               \
    do {                                                                                   \
        if ((n) < 0)                                                                       \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_COUNT, func,                      \
                                  "%s is negative (%lld)", #n, (long long)(n));            \
    } while (0)

#define CHECK_NEWTYPE(func, p) SMAP_CHECK_PTR(func, MPI_COMM_NULL, p)

#endif
