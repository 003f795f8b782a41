/* The MPI 5.0 ABI functions (MPI_Abi_get_info, the Fortran info and
 * booleans; MPI_Abi_get_version is in environment.c) and MPI_Get_hw_resource_info.  The ABI ones
 * may be called before MPI_Init and after MPI_Finalize (a program or a
 * Fortran layer checks the ABI before it starts MPI); state in
 * src/mpi/abi.c. */
#include "binding/check.h"
#include "mpi/abi.h"
#include "mpi/info.h"

static int hand_out(const char *F, struct MPI_ABI_Info *i, MPI_Info *info)
{
    if (!i)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, F, "%s", "out of memory");
    *info = smap_info_handle(i);
    return MPI_SUCCESS;
}

int PMPI_Abi_get_info(MPI_Info *info)
{
    SMAP_CHECK_PTR("MPI_Abi_get_info", MPI_COMM_NULL, info);
    return hand_out("MPI_Abi_get_info", smap_abi_info(), info);
}

int PMPI_Abi_get_fortran_info(MPI_Info *info)
{
    SMAP_CHECK_PTR("MPI_Abi_get_fortran_info", MPI_COMM_NULL, info);
    struct MPI_ABI_Info *i = NULL;
    (void)smap_abi_fortran_info(&i);
    return hand_out("MPI_Abi_get_fortran_info", i, info);
}

int PMPI_Abi_set_fortran_info(MPI_Info info)
{
    static const char F[] = "MPI_Abi_set_fortran_info";
    struct MPI_ABI_Info *i = smap_info_get(info);
    if (!i)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_INFO, F, "%s",
                              "info is not a valid info object");
    int rc = smap_abi_set_fortran_info(i);
    return rc == MPI_SUCCESS ? rc : smap_err_raise(MPI_COMM_NULL, rc, F, "%s", "out of memory");
}

/* A Fortran LOGICAL is 1, 2, 4, 8 or 16 bytes. */
static int bad_logical_size(int n)
{
    return !(n == 1 || n == 2 || n == 4 || n == 8 || n == 16);
}

int PMPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
    static const char F[] = "MPI_Abi_set_fortran_booleans";
    if (bad_logical_size(logical_size))
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F,
                              "logical_size %d is not 1, 2, 4, 8 or 16", logical_size);
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, logical_true);
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, logical_false);
    smap_abi_set_fortran_booleans(logical_size, logical_true, logical_false);
    return MPI_SUCCESS;
}

int PMPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false,
                                  int *is_set)
{
    static const char F[] = "MPI_Abi_get_fortran_booleans";
    if (bad_logical_size(logical_size))
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F,
                              "logical_size %d is not 1, 2, 4, 8 or 16", logical_size);
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, logical_true);
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, logical_false);
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, is_set);
    *is_set = smap_abi_get_fortran_booleans(logical_size, logical_true, logical_false);
    return MPI_SUCCESS;
}

int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    SMAP_CHECK_RUNNING("MPI_Get_hw_resource_info");
    SMAP_CHECK_PTR("MPI_Get_hw_resource_info", MPI_COMM_NULL, hw_info);
    return hand_out("MPI_Get_hw_resource_info", smap_hw_resource_info(), hw_info);
}
