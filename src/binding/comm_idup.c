/* MPI_Comm_idup and MPI_Comm_idup_with_info: the argument checks; the
 * agreement as a schedule is src/comm/comm_idup.c. */
#include "binding/check.h"
#include "comm/comm_create.h"
#include "mpi/info.h"

static int idup(const char *F, MPI_Comm comm, MPI_Info info, int with_info, MPI_Comm *newcomm,
                MPI_Request *request)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, newcomm);
    SMAP_CHECK_PTR(F, comm, request);
    if (with_info && info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_err_raise(comm, MPI_ERR_INFO, F, "info is not a valid info object");
    return smap_comm_idup(c, info, with_info, newcomm, request, F);
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup("MPI_Comm_idup", comm, MPI_INFO_NULL, 0, newcomm, request);
}

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    return idup("MPI_Comm_idup_with_info", comm, info, 1, newcomm, request);
}
