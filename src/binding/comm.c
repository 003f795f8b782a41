/* Entry points on communicators: rank, size, barrier (creation and free:
 * comm_create.c, comm_split.c). */
#include <mpi.h>

#include "binding/check.h"
#include "binding/intercomm.h"
#include "coll/coll.h"

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

/* MPI_Barrier: through the communicator's table (src/coll/dispatch.c):
 * WORLD of a job on one node takes the SMARTMAP node barrier
 * (src/coll/smap/world_barrier.c), a communicator spanning nodes the
 * hierarchy, others their control blocks or a schedule (which keeps
 * point-to-point moving; the launcher's barrier would not). */
int PMPI_Barrier(MPI_Comm comm)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING("MPI_Barrier");
    SMAP_CHECK_COMM("MPI_Barrier", comm, c);
    if (smap_comm_is_inter(c))
        return inter_barrier("MPI_Barrier", comm, c, NULL);
    if (c->size <= 1)
        return MPI_SUCCESS;
    int rc = smap_coll_barrier(c);
    return rc ? smap_err_raise(comm, rc, "MPI_Barrier", "%s", smap_why()) : MPI_SUCCESS;
}
