/* Entry points for error handlers and error codes. */
#include <mpi.h>

#include "binding/check.h"
#include "binding/ctx_objects.h"
#include "mpi/errhandler.h"

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_COMM("MPI_Comm_set_errhandler", comm, c);
    if (!smap_errhandler_valid(errhandler))
        return smap_err_raise(comm, MPI_ERR_ARG, "MPI_Comm_set_errhandler",
                              "errhandler is not a valid error handler");
    smap_errhandler_retain(errhandler);
    MPI_Errhandler old = c->errhandler;
    c->errhandler = errhandler;
    smap_errhandler_release(old);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_COMM("MPI_Comm_get_errhandler", comm, c);
    SMAP_CHECK_PTR("MPI_Comm_get_errhandler", comm, errhandler);
    smap_errhandler_give(c->errhandler);
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    SMAP_CHECK_PTR("MPI_Comm_create_errhandler", MPI_COMM_NULL, comm_errhandler_fn);
    SMAP_CHECK_PTR("MPI_Comm_create_errhandler", MPI_COMM_NULL, errhandler);
    *errhandler = smap_errhandler_create(comm_errhandler_fn);
    if (*errhandler == MPI_ERRHANDLER_NULL)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Comm_create_errhandler",
                              "out of memory");
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

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_COMM("MPI_Comm_call_errhandler", comm, c);
    (void)c;
    smap_errhandler_invoke(comm, errorcode);
    return MPI_SUCCESS;
}

/* Freeing a handle obtained from MPI_Comm_get_errhandler is legal also when
 * it is a predefined handler; only the reference goes away. */
int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    SMAP_CHECK_PTR("MPI_Errhandler_free", MPI_COMM_NULL, errhandler);
    if (!smap_errhandler_valid(*errhandler))
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Errhandler_free",
                              "*errhandler is not a valid error handler (freed already?)");
    smap_errhandler_drop(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    SMAP_CHECK_PTR("MPI_Error_class", MPI_COMM_NULL, errorclass);
    if (smap_error_class(errorcode, errorclass) != MPI_SUCCESS)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Error_class",
                              "%d is not an error code", errorcode);
    return MPI_SUCCESS;
}

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    SMAP_CHECK_PTR("MPI_Error_string", MPI_COMM_NULL, string);
    SMAP_CHECK_PTR("MPI_Error_string", MPI_COMM_NULL, resultlen);
    if (smap_error_string(errorcode, string, resultlen) != MPI_SUCCESS)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Error_string",
                              "%d is not an error code", errorcode);
    return MPI_SUCCESS;
}
