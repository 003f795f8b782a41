/* Intercommunicators: a communicator whose point-to-point peers are the
 * members of another, disjoint group (the remote group).  The object is an
 * ordinary struct MPI_ABI_Comm whose `group`, `rank` and `size` describe the
 * local group (MPI_Comm_rank/size/group) and whose `remote_group` holds the
 * remote one; `ctx` is agreed by every member of both groups.
 *
 * Matching: a member sends with its local rank as the source and addresses
 * the peer through remote_group, so user point-to-point needs nothing else.
 * The intercommunicator's collectives (src/coll/inter) run over internal
 * point-to-point on context ctx + SMAP_CTX_MAX (no live communicator has
 * such a context), tag SMAP_INTER_TAG_REMOTE towards the other group and
 * SMAP_INTER_TAG_LOCAL within this one: they never match user messages, and
 * an intercommunicator needs no collectives control block (there are only
 * six, src/coll).  local_comm stays NULL: nothing needs a local
 * intracommunicator object. */
#ifndef SMAP_MPI_INTERCOMM_H
#define SMAP_MPI_INTERCOMM_H

#include "mpi/comm.h"
#include "mpi/group.h"

#define SMAP_INTER_TAG_REMOTE 0
#define SMAP_INTER_TAG_LOCAL 1

static inline int smap_comm_is_inter(const struct MPI_ABI_Comm *c)
{
    return c->remote_group != NULL;
}

/* The context the intercommunicator's internal messages use. */
static inline int smap_inter_coll_ctx(const struct MPI_ABI_Comm *c)
{
    return c->ctx + SMAP_CTX_MAX;
}

/* A new intercommunicator with local group `local` and remote group
 * `remote` (both references taken over; this rank is in `local`), context
 * ctx, inheriting parent's error handler.  NULL when out of memory (the
 * groups are released then). */
struct MPI_ABI_Comm *smap_inter_new(const struct MPI_ABI_Comm *parent, struct MPI_ABI_Group *local,
                                    struct MPI_ABI_Group *remote, int ctx);

/* MPI_Comm_compare for two distinct communicators of which at least one is
 * an intercommunicator: CONGRUENT when both groups are identical, SIMILAR
 * when both are similar, else UNEQUAL (also inter vs intra). */
int smap_inter_compare(const struct MPI_ABI_Comm *a, const struct MPI_ABI_Comm *b);

#endif
