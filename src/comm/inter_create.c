/* Intercommunicator constructors: MPI_Intercomm_create(_from_groups),
 * MPI_Intercomm_merge, and the intercommunicator forms of MPI_Comm_dup /
 * split / create (src/binding checks their arguments).
 *
 * Agreement: every constructor needs a context id free on every member of
 * both groups (and a control block, for the merged intracommunicator).
 * Each group gathers its members' offers (free-id masks, free control
 * blocks, their step counters) at its leader, which folds them (AND of the
 * masks, maximum of the steps); the two leaders swap their folds and pick
 * the same id from the same AND; each leader broadcasts the result in its
 * group.  Intercomm_create does the local part over local_comm and the
 * leaders talk over peer_comm with the user's tag; the others run on the
 * parent intercommunicator (src/coll/inter building blocks).  So freed ids
 * are reused and create/free loops never run out. */
#include <stdlib.h>
#include <string.h>

#include "coll/inter/inter.h"
#include "comm/comm_create.h"
#include "mpi/errors.h"
#include "mpi/intercomm.h"
#include "p2p/p2p.h"

/* How a group's leader reaches the other group's leader: a peer rank and
 * its local rank, our rank as the peer sees it, a tag and a context. */
struct link {
    int rank, lr, me, tag, ctx;
};

static int link_xchg(const struct link *l, const void *s, size_t sb, void *r, size_t rb)
{
    smap_dtype_t *b = smap_dtype_get(MPI_BYTE);
    struct smap_preq q[2];
    smap_p2p_irecv(&q[0], r, (MPI_Count)rb, b, l->rank, l->tag, l->ctx);
    int rc = smap_p2p_isend(&q[1], s, (MPI_Count)sb, b, l->rank, l->lr, l->me, l->tag, l->ctx,
                            SMAP_P2P_STANDARD);
    if (rc != MPI_SUCCESS)
        return rc;
    return smap_inter_waitall(q, 2);
}

/* Between the rank 0s of an intercommunicator's groups. */
static struct link leaders(const struct MPI_ABI_Comm *c)
{
    return (struct link){ .rank = 0, .me = 0, .tag = SMAP_INTER_TAG_REMOTE,
                          .ctx = smap_inter_coll_ctx(c),
                          .lr = smap_p2p_local_rank(smap_group_world_rank(c->remote_group, 0)) };
}

/* What the leaders swap: their group's fold, and the size of the int
 * array that follows. */
struct hdr {
    struct smap_comm_offer o;
    int n, high;
};

struct deal {
    const int *mine;   /* in, at the leader: ints for the other group */
    int nmine, high;
    int want_slot;     /* in: a control block too (the merged intracommunicator) */
    struct smap_comm_ids ids; /* out: ctx -1 when none is free; slot -1 when none */
    int *theirs;       /* out: the other leader's ints (malloc'd) */
    int ntheirs, their_high;
};

/* One round of offers: every member's folded over both groups into *h
 * (h->o.offered: whether every member offered). */
static int agree_round(struct MPI_ABI_Comm *lc, int root, const struct link *l,
                       const struct deal *d, struct smap_comm_offer *o, struct hdr *h)
{
    int lead = lc->rank == root;
    struct smap_comm_offer *all = lead ? malloc((size_t)lc->size * sizeof *all) : NULL;
    memset(h, 0, sizeof *h);
    if (lead && !all)
        return MPI_ERR_NO_MEM;
    int rc = smap_inter_lgather(lc, root, o, sizeof *o, all);
    if (lead && rc == MPI_SUCCESS) {
        for (int i = 0; i < lc->size; i++)
            smap_comm_offer_fold(o, &all[i]);
        struct hdr mine = { .o = *o, .n = d->nmine, .high = d->high };
        rc = link_xchg(l, &mine, sizeof mine, h, sizeof *h);
        smap_comm_offer_fold(&h->o, o);
    }
    free(all);
    return rc == MPI_SUCCESS ? smap_inter_lbcast(lc, root, h, sizeof *h, smap_dtype_get(MPI_BYTE))
                             : rc;
}

/* Collective over lc's group, led by its local rank `root`, which reaches
 * the other group's leader through l.  Rounds until every member of both
 * groups offered at once (other threads may be agreeing too: mpi/comm.h);
 * key is the same in every round.  The ids picked stay reserved for this
 * thread until smap_comm_ctx_release_mine. */
static int agree(struct MPI_ABI_Comm *lc, int root, const struct link *l, uint64_t key,
                 struct deal *d)
{
    struct hdr h;
    for (;;) {
        struct smap_comm_offer o;
        int mine = smap_comm_offer_mine(&o, key);
        int rc = agree_round(lc, root, l, d, &o, &h);
        int agreed = rc == MPI_SUCCESS && h.o.offered;
        uint32_t slots = d->want_slot ? h.o.mask[SMAP_CTX_WORDS] : 0;
        d->ids.ctx = agreed ? smap_comm_ctx_pick(h.o.mask) : -1;
        d->ids.slot = agreed && slots ? smap_ctz_size(slots) : -1;
        d->ids.step = d->ids.slot >= 0 ? h.o.step[d->ids.slot] : 0;
        smap_comm_ctx_settle(key, mine,
                             rc != MPI_SUCCESS ? SMAP_CTX_ABANDON
                             : agreed          ? SMAP_CTX_AGREED
                                               : SMAP_CTX_RETRY,
                             d->ids.ctx, d->ids.slot);
        if (rc != MPI_SUCCESS)
            return rc;
        if (agreed)
            break;
    }
    /* then the leaders' ints, once */
    d->theirs = malloc((size_t)h.n * sizeof(int) + 1);
    if (!d->theirs)
        return MPI_ERR_NO_MEM;
    size_t nb = (size_t)h.n * sizeof(int);
    int rc = MPI_SUCCESS;
    if (lc->rank == root)
        rc = link_xchg(l, d->mine, (size_t)d->nmine * sizeof(int), d->theirs, nb);
    if (rc == MPI_SUCCESS)
        rc = smap_inter_lbcast(lc, root, d->theirs, (MPI_Count)nb, smap_dtype_get(MPI_BYTE));
    d->ntheirs = h.n;
    d->their_high = h.high;
    return rc;
}

/* The key of agreements among an intercommunicator's members. */
static uint64_t inter_key(const struct MPI_ABI_Comm *c)
{
    return smap_comm_ctx_key(c->ctx, -1);
}

static SMAP_COLD int agree_error(struct MPI_ABI_Comm *c, int rc, const char *func)
{
    return smap_err_raise(c->handle, rc, func, "agreeing with the other group failed: %s",
                          rc == MPI_ERR_NO_MEM ? "out of memory" : smap_why());
}

static SMAP_COLD int no_ctx(struct MPI_ABI_Comm *c, const char *func)
{
    return smap_err_raise(c->handle, SMAP_ERR_NO_CTX, func, SMAP_NO_CTX_WHY " (both groups)",
                          SMAP_NO_CTX_ARGS);
}

/* After an agreement (rc, the id it picked): MPI_SUCCESS when it gave an
 * id, else the raised error, the reservation dropped. */
static int agreed_or_raise(struct MPI_ABI_Comm *c, int rc, int ctx, const char *func)
{
    if (rc == MPI_SUCCESS && ctx >= 0)
        return MPI_SUCCESS;
    smap_comm_ctx_release_mine();
    return rc != MPI_SUCCESS ? agree_error(c, rc, func) : no_ctx(c, func);
}

/* The new intercommunicator of groups lg and rg (references taken over)
 * with the agreed id ctx, which this thread then stops reserving; errors
 * go to parent's handler. */
static int inter_make(struct MPI_ABI_Comm *parent, struct MPI_ABI_Group *lg,
                      struct MPI_ABI_Group *rg, int ctx, MPI_Comm *newcomm, const char *func)
{
    struct MPI_ABI_Comm *n = smap_inter_new(parent, lg, rg, ctx);
    smap_comm_ctx_release_mine();   /* the id is taken now */
    if (!n)
        return smap_err_raise(parent->handle, MPI_ERR_NO_MEM, func, "out of memory");
    *newcomm = n;
    return MPI_SUCCESS;
}

/* ---- MPI_Intercomm_create ------------------------------------------------ */

/* The leader's arguments: MPI_SUCCESS and the link to the remote leader,
 * or an error class and *why. */
static int leader_args(struct MPI_ABI_Comm *lc, MPI_Comm peer_comm, int remote_leader, int tag,
                       struct link *l, const char **why)
{
    struct MPI_ABI_Comm *p = smap_comm_get(peer_comm);
    if (!p) {
        *why = peer_comm == MPI_COMM_NULL ? "peer_comm is MPI_COMM_NULL"
                                          : "peer_comm is not a valid communicator";
        return MPI_ERR_COMM;
    }
    const struct MPI_ABI_Group *pg = smap_comm_is_inter(p) ? p->remote_group : p->group;
    if (remote_leader < 0 || remote_leader >= pg->size) {
        *why = "remote_leader is not a rank of peer_comm";
        return MPI_ERR_RANK;
    }
    int w = smap_group_world_rank(pg, remote_leader);
    if (smap_group_find(lc->group, w) >= 0) {
        *why = "remote_leader is a member of local_comm (the groups must be disjoint)";
        return MPI_ERR_RANK;
    }
    if (tag < 0) {
        *why = "tag is negative";
        return MPI_ERR_TAG;
    }
    *l = (struct link){ .rank = remote_leader, .lr = smap_p2p_local_rank(w), .me = p->rank,
                        .tag = tag, .ctx = p->ctx + SMAP_CTX_MAX };
    if (l->lr == SMAP_P2P_NO_ROUTE) {
        *why = "remote_leader cannot be reached";
        return MPI_ERR_RANK;
    }
    return MPI_SUCCESS;
}

/* Whether the remote group is usable with local group g: 0, or an error
 * class and *why (both groups see the same answer). */
static int check_remote(const struct MPI_ABI_Group *g, const struct MPI_ABI_Group *r,
                        const char **why)
{
    for (int i = 0; i < r->size; i++) {
        int w = smap_group_world_rank(r, i);
        if (smap_group_find(g, w) >= 0) {
            *why = "the local and remote groups overlap";
            return MPI_ERR_GROUP;
        }
        if (smap_p2p_local_rank(w) == SMAP_P2P_NO_ROUTE) {
            *why = "a remote member cannot be reached";
            return MPI_ERR_RANK;
        }
    }
    return MPI_SUCCESS;
}

static int *world_ranks(const struct MPI_ABI_Group *g)
{
    int *w = malloc((size_t)g->size * sizeof *w + 1);
    for (int i = 0; w && i < g->size; i++)
        w[i] = smap_group_world_rank(g, i);
    return w;
}

static int create_over(struct MPI_ABI_Comm *lc, int local_leader, const struct link *l,
                       const int *seen, MPI_Comm *newintercomm, const char *F);

int smap_inter_create(struct MPI_ABI_Comm *lc, int local_leader, MPI_Comm peer_comm,
                      int remote_leader, int tag, MPI_Comm *newintercomm, const char *F)
{
    MPI_Comm local_comm = lc->handle;
    /* peer_comm, remote_leader and tag matter at the leader only: it tells
     * the group whether they are good before anyone waits on the other
     * group */
    struct link l = { 0 };
    const char *why = "";
    int err = lc->rank == local_leader ? leader_args(lc, peer_comm, remote_leader, tag, &l, &why)
                                       : MPI_SUCCESS;
    int rc = smap_inter_lbcast(lc, local_leader, &err, sizeof err, smap_dtype_get(MPI_BYTE));
    if (rc != MPI_SUCCESS)
        return agree_error(lc, rc, F);
    if (err != MPI_SUCCESS)
        return smap_err_raise(local_comm, err, F, "%s",
                              lc->rank == local_leader
                                  ? why
                                  : "the local leader's peer_comm, remote_leader or tag is bad");
    return create_over(lc, local_leader, &l, NULL, newintercomm, F);
}

/* The rest of MPI_Intercomm_create once the leader knows its link; seen:
 * the world ranks the other group knows ours by (NULL: our own). */
static int create_over(struct MPI_ABI_Comm *lc, int local_leader, const struct link *lp,
                       const int *seen, MPI_Comm *newintercomm, const char *F)
{
    MPI_Comm local_comm = lc->handle;
    struct link l = *lp;
    const char *why = "";
    struct deal d = { .mine = NULL };
    int *mine = NULL;
    if (lc->rank == local_leader && seen) {
        if ((mine = malloc((size_t)lc->size * sizeof *mine + 1)) != NULL)
            memcpy(mine, seen, (size_t)lc->size * sizeof *mine);
    } else if (lc->rank == local_leader) {
        mine = world_ranks(lc->group);
    }
    if (lc->rank == local_leader && !mine)
        return smap_err_raise(local_comm, MPI_ERR_NO_MEM, F, "out of memory");
    d.mine = mine;
    d.nmine = lc->size;
    /* the two groups' local_comms differ: the key is only this group's */
    int rc = agree(lc, local_leader, &l, smap_comm_ctx_key(lc->ctx, -4), &d);
    free(mine);
    if (rc != MPI_SUCCESS) {
        free(d.theirs);
        smap_comm_ctx_release_mine();
        return agree_error(lc, rc, F);
    }
    struct MPI_ABI_Group *remote = smap_group_from_world(d.ntheirs, d.theirs);
    if (!remote) {
        smap_comm_ctx_release_mine();
        return smap_err_raise(local_comm, MPI_ERR_NO_MEM, F, "out of memory");
    }
    int err = check_remote(lc->group, remote, &why);
    int ctx = d.ids.ctx;
    if (err != MPI_SUCCESS || ctx < 0) {
        smap_group_release(remote);
        smap_comm_ctx_release_mine();
        return ctx < 0 && err == MPI_SUCCESS ? no_ctx(lc, F)
                                             : smap_err_raise(local_comm, err, F, "%s", why);
    }
    smap_group_retain(lc->group);
    return inter_make(lc, lc->group, remote, ctx, newintercomm, F);
}

int smap_inter_create_over_world(struct MPI_ABI_Comm *lc, int local_leader, int remote_world,
                                 int tag, MPI_Comm *newintercomm, const char *func)
{
    struct link l = { 0 };
    if (lc->rank == local_leader)
        l = (struct link){ .rank = remote_world, .lr = smap_p2p_local_rank(remote_world),
                           .me = smap_comm_world.rank, .tag = tag,
                           .ctx = smap_comm_world.ctx + SMAP_CTX_MAX };
    return create_over(lc, local_leader, &l, NULL, newintercomm, func);
}

int smap_inter_create_foreign(struct MPI_ABI_Comm *lc, int local_leader, int remote_world,
                              int me_there, const int *seen, int tag, MPI_Comm *newintercomm,
                              const char *func)
{
    struct link l = { 0 };
    if (lc->rank == local_leader)
        l = (struct link){ .rank = remote_world, .lr = smap_p2p_local_rank(remote_world),
                           .me = me_there, .tag = tag,
                           .ctx = smap_comm_world.ctx + SMAP_CTX_MAX };
    return create_over(lc, local_leader, &l, seen, newintercomm, func);
}

int smap_comm_lgather(struct MPI_ABI_Comm *lc, int root, const void *mine, size_t bytes, void *all)
{
    return smap_inter_lgather(lc, root, mine, bytes, all);
}

int smap_comm_lbcast(struct MPI_ABI_Comm *lc, int root, void *buf, size_t bytes)
{
    return smap_inter_lbcast(lc, root, buf, (MPI_Count)bytes, smap_dtype_get(MPI_BYTE));
}

/* ---- MPI_Intercomm_merge ------------------------------------------------- */

int smap_inter_merge(struct MPI_ABI_Comm *c, int high, MPI_Comm *newintracomm, const char *F)
{
    MPI_Comm intercomm = c->handle;
    struct link l = leaders(c);
    struct deal d = { .high = high != 0, .want_slot = 1 };
    int rc = agree(c, 0, &l, inter_key(c), &d);
    free(d.theirs);
    struct smap_comm_ids ids = d.ids;
    rc = agreed_or_raise(c, rc, ids.ctx, F);
    if (rc != MPI_SUCCESS)
        return rc;
    /* MPI 5.0 7.6.2: the group that said high = false comes first; on a
     * tie, the group holding the lower job rank at its rank 0 (both sides
     * compute the same) */
    const struct MPI_ABI_Group *lg = c->group, *rg = c->remote_group;
    int local_first = (high != 0) != (d.their_high != 0)
                          ? high == 0
                          : smap_group_world_rank(lg, 0) < smap_group_world_rank(rg, 0);
    const struct MPI_ABI_Group *first = local_first ? lg : rg, *second = local_first ? rg : lg;
    int n = lg->size + rg->size;
    int *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        smap_comm_ctx_release_mine();
        return smap_err_raise(intercomm, MPI_ERR_NO_MEM, F, "out of memory");
    }
    for (int i = 0; i < first->size; i++)
        w[i] = smap_group_world_rank(first, i);
    for (int i = 0; i < second->size; i++)
        w[first->size + i] = smap_group_world_rank(second, i);
    struct MPI_ABI_Group *g = smap_group_from_world(n, w);
    if (!g) {
        smap_comm_ctx_release_mine();
        return smap_err_raise(intercomm, MPI_ERR_NO_MEM, F, "out of memory");
    }
    rc = smap_comm_make(c, g, &ids, newintracomm, F);   /* releases the reservation */
    smap_comm_ctx_release_mine();
    return rc;
}

/* ---- dup, split, create -------------------------------------------------- */

int smap_inter_dup(struct MPI_ABI_Comm *c, MPI_Comm *newcomm, const char *func)
{
    struct link l = leaders(c);
    struct deal d = { .mine = NULL };
    int rc = agree(c, 0, &l, inter_key(c), &d);
    free(d.theirs);
    rc = agreed_or_raise(c, rc, d.ids.ctx, func);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_group_retain(c->group);
    smap_group_retain(c->remote_group);
    return inter_make(c, c->group, c->remote_group, d.ids.ctx, newcomm, func);
}

/* Every member's (color, key) of both groups: local ones in ck (all
 * members), remote ones in d->theirs. */
static int share_colors(struct MPI_ABI_Comm *c, int color, int key, int *ck, struct deal *d)
{
    int mine[2] = { color, key };
    int rc = smap_inter_lgather(c, 0, mine, sizeof mine, ck);
    if (rc == MPI_SUCCESS)
        rc = smap_inter_lbcast(c, 0, ck, (MPI_Count)(2 * c->size * sizeof(int)),
                               smap_dtype_get(MPI_BYTE));
    if (rc != MPI_SUCCESS)
        return rc;
    struct link l = leaders(c);
    d->mine = ck;
    d->nmine = 2 * c->size;
    rc = agree(c, 0, &l, inter_key(c), d);
    if (rc == MPI_SUCCESS && d->ntheirs != 2 * c->remote_group->size)
        rc = MPI_ERR_INTERN;
    return rc;
}

int smap_inter_split(struct MPI_ABI_Comm *c, int color, int key, MPI_Comm *newcomm,
                     const char *func)
{
    int *ck = malloc((size_t)c->size * 2 * sizeof *ck);
    if (!ck)
        return smap_err_raise(c->handle, MPI_ERR_NO_MEM, func, "out of memory");
    struct deal d = { .mine = NULL };
    int rc = share_colors(c, color, key, ck, &d);
    if (rc != MPI_SUCCESS) {
        free(ck);
        free(d.theirs);
        smap_comm_ctx_release_mine();
        return agree_error(c, rc, func);
    }
    /* one id for every new intercommunicator: they are disjoint */
    int ctx = d.ids.ctx;
    *newcomm = MPI_COMM_NULL;
    struct MPI_ABI_Group *lg = NULL, *rg = NULL;
    if (ctx >= 0 && color != MPI_UNDEFINED) {
        lg = smap_comm_color_group(c->group, ck, color);
        rg = smap_comm_color_group(c->remote_group, d.theirs, color);
    }
    free(ck);
    free(d.theirs);
    if (ctx < 0 || color == MPI_UNDEFINED || !lg || !rg || rg->size == 0)
        smap_comm_ctx_release_mine();   /* not a member: nothing to reserve for */
    if (ctx < 0)
        return no_ctx(c, func);
    if (color == MPI_UNDEFINED)
        return MPI_SUCCESS;
    if (!lg || !rg || rg->size == 0) {
        if (lg)
            smap_group_release(lg);
        if (rg)
            smap_group_release(rg);
        /* an empty remote side gives MPI_COMM_NULL (MPI 5.0 7.4.2) */
        return lg && rg ? MPI_SUCCESS
                        : smap_err_raise(c->handle, MPI_ERR_NO_MEM, func, "out of memory");
    }
    return inter_make(c, lg, rg, ctx, newcomm, func);
}
