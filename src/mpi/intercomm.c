/* Intercommunicator objects (see intercomm.h); their constructors are in
 * src/comm/inter_create.c, their collectives in src/coll/inter. */
#include "mpi/intercomm.h"

struct MPI_ABI_Comm *smap_inter_new(const struct MPI_ABI_Comm *parent, struct MPI_ABI_Group *local,
                                    struct MPI_ABI_Group *remote, int ctx)
{
    /* no control block: the collectives go over point-to-point */
    struct MPI_ABI_Comm *c = smap_comm_new(parent, local, ctx, -1);
    if (!c) {
        smap_group_release(remote);
        return NULL;
    }
    c->remote_group = remote;
    return c;
}

int smap_inter_compare(const struct MPI_ABI_Comm *a, const struct MPI_ABI_Comm *b)
{
    if (!smap_comm_is_inter(a) || !smap_comm_is_inter(b))
        return MPI_UNEQUAL;
    int l = smap_group_compare(a->group, b->group);
    int r = smap_group_compare(a->remote_group, b->remote_group);
    if (l == MPI_UNEQUAL || r == MPI_UNEQUAL)
        return MPI_UNEQUAL;
    if (l == MPI_IDENT && r == MPI_IDENT)
        return MPI_CONGRUENT;
    return MPI_SIMILAR;
}
