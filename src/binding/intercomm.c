/* Intercommunicators: the argument checks of MPI_Intercomm_create,
 * MPI_Intercomm_merge and MPI_Comm_remote_size / remote_group.  The
 * constructors' agreement is src/comm/inter_create.c. */
#include "binding/check.h"
#include "binding/intercomm.h"
#include "comm/comm_create.h"

/* The entry of a function defined on intercommunicators only, with the
 * output argument `out`: c = comm's object. */
#define INTER_ENTER(func, comm, c, out)                                                    \
    do {                                                                                   \
        SMAP_CHECK_RUNNING(func);                                                          \
        SMAP_CHECK_COMM(func, comm, c);                                                    \
        SMAP_CHECK_PTR(func, comm, out);                                                   \
        if (SMAP_UNLIKELY(!smap_comm_is_inter(c)))                                         \
            return smap_err_raise(comm, MPI_ERR_COMM, func, "%s",                          \
                                  "comm is not an intercommunicator");                     \
    } while (0)

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    static const char F[] = "MPI_Intercomm_create";
    struct MPI_ABI_Comm *lc;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, local_comm, lc);
    SMAP_CHECK_PTR(F, local_comm, newintercomm);
    if (smap_comm_is_inter(lc))
        return smap_err_raise(local_comm, MPI_ERR_COMM, F, "local_comm is an intercommunicator");
    if (local_leader < 0 || local_leader >= lc->size)
        return smap_err_raise(local_comm, MPI_ERR_RANK, F,
                              "local_leader %d is not a rank of local_comm (size %d)",
                              local_leader, lc->size);
    return smap_inter_create(lc, local_leader, peer_comm, remote_leader, tag, newintercomm, F);
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char F[] = "MPI_Intercomm_merge";
    struct MPI_ABI_Comm *c;
    INTER_ENTER(F, intercomm, c, newintracomm);
    return smap_inter_merge(c, high, newintracomm, F);
}

/* ---- queries ------------------------------------------------------------- */

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    static const char F[] = "MPI_Comm_remote_size";
    struct MPI_ABI_Comm *c;
    INTER_ENTER(F, comm, c, size);
    *size = c->remote_group->size;
    return MPI_SUCCESS;
}

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    static const char F[] = "MPI_Comm_remote_group";
    struct MPI_ABI_Comm *c;
    INTER_ENTER(F, comm, c, group);
    smap_group_retain(c->remote_group);
    *group = smap_group_handle(c->remote_group);
    return MPI_SUCCESS;
}
