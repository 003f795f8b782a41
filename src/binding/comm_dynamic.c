/* The dynamic-process entry points that mean something without spawning:
 * MPI_Comm_get_parent (a smartmap process is never spawned, so there is
 * no parent) and MPI_Comm_disconnect (on any communicator: waits for its
 * pending traffic, then frees it).  Spawn, connect and accept are
 * unsupported (docs/STATUS.md). */
#include <mpi.h>

#include "binding/check.h"
#include "mpi/comm.h"

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    SMAP_CHECK_RUNNING("MPI_Comm_get_parent");
    SMAP_CHECK_PTR("MPI_Comm_get_parent", MPI_COMM_NULL, parent);
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    static const char F[] = "MPI_Comm_disconnect";
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, comm);
    SMAP_CHECK_COMM(F, *comm, c);
    if (smap_comm_is_predefined(c))
        return smap_err_raise(*comm, MPI_ERR_COMM, F, "%s cannot be disconnected", c->name);
    /* MPI 5.0 §11.10.4: pending communication completes first, as if
     * MPI_Wait were called on it; then the communicator is freed */
    smap_comm_quiesce(c);
    return PMPI_Comm_free(comm);
}
