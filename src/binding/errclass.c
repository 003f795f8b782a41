/* Entry points for user-defined error classes, codes and strings
 * (src/mpi/errors.c describes the values). */
#include <mpi.h>

#include "binding/check.h"

#define NOCOMM MPI_COMM_NULL

static int result(const char *func, int rc, const char *why)
{
    return rc == MPI_SUCCESS ? MPI_SUCCESS : smap_err_raise(NOCOMM, rc, func, "%s", why);
}

int PMPI_Add_error_class(int *errorclass)
{
    const char *why = "";
    SMAP_CHECK_RUNNING("MPI_Add_error_class");
    SMAP_CHECK_PTR("MPI_Add_error_class", NOCOMM, errorclass);
    return result("MPI_Add_error_class", smap_err_add_class(errorclass, &why), why);
}

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    const char *why = "";
    SMAP_CHECK_RUNNING("MPI_Add_error_code");
    SMAP_CHECK_PTR("MPI_Add_error_code", NOCOMM, errorcode);
    int rc = smap_err_add_code(errorclass, errorcode, &why);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(NOCOMM, rc, "MPI_Add_error_code", "%s (errorclass=%d)", why, errorclass);
    return MPI_SUCCESS;
}

int PMPI_Add_error_string(int errorcode, const char *string)
{
    const char *why = "";
    SMAP_CHECK_RUNNING("MPI_Add_error_string");
    SMAP_CHECK_PTR("MPI_Add_error_string", NOCOMM, string);
    int rc = smap_err_add_string(errorcode, string, &why);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(NOCOMM, rc, "MPI_Add_error_string", "%s (errorcode=%d)", why, errorcode);
    return MPI_SUCCESS;
}

int PMPI_Remove_error_class(int errorclass)
{
    const char *why = "";
    SMAP_CHECK_RUNNING("MPI_Remove_error_class");
    int rc = smap_err_remove_class(errorclass, &why);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(NOCOMM, rc, "MPI_Remove_error_class", "%s (errorclass=%d)", why,
                              errorclass);
    return MPI_SUCCESS;
}

int PMPI_Remove_error_code(int errorcode)
{
    const char *why = "";
    SMAP_CHECK_RUNNING("MPI_Remove_error_code");
    int rc = smap_err_remove_code(errorcode, &why);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(NOCOMM, rc, "MPI_Remove_error_code", "%s (errorcode=%d)", why,
                              errorcode);
    return MPI_SUCCESS;
}

int PMPI_Remove_error_string(int errorcode)
{
    const char *why = "";
    SMAP_CHECK_RUNNING("MPI_Remove_error_string");
    int rc = smap_err_remove_string(errorcode, &why);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(NOCOMM, rc, "MPI_Remove_error_string", "%s (errorcode=%d)", why,
                              errorcode);
    return MPI_SUCCESS;
}
