/* The operations behind the MPI 5.0 ABI entry points (MPI_Abi_get_info,
 * the Fortran info and booleans) and MPI_Get_hw_resource_info, called by
 * their generated stubs in src/binding/gen/abi.c once the pointers are
 * checked.  MPI_SUCCESS or an error class, the reason recorded (base/why.h).
 * The ABI ones work before MPI_Init and after MPI_Finalize (a program or a
 * Fortran layer checks the ABI before it starts MPI). */
#include <mpi.h>
#include <stddef.h>

#include "base/why.h"
#include "mpi/abi.h"
#include "mpi/info.h"

static int hand_out(struct MPI_ABI_Info *i, MPI_Info *info)
{
    if (!i)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    *info = smap_info_handle(i);
    return MPI_SUCCESS;
}

int smap_abi_get_info_into(MPI_Info *info)
{
    return hand_out(smap_abi_info(), info);
}

int smap_abi_get_fortran_info_into(MPI_Info *info)
{
    struct MPI_ABI_Info *i = NULL;
    (void)smap_abi_fortran_info(&i);
    return hand_out(i, info);
}

int smap_hw_resource_info_into(MPI_Info *hw_info)
{
    return hand_out(smap_hw_resource_info(), hw_info);
}

int smap_abi_set_fortran_info_from(const struct MPI_ABI_Info *i)
{
    int rc = smap_abi_set_fortran_info(i);
    return rc == MPI_SUCCESS ? rc : smap_fail(rc, "out of memory");
}

/* A Fortran LOGICAL is 1, 2, 4, 8 or 16 bytes. */
static int check_logical_size(int n)
{
    if (n == 1 || n == 2 || n == 4 || n == 8 || n == 16)
        return MPI_SUCCESS;
    return smap_failf(MPI_ERR_ARG, "logical_size %d is not 1, 2, 4, 8 or 16", n);
}

int smap_abi_set_booleans(int logical_size, const void *logical_true, const void *logical_false)
{
    int rc = check_logical_size(logical_size);
    if (rc == MPI_SUCCESS)
        smap_abi_set_fortran_booleans(logical_size, logical_true, logical_false);
    return rc;
}

int smap_abi_get_booleans(int logical_size, void *logical_true, void *logical_false, int *is_set)
{
    int rc = check_logical_size(logical_size);
    if (rc == MPI_SUCCESS)
        *is_set = smap_abi_get_fortran_booleans(logical_size, logical_true, logical_false);
    return rc;
}
