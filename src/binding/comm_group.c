/* MPI_Comm_create_group: collective over the group's members only, so the
 * members agree on a context id and a control block by point-to-point on
 * the parent: each sends its free masks and step counters to the group's
 * rank 0, which folds them (AND of the masks, maximum of the steps) and
 * sends the choice back.  The messages use the parent's context id plus
 * SMAP_CTX_MAX, a context no communicator has, so they never match the
 * parent's own traffic; the tag keeps concurrent creations apart. */
#include "binding/comm_create.h"
#include "binding/p2p_common.h"
#include "coll/coll.h"

/* ids.ctx sent back when some member did not offer: another round. */
#define RETRY_CTX (-2)

/* Blocking exchange with group member i (its parent rank and local rank
 * from the group's job rank). */
static void xfer(struct MPI_ABI_Comm *p, const struct MPI_ABI_Group *g, int i, void *buf,
                 size_t bytes, int tag, int send)
{
    int w = smap_group_world_rank(g, i);
    int prank = smap_group_find(p->group, w);
    smap_dtype_t *t = smap_dtype_get(MPI_BYTE);
    struct smap_preq r;
    if (send)
        smap_p2p_isend(&r, buf, (MPI_Count)bytes, t, prank, smap_p2p_local_rank(w), p->rank, tag,
                       p->ctx + SMAP_CTX_MAX, SMAP_P2P_STANDARD);
    else
        smap_p2p_irecv(&r, buf, (MPI_Count)bytes, t, prank, tag, p->ctx + SMAP_CTX_MAX);
    p2p_wait(&r);
}

/* (shared with intercomm.c: see comm_create.h) */
int comm_offer_mine(struct comm_offer *o, uint64_t key)
{
    o->mask[SMAP_CTX_WORDS] = smap_coll_slots_free();
    o->offered = (uint32_t)smap_comm_ctx_offer(key, o->mask, &o->mask[SMAP_CTX_WORDS]);
    for (int k = 0; k < SMAP_COLL_NSLOTS; k++)
        o->step[k] = smap_coll_slot_step(k);
    return (int)o->offered;
}

void comm_offer_fold(struct comm_offer *o, const struct comm_offer *x)
{
    for (int j = 0; j <= SMAP_CTX_WORDS; j++)
        o->mask[j] &= x->mask[j];
    o->offered &= x->offered;
    for (int k = 0; k < SMAP_COLL_NSLOTS; k++)
        o->step[k] = x->step[k] > o->step[k] ? x->step[k] : o->step[k];
}

/* At the group's rank 0: every member's offer folded into o. */
static void fold_offers(struct MPI_ABI_Comm *p, const struct MPI_ABI_Group *g,
                        struct comm_offer *o, int tag)
{
    for (int i = 1; i < g->size; i++) {
        struct comm_offer x;
        xfer(p, g, i, &x, sizeof x, tag, 0);
        comm_offer_fold(o, &x);
    }
}

/* One round: the choice, or ids->ctx RETRY_CTX. */
static void agree_round(struct MPI_ABI_Comm *p, const struct MPI_ABI_Group *g, int tag,
                        struct comm_offer *o, struct comm_ids *ids)
{
    if (g->my_rank != 0) {
        xfer(p, g, 0, o, sizeof *o, tag, 1);
        xfer(p, g, 0, ids, sizeof *ids, tag, 0);
        return;
    }
    fold_offers(p, g, o, tag);
    ids->ctx = o->offered ? smap_comm_ctx_pick(o->mask) : RETRY_CTX;
    ids->slot = o->offered && o->mask[SMAP_CTX_WORDS] ? smap_ctz_size(o->mask[SMAP_CTX_WORDS]) : -1;
    ids->step = ids->slot >= 0 ? o->step[ids->slot] : 0;
    for (int i = 1; i < g->size; i++)
        xfer(p, g, i, ids, sizeof *ids, tag, 1);
}

void comm_agree_p2p(struct MPI_ABI_Comm *p, const struct MPI_ABI_Group *g, int tag,
                    struct comm_ids *ids)
{
    /* Rounds until every member offered at once (other threads may be
     * agreeing too); each round's messages follow the previous ones'. */
    uint64_t key = smap_comm_ctx_key(p->ctx, tag);
    for (;;) {
        struct comm_offer o;
        int mine = comm_offer_mine(&o, key);
        agree_round(p, g, tag, &o, ids);
        int agreed = ids->ctx != RETRY_CTX;
        smap_comm_ctx_settle(key, mine, agreed ? SMAP_CTX_AGREED : SMAP_CTX_RETRY,
                             agreed ? ids->ctx : -1, agreed ? ids->slot : -1);
        if (agreed)
            return;
    }
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
    struct comm_ids ids;
    comm_agree_p2p(c, g, tag, &ids);
    if (ids.ctx < 0)
        return smap_err_raise(comm, MPI_ERR_INTERN, F,
                              "no context id is free on every member (at most %d "
                              "communicators alive at once)", SMAP_CTX_MAX);
    smap_group_retain(g);
    return comm_make(c, g, &ids, newcomm, F);
}
