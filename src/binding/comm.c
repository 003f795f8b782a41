/* Entry points on communicators (the predefined ones for now). */
#include <mpi.h>

#include "binding/check.h"
#include "boot/boot.h"

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING("MPI_Comm_rank");
    SMAP_CHECK_COMM("MPI_Comm_rank", comm, c);
    SMAP_CHECK_PTR("MPI_Comm_rank", comm, rank);
    *rank = c->rank;
    return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING("MPI_Comm_size");
    SMAP_CHECK_COMM("MPI_Comm_size", comm, c);
    SMAP_CHECK_PTR("MPI_Comm_size", comm, size);
    *size = c->size;
    return MPI_SUCCESS;
}

/* Over the bootstrap for now: correct, not fast; the collectives issue
 * replaces it with the SMARTMAP barrier. */
int PMPI_Barrier(MPI_Comm comm)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING("MPI_Barrier");
    SMAP_CHECK_COMM("MPI_Barrier", comm, c);
    if (c->size > 1 && smap_boot_barrier() != 0)
        return smap_err_raise(comm, MPI_ERR_OTHER, "MPI_Barrier", "the launcher's barrier failed");
    return MPI_SUCCESS;
}
