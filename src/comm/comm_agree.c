/* The agreement behind every communicator constructor: the members agree
 * on a context id (point-to-point matching) and a collectives control
 * block, so ids and blocks freed are reused and a create/free loop never
 * runs out.  Other threads may be agreeing at the same time: no member
 * holds anything exclusive while it waits for the others (mpi/comm.c,
 * "claims"), so no agreement waits for another.
 *
 * Over a parent with a control block: attempts of two allreduces on it
 * (MPI_BAND of the free masks; each member claims the pick, then MPI_MAX
 * of the failed claims and the block's step counters).  Over point-to-
 * point (MPI_Comm_create_group, parents without a block, the Sessions
 * constructors): the same two steps, each a fold at the group's rank 0,
 * which sends the result back.  Those messages use the parent's
 * context id plus SMAP_CTX_MAX, a context no communicator has, so they
 * never match the parent's own traffic; the tag keeps concurrent
 * creations apart. */
#include <mpi.h>

#include "coll/inter/inter.h"
#include "mpi/attr.h"
#include "comm/comm_create.h"
#include "mpi/errors.h"
#include "mpi/intercomm.h"
#include "p2p/p2p.h"
#include "topo/topo.h"

static SMAP_COLD int no_ctx(struct MPI_ABI_Comm *parent, const char *func)
{
    return smap_err_raise(parent->handle, SMAP_ERR_NO_CTX, func, SMAP_NO_CTX_WHY,
                          SMAP_NO_CTX_ARGS);
}

/* Claims on this many attempts that failed only for the control block
 * (other threads' agreements took it): the communicator is made without
 * one (its collectives run as schedules, as an idup's may) rather than
 * trying on for one of the few blocks. */
#define SLOT_TRIES 2

/* What the members combine after claiming: whether some member failed
 * to claim the id, or the control block, and the block's step counters. */
struct claims {
    uint64_t ctx_failed, slot_failed, step;
};

/* This member's claim of ids->ctx and ids->slot, in *c. */
static void claim(const struct smap_comm_ids *ids, struct claims *c)
{
    int slot_ok = 0;
    c->ctx_failed = !smap_comm_ctx_claim(ids->ctx, ids->slot, smap_coll_slots_free(), &slot_ok);
    c->slot_failed = ids->slot >= 0 && !slot_ok;
    c->step = slot_ok ? smap_coll_slot_step(ids->slot) : 0;
}

/* The members' combined claims decided alike on all of them: 1 when the
 * ids are theirs (ids->slot -1 when the block is given up), 0 when the
 * claims are dropped for another attempt. */
static int settle(const struct claims *all, struct smap_comm_ids *ids, unsigned attempt)
{
    if (all->ctx_failed || (all->slot_failed && attempt + 1 < SLOT_TRIES)) {
        smap_comm_ctx_release_mine();
        return 0;
    }
    if (all->slot_failed) {
        smap_comm_ctx_unclaim_slot();
        ids->slot = -1;
    }
    ids->step = ids->slot >= 0 ? all->step : 0;
    return 1;
}

/* The pick from the members' combined free masks (ids, then blocks). */
static void pick(const uint32_t *m, uint64_t key, unsigned attempt, struct smap_comm_ids *ids)
{
    ids->ctx = smap_comm_ctx_pick_spread(m, SMAP_CTX_WORDS, key, attempt);
    ids->slot = smap_comm_ctx_pick_spread(&m[SMAP_CTX_WORDS], 1, key, attempt);
}

/* An allreduce in place on the parent (its collectives' table: the
 * control blocks here); a failure is raised on the parent's handler, in
 * the name of the constructor `func`. */
static int allreduce(struct MPI_ABI_Comm *parent, void *buf, int count, MPI_Datatype type,
                     MPI_Op op, const char *func)
{
    smap_coll_func = func;
    int rc = smap_coll_allreduce(MPI_IN_PLACE, buf, count, smap_dtype_get(type), type, op,
                                 parent);
    return rc == MPI_SUCCESS ? rc
                             : smap_err_raise(parent->handle, rc, func, "%s", smap_why());
}

int smap_comm_agree(struct MPI_ABI_Comm *parent, struct smap_comm_ids *ids, const char *func)
{
    if (parent->slot < 0) {
        /* the parent cannot run collectives: agree over point-to-point */
        smap_comm_agree_p2p(parent, parent->group, 0, ids);
        return ids->ctx < 0 ? no_ctx(parent, func) : MPI_SUCCESS;
    }
    /* Attempts of two allreduces (MPI_BAND of the free masks, MPI_MAX of
     * the claims), nothing held while they wait (mpi/comm.c, "claims"). */
    uint64_t key = smap_comm_ctx_key(parent->ctx, -1);
    for (unsigned attempt = 0;; attempt++) {
        uint32_t m[SMAP_CTX_WORDS + 1];
        m[SMAP_CTX_WORDS] = smap_coll_slots_free();
        smap_comm_ctx_free(m, &m[SMAP_CTX_WORDS]);
        int rc = allreduce(parent, m, SMAP_CTX_WORDS + 1, MPI_UINT32_T, MPI_BAND, func);
        if (rc != MPI_SUCCESS)
            return rc;
        pick(m, key, attempt, ids);
        if (ids->ctx < 0)
            return no_ctx(parent, func);
        struct claims c;
        claim(ids, &c);
        rc = allreduce(parent, &c, 3, MPI_UINT64_T, MPI_MAX, func);
        if (rc != MPI_SUCCESS) {
            smap_comm_ctx_release_mine();
            return rc;
        }
        if (settle(&c, ids, attempt))
            return MPI_SUCCESS;
        smap_p2p_progress();   /* MPI_Comm_idup schedules move on meanwhile */
    }
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

/* The group's rank 0 combines what every member sends it (fold) and
 * sends the result back; the others send theirs and receive it.  Each
 * exchange follows the previous one's messages on the same tag. */
static void combine(struct MPI_ABI_Comm *p, const struct MPI_ABI_Group *g, int tag, void *mine,
                    void *in, size_t bytes, void (*fold)(void *acc, const void *x),
                    void (*decide)(void *acc, void *arg), void *arg)
{
    if (g->my_rank != 0) {
        xfer(p, g, 0, mine, bytes, tag, 1);
        xfer(p, g, 0, mine, bytes, tag, 0);
        return;
    }
    for (int i = 1; i < g->size; i++) {
        xfer(p, g, i, in, bytes, tag, 0);
        fold(mine, in);
    }
    if (decide)
        decide(mine, arg);
    for (int i = 1; i < g->size; i++)
        xfer(p, g, i, mine, bytes, tag, 1);
}

/* What travels in the first exchange: the free masks, then the pick. */
union masks {
    uint32_t m[SMAP_CTX_WORDS + 1];
    struct smap_comm_ids ids;
};
struct pick_arg {
    uint64_t key;
    unsigned attempt;
};

static void fold_masks(void *acc, const void *x)
{
    uint32_t *a = acc;
    const uint32_t *b = x;
    for (int j = 0; j <= SMAP_CTX_WORDS; j++)
        a[j] &= b[j];
}

static void decide_pick(void *acc, void *arg)
{
    union masks *u = acc;
    const struct pick_arg *pa = arg;
    struct smap_comm_ids ids;
    pick(u->m, pa->key, pa->attempt, &ids);
    u->ids = ids;
}

static void fold_claims(void *acc, const void *x)
{
    struct claims *a = acc;
    const struct claims *b = x;
    a->ctx_failed |= b->ctx_failed;
    a->slot_failed |= b->slot_failed;
    a->step = b->step > a->step ? b->step : a->step;
}

void smap_comm_agree_p2p(struct MPI_ABI_Comm *p, const struct MPI_ABI_Group *g, int tag,
                         struct smap_comm_ids *ids)
{
    /* As smap_comm_agree, the allreduces replaced by exchanges with the
     * group's rank 0: nothing is held while waiting for the members. */
    struct pick_arg pa = { smap_comm_ctx_key(p->ctx, tag), 0 };
    for (;; pa.attempt++) {
        union masks u, in;
        u.m[SMAP_CTX_WORDS] = smap_coll_slots_free();
        smap_comm_ctx_free(u.m, &u.m[SMAP_CTX_WORDS]);
        combine(p, g, tag, &u, &in, sizeof u, fold_masks, decide_pick, &pa);
        *ids = u.ids;
        if (ids->ctx < 0)
            return;
        struct claims c, cin;
        claim(ids, &c);
        combine(p, g, tag, &c, &cin, sizeof c, fold_claims, NULL, NULL);
        if (settle(&c, ids, pa.attempt))
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
    if (g->my_rank == MPI_UNDEFINED) {
        smap_comm_ctx_release_mine();   /* not a member: nothing to reserve for */
        return MPI_SUCCESS;
    }
    smap_group_retain(g);
    return smap_comm_make(c, g, &ids, newcomm, F);
}

