/* Process topologies (MPI 5.0 chapter 8): MPI_Dims_create, the Cartesian,
 * graph and distributed graph constructors and queries, MPI_Topo_test.
 * Arguments are checked here; the topology object and its arithmetic live
 * in src/topo/.  Constructors build the new communicator with the same
 * machinery as MPI_Comm_create (smap_comm_agree + smap_comm_make): reorder is
 * accepted and ignored, every process keeps its rank.
 *
 * This file: the shared constructor; MPI_Dims_create and MPI_Topo_test are
 * generated (gen/topo.c, the arithmetic in src/topo/dims.c); topo_cart.c and
 * topo_graph.c hold the rest. */
#include <mpi.h>
#include <stdlib.h>

#include "binding/check.h"
#include "binding/topo_common.h"
#include "comm/comm_create.h"
#include "mpi/info.h"
#include "topo/topo.h"


/* ---- shared: the constructor ---------------------------------------------- */

/* The group of c's first n ranks (one reference); NULL when out of memory. */
static struct MPI_ABI_Group *prefix_group(struct MPI_ABI_Comm *c, int n)
{
    if (n == c->size) {
        smap_group_retain(c->group);
        return c->group;
    }
    int *world = malloc((size_t)n * sizeof *world);
    if (!world)
        return NULL;
    for (int i = 0; i < n; i++)
        world[i] = smap_group_world_rank(c->group, i);
    return smap_group_from_world(n, world);
}

/* Collective over c: the communicator of c's first n ranks, each keeping
 * its rank, with topology t attached; the other ranks get MPI_COMM_NULL
 * (and pass t == NULL).  t is taken over; NULL on a member means it could
 * not be built (out of memory), which is raised after the agreement so
 * that the other members do not wait forever. */
int topo_comm_new(struct MPI_ABI_Comm *c, int n, struct smap_topo *t, MPI_Comm *newcomm,
               const char *func)
{
    struct smap_comm_ids ids;
    int rc = smap_comm_agree(c, &ids, func);
    *newcomm = MPI_COMM_NULL;
    if (rc != MPI_SUCCESS || c->rank >= n) {
        smap_topo_free(t);
        return rc;
    }
    struct MPI_ABI_Group *g = t ? prefix_group(c, n) : NULL;
    if (!g) {
        smap_topo_free(t);
        return smap_err_raise(c->handle, MPI_ERR_NO_MEM, func, "out of memory");
    }
    rc = smap_comm_make(c, g, &ids, newcomm, func);
    if (rc != MPI_SUCCESS) {
        smap_topo_free(t);
        return rc;
    }
    (*newcomm)->topo = t;
    return MPI_SUCCESS;
}

int topo_check_info(const char *func, MPI_Comm comm, MPI_Info info)
{
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_err_raise(comm, MPI_ERR_INFO, func, "info is not a valid info object");
    return MPI_SUCCESS;
}
