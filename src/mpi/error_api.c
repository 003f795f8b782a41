/* The operations behind the error entry points (MPI_Error_class/string,
 * MPI_Add_error_*, MPI_Remove_error_*, MPI_Comm_*_errhandler,
 * MPI_Errhandler_free), called by their generated stubs in
 * src/binding/gen/errors.c once the handles and pointers are checked.
 * Each returns MPI_SUCCESS or an error class with the reason recorded
 * (base/why.h), naming the value refused. */
#include <mpi.h>

#include "base/why.h"
#include "mpi/comm.h"
#include "mpi/errhandler.h"
#include "mpi/errors.h"

/* rc from errors.c's user-value functions, with `why`, into why.h. */
static int fail_on(int rc, const char *why, const char *name, int value)
{
    if (rc == MPI_SUCCESS)
        return rc;
    return name ? smap_failf(rc, "%s (%s=%d)", why, name, value) : smap_fail(rc, why);
}

int smap_err_class_of(int errorcode, int *errorclass)
{
    if (smap_error_class(errorcode, errorclass) != MPI_SUCCESS)
        return smap_failf(MPI_ERR_ARG, "%d is not an error code", errorcode);
    return MPI_SUCCESS;
}

int smap_err_string_of(int errorcode, char *string, int *resultlen)
{
    if (smap_error_string(errorcode, string, resultlen) != MPI_SUCCESS)
        return smap_failf(MPI_ERR_ARG, "%d is not an error code", errorcode);
    return MPI_SUCCESS;
}

int smap_user_error_add_class(int *errorclass)
{
    const char *why = "";
    int rc = smap_err_add_class(errorclass, &why);
    return fail_on(rc, why, NULL, 0);
}

int smap_user_error_add_code(int errorclass, int *errorcode)
{
    const char *why = "";
    int rc = smap_err_add_code(errorclass, errorcode, &why);
    return fail_on(rc, why, "errorclass", errorclass);
}

int smap_user_error_add_string(int errorcode, const char *string)
{
    const char *why = "";
    int rc = smap_err_add_string(errorcode, string, &why);
    return fail_on(rc, why, "errorcode", errorcode);
}

int smap_user_error_remove_class(int errorclass)
{
    const char *why = "";
    int rc = smap_err_remove_class(errorclass, &why);
    return fail_on(rc, why, "errorclass", errorclass);
}

int smap_user_error_remove_code(int errorcode)
{
    const char *why = "";
    int rc = smap_err_remove_code(errorcode, &why);
    return fail_on(rc, why, "errorcode", errorcode);
}

int smap_user_error_remove_string(int errorcode)
{
    const char *why = "";
    int rc = smap_err_remove_string(errorcode, &why);
    return fail_on(rc, why, "errorcode", errorcode);
}

/* ---- error handlers on communicators ---- */

int smap_comm_set_errhandler(struct MPI_ABI_Comm *c, MPI_Errhandler errhandler)
{
    if (!smap_errhandler_valid(errhandler))
        return smap_fail(MPI_ERR_ARG, "errhandler is not a valid error handler");
    smap_errhandler_retain(errhandler);
    MPI_Errhandler old = c->errhandler;
    c->errhandler = errhandler;
    smap_errhandler_release(old);
    return MPI_SUCCESS;
}

void smap_comm_get_errhandler(const struct MPI_ABI_Comm *c, MPI_Errhandler *errhandler)
{
    smap_errhandler_give(c->errhandler);
    *errhandler = c->errhandler;
}

int smap_errhandler_create_into(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    *errhandler = smap_errhandler_create(fn);
    if (*errhandler == MPI_ERRHANDLER_NULL)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

/* Freeing a handle obtained from MPI_Comm_get_errhandler is legal also when
 * it is a predefined handler; only the reference goes away. */
int smap_errhandler_free_handle(MPI_Errhandler *errhandler)
{
    if (!smap_errhandler_valid(*errhandler))
        return smap_fail(MPI_ERR_ARG, "*errhandler is not a valid error handler (freed already?)");
    smap_errhandler_drop(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
