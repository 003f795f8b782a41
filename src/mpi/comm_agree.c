/* The agreement behind every communicator constructor: the members agree
 * on a context id (point-to-point matching) and a collectives control
 * block, so ids and blocks freed are reused and a create/free loop never
 * runs out.
 *
 * Over a parent with a control block: two allreduces on it (MPI_BAND of
 * the free masks, MPI_MAX of the block's step counters).  Over point-to-
 * point (MPI_Comm_create_group, parents without a block, the Sessions
 * constructors): each member sends its free masks and step counters to
 * the group's rank 0, which folds them (AND of the masks, maximum of the
 * steps) and sends the choice back.  Those messages use the parent's
 * context id plus SMAP_CTX_MAX, a context no communicator has, so they
 * never match the parent's own traffic; the tag keeps concurrent
 * creations apart. */
#include <mpi.h>

#include "coll/inter/inter.h"
#include "mpi/attr.h"
#include "mpi/comm_create.h"
#include "mpi/errors.h"
#include "mpi/intercomm.h"
#include "p2p/p2p.h"
#include "topo/topo.h"

static SMAP_COLD int no_ctx(struct MPI_ABI_Comm *parent, const char *func)
{
    return smap_err_raise(parent->handle, SMAP_ERR_NO_CTX, func, SMAP_NO_CTX_WHY,
                          SMAP_NO_CTX_ARGS);
}

int smap_comm_agree(struct MPI_ABI_Comm *parent, struct smap_comm_ids *ids, const char *func)
{
    if (parent->slot < 0) {
        /* the parent cannot run collectives: agree over point-to-point */
        smap_comm_agree_p2p(parent, parent->group, 0, ids);
        return ids->ctx < 0 ? no_ctx(parent, func) : MPI_SUCCESS;
    }
    /* Rounds until every member offered its free ids at once (other
     * threads may be agreeing too: smap_comm_ctx_offer, mpi/comm.h).
     * Words: free ids, free control blocks, "every member offered". */
    uint64_t key = smap_comm_ctx_key(parent->ctx, -1);
    uint32_t m[SMAP_CTX_WORDS + 2];
    for (;;) {
        m[SMAP_CTX_WORDS] = smap_coll_slots_free();
        int mine = smap_comm_ctx_offer(key, m, &m[SMAP_CTX_WORDS]);
        m[SMAP_CTX_WORDS + 1] = (uint32_t)mine;
        int rc = PMPI_Allreduce(MPI_IN_PLACE, m, SMAP_CTX_WORDS + 2, MPI_UINT32_T, MPI_BAND,
                                parent->handle);
        int agreed = rc == MPI_SUCCESS && m[SMAP_CTX_WORDS + 1];
        ids->ctx = agreed ? smap_comm_ctx_pick(m) : -1;
        /* no free control block is not an error yet: only collectives need one */
        ids->slot = agreed && m[SMAP_CTX_WORDS] ? smap_ctz_size(m[SMAP_CTX_WORDS]) : -1;
        smap_comm_ctx_settle(key, mine,
                             rc != MPI_SUCCESS ? SMAP_CTX_ABANDON
                             : agreed          ? SMAP_CTX_AGREED
                                               : SMAP_CTX_RETRY,
                             ids->ctx, ids->slot);
        if (rc != MPI_SUCCESS)
            return rc;
        if (agreed)
            break;
        smap_p2p_progress();   /* MPI_Comm_idup schedules move on meanwhile */
    }
    if (ids->ctx < 0)
        return no_ctx(parent, func);
    ids->step = ids->slot >= 0 ? smap_coll_slot_step(ids->slot) : 0;
    if (ids->slot < 0)
        return MPI_SUCCESS;
    return PMPI_Allreduce(MPI_IN_PLACE, &ids->step, 1, MPI_UINT64_T, MPI_MAX, parent->handle);
}

int smap_comm_make(struct MPI_ABI_Comm *parent, struct MPI_ABI_Group *g,
                   const struct smap_comm_ids *ids, MPI_Comm *newcomm, const char *func)
{
    /* A group across nodes leaves the agreed block unused (every member
     * of g decides alike); collectives run as schedules there. */
    int slot = ids->slot >= 0 && smap_comm_group_on_node(g) ? ids->slot : -1;
    struct MPI_ABI_Comm *c = smap_comm_new(parent, g, ids->ctx, slot);
    if (!c)
        return smap_err_raise(parent->handle, MPI_ERR_NO_MEM, func, "out of memory");
    smap_comm_set_origin(c, parent, func);
    if (slot >= 0)
        smap_coll_slot_claim(slot, ids->step);
    /* both are taken now: no reservation needed (only this agreement's:
     * an idup made from inside a blocking agreement leaves that one's) */
    smap_comm_ctx_release_mine_if(ids->ctx);
    *newcomm = c;
    return MPI_SUCCESS;
}

int smap_comm_dup_bare(struct MPI_ABI_Comm *c, MPI_Comm *newcomm, const char *func)
{
    if (smap_comm_is_inter(c))
        return smap_inter_dup(c, newcomm, func);
    struct smap_comm_ids ids;
    int rc = smap_comm_agree(c, &ids, func);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_group_retain(c->group);
    rc = smap_comm_make(c, c->group, &ids, newcomm, func);
    /* MPI-5.0 8.4: a duplicate keeps the virtual topology (src/topo) */
    if (rc == MPI_SUCCESS && c->topo && !((*newcomm)->topo = smap_topo_dup(c->topo))) {
        (void)smap_coll_release(*newcomm);   /* fresh: released without a sync */
        smap_comm_destroy(*newcomm);
        *newcomm = MPI_COMM_NULL;
        return smap_err_raise(c->handle, MPI_ERR_NO_MEM, func, "out of memory");
    }
    return rc;
}

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
    (void)smap_inter_waitall(&r, 1);
}

int smap_comm_offer_mine(struct smap_comm_offer *o, uint64_t key)
{
    o->mask[SMAP_CTX_WORDS] = smap_coll_slots_free();
    o->offered = (uint32_t)smap_comm_ctx_offer(key, o->mask, &o->mask[SMAP_CTX_WORDS]);
    for (int k = 0; k < SMAP_COLL_NSLOTS; k++)
        o->step[k] = smap_coll_slot_step(k);
    return (int)o->offered;
}

void smap_comm_offer_fold(struct smap_comm_offer *o, const struct smap_comm_offer *x)
{
    for (int j = 0; j <= SMAP_CTX_WORDS; j++)
        o->mask[j] &= x->mask[j];
    o->offered &= x->offered;
    for (int k = 0; k < SMAP_COLL_NSLOTS; k++)
        o->step[k] = x->step[k] > o->step[k] ? x->step[k] : o->step[k];
}

/* At the group's rank 0: every member's offer folded into o. */
static void fold_offers(struct MPI_ABI_Comm *p, const struct MPI_ABI_Group *g,
                        struct smap_comm_offer *o, int tag)
{
    for (int i = 1; i < g->size; i++) {
        struct smap_comm_offer x;
        xfer(p, g, i, &x, sizeof x, tag, 0);
        smap_comm_offer_fold(o, &x);
    }
}

/* One round: the choice, or ids->ctx RETRY_CTX. */
static void agree_round(struct MPI_ABI_Comm *p, const struct MPI_ABI_Group *g, int tag,
                        struct smap_comm_offer *o, struct smap_comm_ids *ids)
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

void smap_comm_agree_p2p(struct MPI_ABI_Comm *p, const struct MPI_ABI_Group *g, int tag,
                         struct smap_comm_ids *ids)
{
    /* Rounds until every member offered at once (other threads may be
     * agreeing too); each round's messages follow the previous ones'. */
    uint64_t key = smap_comm_ctx_key(p->ctx, tag);
    for (;;) {
        struct smap_comm_offer o;
        int mine = smap_comm_offer_mine(&o, key);
        agree_round(p, g, tag, &o, ids);
        int agreed = ids->ctx != RETRY_CTX;
        smap_comm_ctx_settle(key, mine, agreed ? SMAP_CTX_AGREED : SMAP_CTX_RETRY,
                             agreed ? ids->ctx : -1, agreed ? ids->slot : -1);
        if (agreed)
            return;
    }
}

int smap_comm_create(struct MPI_ABI_Comm *c, struct MPI_ABI_Group *g, MPI_Comm *newcomm,
                     const char *F)
{
    if (smap_comm_is_inter(c))   /* group: a subset of the local group */
        return smap_inter_split(c, g->my_rank == MPI_UNDEFINED ? MPI_UNDEFINED : 0, g->my_rank,
                                newcomm, F);
    struct smap_comm_ids ids;
    int rc = smap_comm_agree(c, &ids, F);
    if (rc != MPI_SUCCESS)
        return rc;
    *newcomm = MPI_COMM_NULL;
    if (g->my_rank == MPI_UNDEFINED)
        return MPI_SUCCESS;
    smap_group_retain(g);
    return smap_comm_make(c, g, &ids, newcomm, F);
}

