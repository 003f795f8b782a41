/* The dynamic-process calls as the entry points make them: what the
 * parameter kinds cannot check (a root's arguments matter at the root
 * only, MPI 5.0 §11.8), then one call into this layer. */
#include "spawn/entry.h"

#include "comm/comm_create.h"
#include "mpi/comm.h"
#include "mpi/errors.h"
#include "mpi/intercomm.h"
#include "spawn/spawn.h"

/* comm is an intracommunicator and root a rank of it: MPI_SUCCESS, else the raised error. */
static int check_intra_root(const char *F, struct MPI_ABI_Comm *c, int root)
{
    if (smap_comm_is_inter(c))
        return smap_err_raise(c->handle, MPI_ERR_COMM, F, "comm is an intercommunicator");
    if (root < 0 || root >= c->size)
        return smap_err_raise(c->handle, MPI_ERR_ROOT, F, "root %d is not a rank of comm (size %d)",
                              root, c->size);
    return MPI_SUCCESS;
}

static int accept_connect(const char *port, int root, struct MPI_ABI_Comm *c, MPI_Comm *newcomm,
                          int accept, const char *F)
{
    int rc = check_intra_root(F, c, root);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->rank == root && !port)
        return smap_err_raise(c->handle, MPI_ERR_ARG, F, "port_name is NULL at root");
    return accept ? smap_spawn_accept(port, root, c, newcomm, F)
                  : smap_spawn_connect(port, root, c, newcomm, F);
}

int smap_spawn_accept_checked(const char *port, int root, struct MPI_ABI_Comm *c,
                              MPI_Comm *newcomm, const char *F)
{
    return accept_connect(port, root, c, newcomm, 1, F);
}

int smap_spawn_connect_checked(const char *port, int root, struct MPI_ABI_Comm *c,
                               MPI_Comm *newcomm, const char *F)
{
    return accept_connect(port, root, c, newcomm, 0, F);
}

int smap_spawn_multiple_checked(int count, char *cmds[], char **argvs[], const int maxprocs[],
                                const MPI_Info infos[], int root, struct MPI_ABI_Comm *c,
                                MPI_Comm *intercomm, int errcodes[], const char *F)
{
    int rc = check_intra_root(F, c, root);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->rank == root) {   /* the other arguments matter at root only */
        if (count <= 0)
            return smap_err_raise(c->handle, MPI_ERR_ARG, F, "count %d is not positive", count);
        for (int i = 0; i < count; i++) {
            if (!cmds || !cmds[i] || !cmds[i][0])
                return smap_err_raise(c->handle, MPI_ERR_ARG, F, "command %d is NULL or empty", i);
            if (!maxprocs || maxprocs[i] <= 0)
                return smap_err_raise(c->handle, MPI_ERR_ARG, F,
                                      "maxprocs of command %d is not positive", i);
        }
    }
    return smap_spawn_multiple(count, cmds, argvs == MPI_ARGVS_NULL ? NULL : argvs, maxprocs,
                               infos, root, c, intercomm,
                               errcodes == MPI_ERRCODES_IGNORE ? NULL : errcodes, F);
}

int smap_spawn_one(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                   struct MPI_ABI_Comm *c, MPI_Comm *intercomm, int errcodes[], const char *F)
{
    char *cmds[1] = { (char *)command };
    char **argvs[1] = { argv == MPI_ARGV_NULL ? NULL : argv };
    return smap_spawn_multiple_checked(1, cmds, argvs, &maxprocs, &info, root, c, intercomm,
                                       errcodes, F);
}

/* MPI 5.0 §11.10.4: pending communication completes first, as if MPI_Wait
 * were called on it; then the communicator is freed. */
int smap_spawn_comm_disconnect(MPI_Comm *comm, struct MPI_ABI_Comm *c, const char *F)
{
    if (smap_comm_is_predefined(c))
        return smap_err_raise(c->handle, MPI_ERR_COMM, F, "%s cannot be disconnected", c->name);
    smap_comm_quiesce(c);
    smap_spawn_disconnect(c);
    smap_spawn_forget_parent(*comm);
    int n = 0, *peers = smap_spawn_node_peers(c, &n);
    int rc = smap_comm_free(comm, c, F);
    smap_spawn_retire(peers, n);
    return rc;
}
