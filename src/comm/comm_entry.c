/* The checks the MPI_Comm_split(_type), MPI_Comm_create_group and
 * MPI_Intercomm_create entry points need beyond their arguments' kinds
 * (a color, a split type, the group's members, the leaders), then the
 * construction (comm_split.c, comm_agree.c, inter_create.c).  Called by
 * their generated stubs in src/binding/gen/comm.c; each raises its errors
 * on the parent's handler in the name `func`. */
#include <mpi.h>
#include <string.h>

#include "boot/boot.h"
#include "comm/comm_create.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "mpi/intercomm.h"
#include "p2p/p2p.h"

int smap_comm_split_color(struct MPI_ABI_Comm *c, int color, int key, MPI_Comm *newcomm,
                          const char *func)
{
    if (color < 0 && color != MPI_UNDEFINED)
        return smap_err_raise(c->handle, MPI_ERR_ARG, func,
                              "color %d is negative and not MPI_UNDEFINED", color);
    return smap_comm_split(c, color, key, newcomm, func);
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

int smap_comm_split_type(struct MPI_ABI_Comm *c, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm, const char *func)
{
    int color = type_color(c, split_type, info);
    if (color == -2)
        return smap_err_raise(c->handle, MPI_ERR_ARG, func, "split_type %d is not a known type",
                              split_type);
    return smap_comm_split(c, color, key, newcomm, func);
}

/* Whether some member of g is not in c's group or cannot be reached. */
static int bad_members(const struct MPI_ABI_Group *g, const struct MPI_ABI_Comm *c)
{
    for (int i = 0; i < g->size; i++) {
        int w = smap_group_world_rank(g, i);
        if (smap_group_find(c->group, w) < 0 ||
            smap_p2p_local_rank(w) == SMAP_P2P_NO_ROUTE)
            return 1;
    }
    return 0;
}

/* MPI_Comm_create_group: collective over the group's members only, so the
 * members agree on a context id and a control block by point-to-point on
 * the parent (smap_comm_agree_p2p); the tag keeps concurrent creations
 * apart. */
int smap_comm_create_group(struct MPI_ABI_Comm *c, struct MPI_ABI_Group *g, int tag,
                           MPI_Comm *newcomm, const char *func)
{
    if (tag < 0)
        return smap_err_raise(c->handle, MPI_ERR_TAG, func, "tag %d is negative", tag);
    if (g->size == 0) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (g->my_rank == MPI_UNDEFINED)
        return smap_err_raise(c->handle, MPI_ERR_GROUP, func,
                              "the calling process is not in group");
    if (bad_members(g, c))
        return smap_err_raise(c->handle, MPI_ERR_GROUP, func,
                              "group is not a subset of comm's group");
    struct smap_comm_ids ids;
    smap_comm_agree_p2p(c, g, tag, &ids);
    if (ids.ctx < 0)
        return smap_err_raise(c->handle, SMAP_ERR_NO_CTX, func, SMAP_NO_CTX_WHY,
                              SMAP_NO_CTX_ARGS);
    smap_group_retain(g);
    return smap_comm_make(c, g, &ids, newcomm, func);
}

int smap_inter_create_checked(struct MPI_ABI_Comm *lc, int local_leader, MPI_Comm peer_comm,
                              int remote_leader, int tag, MPI_Comm *newintercomm,
                              const char *func)
{
    if (smap_comm_is_inter(lc))
        return smap_err_raise(lc->handle, MPI_ERR_COMM, func,
                              "local_comm is an intercommunicator");
    if (local_leader < 0 || local_leader >= lc->size)
        return smap_err_raise(lc->handle, MPI_ERR_RANK, func,
                              "local_leader %d is not a rank of local_comm (size %d)",
                              local_leader, lc->size);
    return smap_inter_create(lc, local_leader, peer_comm, remote_leader, tag, newintercomm, func);
}
