/* MPI_Comm_split and MPI_Comm_split_type: every member publishes (color,
 * key) and all agree on one context id (src/comm/comm_split.c); here the
 * argument checks and split_type's color. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "binding/check.h"
#include "comm/comm_create.h"
#include "boot/boot.h"
#include "mpi/info.h"

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    static const char F[] = "MPI_Comm_split";
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, newcomm);
    if (color < 0 && color != MPI_UNDEFINED)
        return smap_err_raise(comm, MPI_ERR_ARG, F, "color %d is negative and not MPI_UNDEFINED",
                              color);
    return smap_comm_split(c, color, key, newcomm, F);
}

/* The color of this rank for split_type.  Memory is shared by the ranks
 * of a node, and we know no finer hardware level (no topology query yet):
 *   SHARED                    the node
 *   HW_GUIDED, RESOURCE_GUIDED
 *                             the node when info names "mpi_shared_memory"
 *                             in mpi_hw_resource_type, else MPI_COMM_NULL
 *                             (MPI 5.0 §7.4.2: a resource type the
 *                             implementation does not know gives NULL)
 *   HW_UNGUIDED               a strict subset of comm's group: the node if
 *                             comm spans several, else MPI_COMM_NULL (no
 *                             finer level).
 * -2: split_type is not a type at all. */
static int type_color(const struct MPI_ABI_Comm *c, int split_type, MPI_Info info)
{
    int node = smap_job.node;
    switch (split_type) {
    case MPI_UNDEFINED:
        return MPI_UNDEFINED;
    case MPI_COMM_TYPE_SHARED:
        return node;
    case MPI_COMM_TYPE_RESOURCE_GUIDED:
    case MPI_COMM_TYPE_HW_GUIDED: {
        const struct MPI_ABI_Info *i = info == MPI_INFO_NULL ? NULL : smap_info_get(info);
        const char *v = i ? smap_info_lookup(i, "mpi_hw_resource_type") : NULL;
        return v && !strcmp(v, "mpi_shared_memory") ? node : MPI_UNDEFINED;
    }
    case MPI_COMM_TYPE_HW_UNGUIDED:
        for (int r = 0; r < c->size; r++) {
            int w = smap_group_world_rank(c->group, r);
            if (w >= smap_job.size || (smap_job.node_of && smap_job.node_of[w] != node))
                return node;
        }
        return MPI_UNDEFINED;
    default:
        return -2;
    }
}

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    static const char F[] = "MPI_Comm_split_type";
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, newcomm);
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_err_raise(comm, MPI_ERR_INFO, F, "info is not a valid info object");
    int color = type_color(c, split_type, info);
    if (color == -2)
        return smap_err_raise(comm, MPI_ERR_ARG, F, "split_type %d is not a known type",
                              split_type);
    return smap_comm_split(c, color, key, newcomm, F);
}
