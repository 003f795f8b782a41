/* Ops and error handlers bound to a context (ctx_objects.h), for
 * binding/fortran's procedures: the entry points' checks, then one call
 * into mpi/.  Errors on ops and handlers are tied to no communicator. */
#include <mpi.h>

#include "binding/check.h"
#include "binding/ctx_objects.h"
#include "mpi/errhandler.h"

int smap_op_new_ctx(const char *func, smap_op_ctx_fn *fn, void *ctx, int large, int commute,
                    MPI_Op *op)
{
    SMAP_CHECK_RUNNING(func);
    if (!fn || !ctx)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func, "user_fn is NULL");
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, op);
    struct MPI_ABI_Op *o = smap_op_create_ctx(fn, ctx, large, commute);
    if (!o)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, func, "out of memory");
    *op = o;
    return MPI_SUCCESS;
}

int smap_errhandler_new_ctx(const char *func, void (*fn)(void *ctx, void *obj, int *code),
                            void *ctx, MPI_Errhandler *errhandler)
{
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, ctx);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, errhandler);
    *errhandler = smap_errhandler_create_ctx(fn, ctx);
    if (*errhandler == MPI_ERRHANDLER_NULL)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, func, "out of memory");
    return MPI_SUCCESS;
}
