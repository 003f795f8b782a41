/* MPI_Alloc_mem and MPI_Free_mem.
 *
 * The memory comes from malloc, which the symmetric heap serves
 * (src/smap/heap.c): it is already exposed to node peers, so nothing
 * special is needed for single-copy transfers from or into it.  No info
 * key changes that; valid info objects are accepted and ignored, as MPI
 * allows. */
#include <mpi.h>
#include <stdlib.h>

#include "binding/check.h"
#include "mpi/info.h"

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char func[] = "MPI_Alloc_mem";
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_PTR(func, MPI_COMM_WORLD, baseptr);
    if (size < 0)
        return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, func, "size %lld is negative",
                              (long long)size);
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_INFO, func,
                              "info is not a valid info object");
    /* at least one byte: every successful call returns a distinct address */
    void *p = malloc(size > 0 ? (size_t)size : 1);
    if (!p)
        return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, func,
                              "cannot allocate %lld bytes", (long long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int PMPI_Free_mem(void *base)
{
    SMAP_CHECK_RUNNING("MPI_Free_mem");
    free(base);
    return MPI_SUCCESS;
}
