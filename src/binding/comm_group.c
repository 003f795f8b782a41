/* MPI_Comm_create_group: collective over the group's members only, so the
 * members agree on a context id and a control block by point-to-point on
 * the parent: each sends its free masks and step counters to the group's
 * rank 0, which folds them (AND of the masks, maximum of the steps) and
 * sends the choice back.  The messages use the parent's context id plus
 * SMAP_CTX_MAX, a context no communicator has, so they never match the
 * parent's own traffic; the tag keeps concurrent creations apart. */
#include "binding/check.h"
#include "comm/comm_create.h"
#include "p2p/p2p.h"

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

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    static const char F[] = "MPI_Comm_create_group";
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, newcomm);
    struct MPI_ABI_Group *g = smap_group_get(group);
    if (!g)
        return smap_err_raise(comm, MPI_ERR_GROUP, F, "group is not a valid group");
    if (tag < 0)
        return smap_err_raise(comm, MPI_ERR_TAG, F, "tag %d is negative", tag);
    if (g->size == 0) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (g->my_rank == MPI_UNDEFINED)
        return smap_err_raise(comm, MPI_ERR_GROUP, F, "the calling process is not in group");
    if (bad_members(g, c))
        return smap_err_raise(comm, MPI_ERR_GROUP, F,
                              "group is not a subset of comm's group");
    struct smap_comm_ids ids;
    smap_comm_agree_p2p(c, g, tag, &ids);
    if (ids.ctx < 0)
        return smap_err_raise(comm, SMAP_ERR_NO_CTX, F, SMAP_NO_CTX_WHY, SMAP_NO_CTX_ARGS);
    smap_group_retain(g);
    return smap_comm_make(c, g, &ids, newcomm, F);
}
