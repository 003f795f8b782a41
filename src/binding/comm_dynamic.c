/* The dynamic-process entry points (DESIGN.md D17): argument checks, then
 * one call into src/spawn.  MPI_Comm_disconnect works on any
 * communicator: it waits for its pending traffic, then frees it. */
#include <mpi.h>
#include <string.h>

#include "binding/check.h"
#include "mpi/comm.h"
#include "mpi/intercomm.h"
#include "spawn/spawn.h"

/* comm is an intracommunicator and root a rank of it: MPI_SUCCESS, else the raised error. */
static int check_intra_root(const char *F, MPI_Comm comm, struct MPI_ABI_Comm *c, int root)
{
    if (smap_comm_is_inter(c))
        return smap_err_raise(comm, MPI_ERR_COMM, F, "comm is an intercommunicator");
    if (root < 0 || root >= c->size)
        return smap_err_raise(comm, MPI_ERR_ROOT, F, "root %d is not a rank of comm (size %d)",
                              root, c->size);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    SMAP_CHECK_RUNNING("MPI_Comm_get_parent");
    SMAP_CHECK_PTR("MPI_Comm_get_parent", MPI_COMM_NULL, parent);
    *parent = smap_spawn_parent();
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
    smap_spawn_disconnect(c);
    smap_spawn_forget_parent(*comm);
    int n = 0, *peers = smap_spawn_node_peers(c, &n);
    int rc = PMPI_Comm_free(comm);
    smap_spawn_retire(peers, n);
    return rc;
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    static const char F[] = "MPI_Open_port";
    (void)info;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_PTR(F, MPI_COMM_WORLD, port_name);
    return smap_port_open(port_name, F);
}

int PMPI_Close_port(const char *port_name)
{
    static const char F[] = "MPI_Close_port";
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_PTR(F, MPI_COMM_WORLD, port_name);
    return smap_port_close(port_name, F);
}

static int accept_connect(const char *F, const char *port_name, int root, MPI_Comm comm,
                          MPI_Comm *newcomm, int accept)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, newcomm);
    int rc = check_intra_root(F, comm, c, root);
    if (rc != MPI_SUCCESS)
        return rc;
    /* port_name is significant at root only */
    if (c->rank == root && !port_name)
        return smap_err_raise(comm, MPI_ERR_ARG, F, "port_name is NULL at root");
    return accept ? smap_spawn_accept(port_name, root, c, newcomm, F)
                  : smap_spawn_connect(port_name, root, c, newcomm, F);
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    (void)info;
    return accept_connect("MPI_Comm_accept", port_name, root, comm, newcomm, 1);
}

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    (void)info;
    return accept_connect("MPI_Comm_connect", port_name, root, comm, newcomm, 0);
}

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    static const char F[] = "MPI_Comm_join";
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_PTR(F, MPI_COMM_SELF, intercomm);
    if (fd < 0)
        return smap_err_raise(MPI_COMM_SELF, MPI_ERR_ARG, F, "fd %d is negative", fd);
    return smap_spawn_join(fd, intercomm, F);
}

static int spawn_checked(const char *F, int count, char *cmds[], char **argvs[],
                         const int maxprocs[], const MPI_Info infos[], int root, MPI_Comm comm,
                         MPI_Comm *intercomm, int errcodes[])
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, intercomm);
    int rc = check_intra_root(F, comm, c, root);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->rank == root) {   /* the other arguments matter at root only */
        if (count <= 0)
            return smap_err_raise(comm, MPI_ERR_ARG, F, "count %d is not positive", count);
        for (int i = 0; i < count; i++) {
            if (!cmds || !cmds[i] || !cmds[i][0])
                return smap_err_raise(comm, MPI_ERR_ARG, F, "command %d is NULL or empty", i);
            if (!maxprocs || maxprocs[i] <= 0)
                return smap_err_raise(comm, MPI_ERR_ARG, F,
                                      "maxprocs of command %d is not positive", i);
        }
    }
    return smap_spawn_multiple(count, cmds, argvs, maxprocs, infos, root, c, intercomm,
                               errcodes == MPI_ERRCODES_IGNORE ? NULL : errcodes, F);
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    char *cmds[1] = { (char *)command };
    char **argvs[1] = { argv == MPI_ARGV_NULL ? NULL : argv };
    return spawn_checked("MPI_Comm_spawn", 1, cmds, argvs, &maxprocs, &info, root, comm,
                         intercomm, array_of_errcodes);
}

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm,
                             int array_of_errcodes[])
{
    return spawn_checked("MPI_Comm_spawn_multiple", count, array_of_commands,
                         array_of_argv == MPI_ARGVS_NULL ? NULL : array_of_argv,
                         array_of_maxprocs, array_of_info, root, comm, intercomm,
                         array_of_errcodes);
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char F[] = "MPI_Publish_name";
    (void)info;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_PTR(F, MPI_COMM_WORLD, service_name);
    SMAP_CHECK_PTR(F, MPI_COMM_WORLD, port_name);
    return smap_name_publish(service_name, port_name, F);
}

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char F[] = "MPI_Unpublish_name";
    (void)info;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_PTR(F, MPI_COMM_WORLD, service_name);
    return smap_name_unpublish(service_name, port_name, F);
}

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    static const char F[] = "MPI_Lookup_name";
    (void)info;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_PTR(F, MPI_COMM_WORLD, service_name);
    SMAP_CHECK_PTR(F, MPI_COMM_WORLD, port_name);
    return smap_name_lookup(service_name, port_name, F);
}
