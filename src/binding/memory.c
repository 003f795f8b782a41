/* MPI_Alloc_mem and MPI_Free_mem.
 *
 * The memory comes from malloc, which the symmetric heap serves
 * (src/smap/heap.c): it is already exposed to node peers, so nothing
 * special is needed for single-copy transfers from or into it.  No info
 * key changes that; valid info objects are accepted and ignored, as MPI
 * allows.  The live blocks are recorded (src/mpi/mem.c) so that freeing
 * anything else is an error rather than a crash in the heap. */
#include <mpi.h>
#include <stdlib.h>

#include "binding/check.h"
#include "mpi/info.h"
#include "mpi/mem.h"

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
    void *p = smap_mem_alloc((size_t)size);
    if (!p)
        return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, func,
                              "cannot allocate %lld bytes", (long long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int PMPI_Free_mem(void *base)
{
    static const char func[] = "MPI_Free_mem";
    SMAP_CHECK_RUNNING(func);
    /* NULL is accepted, as free(NULL) is and the peers do */
    if (base && smap_mem_free(base) != 0)
        return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_BASE, func,
                              "%p is not a block MPI_Alloc_mem returned (or it was freed already)",
                              base);
    return MPI_SUCCESS;
}
