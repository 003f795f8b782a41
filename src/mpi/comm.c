#include "mpi/comm.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/compiler.h"
#include "base/timer.h"
#include "base/wait.h"
#include "boot/boot.h"
#include "mpi/attr.h"
#include "mpi/errhandler.h"
#include "mpi/group.h"
#include "mpi/handles.h"
#include "mpi/request.h"
#include "mpi/session.h"
#include "p2p/p2p.h"
#include "smap/smap.h"
#include "mpi/info.h"

struct MPI_ABI_Comm smap_comm_world = {
    .magic = SMAP_COMM_MAGIC, .rank = 0, .size = 1, .ctx = 0, .errhandler = MPI_ERRORS_ARE_FATAL,
    .name = "MPI_COMM_WORLD", .handle = MPI_COMM_WORLD, .group = &smap_group_world, .slot = 0,
};
struct MPI_ABI_Comm smap_comm_self = {
    .magic = SMAP_COMM_MAGIC, .rank = 0, .size = 1, .ctx = 1, .errhandler = MPI_ERRORS_ARE_FATAL,
    .name = "MPI_COMM_SELF", .handle = MPI_COMM_SELF, .group = &smap_group_self, .slot = 1,
};

void smap_comm_init(int rank, int size)
{
    smap_comm_world.rank = rank;
    smap_comm_world.size = size;
    smap_comm_self.rank = 0;
    smap_comm_self.size = 1;
    smap_group_init(rank, size);
    smap_comm_world.group = &smap_group_world;
    smap_comm_self.group = &smap_group_self;
    /* A job over several nodes: MPI_COMM_WORLD's collectives are schedules. */
    smap_comm_world.slot = smap_job.nnodes > 1 ? -1 : 0;
    /* their collectives' implementation is chosen again on first use */
    atomic_store_explicit(&smap_comm_world.coll, NULL, memory_order_relaxed);
    atomic_store_explicit(&smap_comm_self.coll, NULL, memory_order_relaxed);
}

int smap_comm_group_foreign(const struct MPI_ABI_Group *g)
{
    for (int i = 0; i < g->size; i++)
        if (smap_group_world_rank(g, i) >= smap_job.size)
            return 1;
    return 0;
}

int smap_comm_group_on_node(const struct MPI_ABI_Group *g)
{
    /* processes of another job (src/spawn) are never node peers: their
     * traffic goes through src/net, their collectives are schedules */
    if (smap_comm_group_foreign(g))
        return 0;
    if (smap_job.nnodes <= 1 || !smap_job.node_of)
        return 1;
    for (int i = 0; i < g->size; i++)
        if (smap_job.node_of[smap_group_world_rank(g, i)] != smap_job.node)
            return 0;
    return 1;
}

/* MPI-5.0 section 11.2.4: MPI_Finalize first deletes MPI_COMM_SELF's
 * attributes, in the reverse order of their setting, while everything still
 * works (a delete callback may communicate). */
void smap_comm_finalize_begin(void)
{
    (void)smap_attr_delete_all(&smap_comm_self);
}

/* User communicators not destroyed yet (MPI_Finalize sweeps them). */
static struct MPI_ABI_Comm *live;

/* Communicators the program never freed: MPI_Finalize releases their
 * memory (no callbacks: MPI only runs MPI_COMM_SELF's at finalize). */
static void sweep_live(void)
{
    while (live) {
        struct MPI_ABI_Comm *c = live;
        smap_attr_list_forget(&c->attrs);
        smap_comm_destroy(c);
    }
}

static void (*destroy_hooks[SMAP_COMM_HOOKS])(struct MPI_ABI_Comm *c);
static _Atomic int ndestroy_hooks;
static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;

void smap_comm_on_destroy(void (*hook)(struct MPI_ABI_Comm *c))
{
    pthread_mutex_lock(&hooks_lock);
    int n = atomic_load_explicit(&ndestroy_hooks, memory_order_relaxed), known = 0;
    for (int i = 0; i < n; i++)
        known |= destroy_hooks[i] == hook;
    if (!known && n < SMAP_COMM_HOOKS) {
        destroy_hooks[n] = hook;
        atomic_store_explicit(&ndestroy_hooks, n + 1, memory_order_release);
    }
    pthread_mutex_unlock(&hooks_lock);
}

static void run_destroy_hooks(struct MPI_ABI_Comm *c)
{
    int n = atomic_load_explicit(&ndestroy_hooks, memory_order_acquire);
    for (int i = 0; i < n; i++)
        destroy_hooks[i](c);
}

void smap_comm_finalize(void)
{
    sweep_live();
    run_destroy_hooks(&smap_comm_world);   /* its hierarchy's memory, if any */
    (void)smap_attr_delete_all(&smap_comm_world);
    smap_info_free(smap_comm_world.hints);
    smap_info_free(smap_comm_self.hints);
    smap_comm_world.hints = smap_comm_self.hints = NULL;
    smap_errhandler_release(smap_comm_world.errhandler);
    smap_errhandler_release(smap_comm_self.errhandler);
    smap_comm_world.errhandler = smap_comm_self.errhandler = MPI_ERRORS_ARE_FATAL;
}

/* Context ids in use by this rank's live communicators: WORLD's and SELF's
 * for good.  Creation and free are collective, hence in the same order on
 * every member of one communicator; several threads may create
 * communicators at once (MPI_THREAD_MULTIPLE), see "offers" below.  All
 * of this state is under ctx_lock (creation is a cold path). */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t ctx_used[SMAP_CTX_WORDS] = { 3u };

/* ---- offers: agreeing on ids while other threads agree too ----
 * (The intercommunicator constructors, inter_create.c; the others claim,
 * see "claims" below.)  Two agreements running at once on this rank must not pick the same id
 * (or control block).  So at most one thread at a time offers this rank's
 * free ids (`offering`); any other contributes nothing, which makes its
 * round fail on every member, and tries again.  Ids an agreement picked
 * stay reserved by its thread until the communicator exists (or until
 * that thread's next offer, when this rank turned out not to be a
 * member).  Livelock (each of two ranks offering to a different
 * agreement, forever) is broken as in MPICH: an agreement whose round
 * failed waits under its key (parent context id and tag, the same on
 * every member), and no agreement with a larger key may offer while it
 * waits, so the smallest waiting key eventually gets every member's offer.
 * A wait that is not renewed (by a failed round) for WAIT_STALE seconds is
 * forgotten: the priority only serves progress (exclusion comes from the
 * offer and the reservations), and an agreement that ended without
 * settling must not block every later one. */
#define MAX_WAITING 64
#define WAIT_STALE 0.5
static uint32_t ctx_reserved[SMAP_CTX_WORDS];
static uint32_t slot_reserved;
static int offering;
/* The ids the offering agreement offered, until it settles: a claim (see
 * "claims" below) may not take those. */
static uint32_t ctx_offered[SMAP_CTX_WORDS];
/* The control blocks the offering agreement offered, until it settles: a
 * non-blocking agreement may not claim those (see below). */
static uint32_t slot_offered;

/* Context ids [SMAP_CTX_NB_FIRST, SMAP_CTX_MAX) are for non-blocking
 * agreements only, the others for blocking ones: the two kinds never
 * compete for an id (see "non-blocking agreements" below). */
static uint32_t region_mask(int word, int nb)
{
    uint32_t in_nb = word * 32 >= SMAP_CTX_NB_FIRST ? ~0u : 0u;
    return nb ? in_nb : ~in_nb;
}
static struct {
    uint64_t key;
    double since;   /* its last failed round */
} waiting[MAX_WAITING];
static int nwaiting;
static _Thread_local int my_ctx = -1, my_slot = -1;   /* this thread's reservation */


uint64_t smap_comm_ctx_key(int parent_ctx, int tag)
{
    return (uint64_t)(uint32_t)parent_ctx << 32 | (uint32_t)tag;
}

/* Under ctx_lock. */
static void drop_mine(void)
{
    if (my_ctx >= 0)
        ctx_reserved[my_ctx / 32] &= ~(1u << (my_ctx % 32));
    if (my_slot >= 0)
        slot_reserved &= ~(1u << my_slot);
    my_ctx = my_slot = -1;
}

/* Under ctx_lock: where key waits, or -1. */
static int waiting_at(uint64_t key)
{
    for (int i = 0; i < nwaiting; i++)
        if (waiting[i].key == key)
            return i;
    return -1;
}

static int smaller_waits(uint64_t key)
{
    double now = smap_now();
    for (int i = 0; i < nwaiting; i++) {
        if (now - waiting[i].since > WAIT_STALE) {
            waiting[i--] = waiting[--nwaiting];
            continue;
        }
        if (waiting[i].key < key)
            return 1;
    }
    return 0;
}

int smap_comm_ctx_offer(uint64_t key, uint32_t *mask, uint32_t *slots)
{
    pthread_mutex_lock(&ctx_lock);
    drop_mine();
    int mine = !offering && !smaller_waits(key);
    if (mine) {
        offering = 1;
        for (int i = 0; i < SMAP_CTX_WORDS; i++)
            ctx_offered[i] = mask[i] = ~(ctx_used[i] | ctx_reserved[i]) & region_mask(i, 0);
        slot_offered = *slots &= ~slot_reserved;
    } else {
        for (int i = 0; i < SMAP_CTX_WORDS; i++)
            mask[i] = 0;
        *slots = 0;
    }
    pthread_mutex_unlock(&ctx_lock);
    return mine;
}

void smap_comm_ctx_settle(uint64_t key, int mine, int outcome, int ctx, int slot)
{
    pthread_mutex_lock(&ctx_lock);
    if (mine) {
        offering = 0;
        slot_offered = 0;
        for (int i = 0; i < SMAP_CTX_WORDS; i++)
            ctx_offered[i] = 0;
    }
    int at = waiting_at(key);
    if (outcome == SMAP_CTX_RETRY) {
        if (at < 0 && nwaiting < MAX_WAITING)
            at = nwaiting++;
        if (at >= 0) {
            waiting[at].key = key;
            waiting[at].since = smap_now();
        }
    } else {
        if (at >= 0)
            waiting[at] = waiting[--nwaiting];
        if (outcome == SMAP_CTX_AGREED) {
            if (ctx >= 0) {
                ctx_reserved[ctx / 32] |= 1u << (ctx % 32);
                my_ctx = ctx;
            }
            if (slot >= 0) {
                slot_reserved |= 1u << slot;
                my_slot = slot;
            }
        }
    }
    pthread_mutex_unlock(&ctx_lock);
}

void smap_comm_ctx_release_mine(void)
{
    pthread_mutex_lock(&ctx_lock);
    drop_mine();
    pthread_mutex_unlock(&ctx_lock);
}

void smap_comm_ctx_release_mine_if(int ctx)
{
    pthread_mutex_lock(&ctx_lock);
    if (my_ctx == ctx)
        drop_mine();
    pthread_mutex_unlock(&ctx_lock);
}

/* ---- claims: the blocking agreements' ids (comm_agree.c) ----
 * A thread that held this rank's offer while it waited for the other
 * members deadlocked: MPICH's threads/comm/comm_dup_deadlock (a dup of
 * MPI_COMM_SELF waiting for the offer that a dup of a larger communicator
 * holds while its peers wait for their own SELF dups) and livelocked
 * under four threads' MPI_Comm_create_group (comm_create_group_threads).
 * So the blocking constructors (all but the intercommunicators', which
 * still offer) hold nothing while they wait, like MPI_Comm_idup: the
 * members combine the ids (and control blocks) free here, pick one, each
 * claims it -- failing when another agreement of this rank reserved it,
 * or has it on offer, meanwhile -- and combine the claims.  A failed claim
 * anywhere: every member drops its claim and the agreement runs again.
 * The pick is the free id (and block) that the agreement's key and
 * attempt choose (smap_comm_ctx_pick_spread), not the lowest, so that
 * agreements running at once rarely collide and those that did pick
 * apart at their next attempt.  A claim reserves
 * for the calling thread, as a settled offer does. */
void smap_comm_ctx_free(uint32_t *mask, uint32_t *slots)
{
    pthread_mutex_lock(&ctx_lock);
    for (int i = 0; i < SMAP_CTX_WORDS; i++)
        mask[i] = ~(ctx_used[i] | ctx_reserved[i] | ctx_offered[i]) & region_mask(i, 0);
    *slots &= ~(slot_reserved | slot_offered);
    pthread_mutex_unlock(&ctx_lock);
}

int smap_comm_ctx_claim(int ctx, int slot, uint32_t slots_free, int *slot_ok)
{
    pthread_mutex_lock(&ctx_lock);
    drop_mine();
    uint32_t bit = 1u << (ctx % 32);
    int w = ctx / 32;
    int ok = !((ctx_used[w] | ctx_reserved[w] | ctx_offered[w]) & bit);
    if (ok) {
        ctx_reserved[w] |= bit;
        my_ctx = ctx;
    }
    *slot_ok = ok && slot >= 0 &&
               (slots_free & ~(slot_reserved | slot_offered) & (1u << slot));
    if (*slot_ok) {
        slot_reserved |= 1u << slot;
        my_slot = slot;
    }
    pthread_mutex_unlock(&ctx_lock);
    return ok;
}

void smap_comm_ctx_unclaim_slot(void)
{
    pthread_mutex_lock(&ctx_lock);
    if (my_slot >= 0)
        slot_reserved &= ~(1u << my_slot);
    my_slot = -1;
    pthread_mutex_unlock(&ctx_lock);
}

/* ---- non-blocking agreements (MPI_Comm_idup) ----
 * An idup must never hold this rank's offer while it waits for the other
 * members (they may be in a blocking agreement, or another idup, that needs
 * this rank first: MPICH's comm_create_group_idup, ctxidup, idup_deadlock
 * hang otherwise).  So it agrees in two phases without the offer, on ids
 * of its own region (SMAP_CTX_NB_FIRST up: blocking agreements never offer
 * those): the ids free here are ANDed and the lowest picked; then every
 * member tries to claim it -- failing when another idup of this rank
 * claimed it meanwhile -- and the claims are ANDed: all claimed -> made;
 * some member failed -> everybody releases and the idup tries again.  The
 * control block is claimed alongside; one that a blocking agreement has on
 * offer, or another idup claimed, is not retried for: the communicator is
 * made without one (its collectives run as schedules).  A claim reserves
 * like a settled blocking agreement, so nobody else picks the id, but not
 * for a thread: the idup releases it itself once the communicator exists. */
void smap_comm_ctx_nb_free(uint32_t *mask, uint32_t *slots)
{
    pthread_mutex_lock(&ctx_lock);
    for (int i = 0; i < SMAP_CTX_WORDS; i++)
        mask[i] = ~(ctx_used[i] | ctx_reserved[i]) & region_mask(i, 1);
    *slots &= ~slot_reserved;
    pthread_mutex_unlock(&ctx_lock);
}

int smap_comm_ctx_nb_claim(int ctx, int slot, uint32_t slots_free, int *slot_ok)
{
    pthread_mutex_lock(&ctx_lock);
    uint32_t bit = 1u << (ctx % 32);
    int w = ctx / 32;
    int ok = !((ctx_used[w] | ctx_reserved[w]) & bit);
    if (ok)
        ctx_reserved[w] |= bit;
    *slot_ok = ok && slot >= 0 && (slots_free & ~(slot_reserved | slot_offered) & (1u << slot));
    if (*slot_ok)
        slot_reserved |= 1u << slot;
    pthread_mutex_unlock(&ctx_lock);
    return ok;
}

void smap_comm_ctx_nb_release(int ctx, int slot)
{
    pthread_mutex_lock(&ctx_lock);
    if (ctx >= 0)
        ctx_reserved[ctx / 32] &= ~(1u << (ctx % 32));
    if (slot >= 0)
        slot_reserved &= ~(1u << slot);
    pthread_mutex_unlock(&ctx_lock);
}

int smap_comm_ctx_pick(const uint32_t *mask)
{
    for (int i = 0; i < SMAP_CTX_WORDS; i++)
        if (mask[i])
            return i * 32 + smap_ctz_size(mask[i]);
    return -1;
}

/* The n-th set bit of words[0..nwords) counted from the lowest, n taken
 * modulo their number; -1 when none is set. */
static int nth_set(const uint32_t *words, int nwords, uint64_t n)
{
    int total = 0;
    for (int i = 0; i < nwords; i++)
        total += smap_popcount_u32(words[i]);
    if (!total)
        return -1;
    n %= (uint64_t)total;
    for (int i = 0; i < nwords; i++) {
        uint32_t x = words[i];
        for (; x; x &= x - 1, n--)
            if (!n)
                return i * 32 + smap_ctz_size(x);
    }
    return -1;   /* not reached */
}

/* A 64-bit mix (splitmix64's finaliser): keys that differ in one bit
 * spread over the whole range. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

int smap_comm_ctx_pick_spread(const uint32_t *mask, int nwords, uint64_t key, unsigned attempt)
{
    return nth_set(mask, nwords, mix(key ^ mix(attempt)));
}

const char *smap_comm_label(const struct MPI_ABI_Comm *c)
{
    return c->name[0] ? c->name : c->origin[0] ? c->origin : "a communicator";
}

/* Long chains of unnamed parents are cut at the buffer's end. */
static void __attribute__((format(printf, 2, 3))) origin_fmt(struct MPI_ABI_Comm *c,
                                                            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->origin, sizeof c->origin, fmt, ap);
    va_end(ap);
}

void smap_comm_set_origin(struct MPI_ABI_Comm *c, const struct MPI_ABI_Comm *parent,
                          const char *func)
{
    char from[sizeof c->origin];
    snprintf(from, sizeof from, "%s", smap_comm_label(parent));
    /* The sessions' constructors pass WORLD's object as a formal parent. */
    if (func && strstr(func, "from_group"))
        origin_fmt(c, "a communicator made by %s", func);
    else if (func)
        origin_fmt(c, "a communicator made by %s from %s", func, from);
    else
        origin_fmt(c, "a communicator derived from %s", from);
}

struct MPI_ABI_Comm *smap_comm_new(const struct MPI_ABI_Comm *parent, struct MPI_ABI_Group *g,
                                   int ctx, int slot)
{
    struct MPI_ABI_Comm *c = calloc(1, sizeof *c);
    if (!c) {
        smap_group_release(g);
        return NULL;
    }
    c->magic = SMAP_COMM_MAGIC;
    c->rank = g->my_rank;
    c->size = g->size;
    c->ctx = ctx;
    c->slot = slot;
    c->group = g;
    c->handle = c;
    c->errhandler = parent->errhandler;
    smap_errhandler_retain(c->errhandler);
    smap_comm_set_origin(c, parent, NULL);
    c->session = parent->session;
    smap_session_retain(c->session);
    smap_group_set_session(g, c->session);   /* MPI_Comm_group's groups lead back to it */
    atomic_init(&c->refs, 1);
    atomic_init(&c->idle_refs, 0);
    pthread_mutex_lock(&ctx_lock);
    ctx_used[ctx / 32] |= 1u << (ctx % 32);
    c->live_next = live;
    if (live)
        live->live_prev = c;
    live = c;
    pthread_mutex_unlock(&ctx_lock);
    return c;
}

void smap_comm_unref(struct MPI_ABI_Comm *c)
{
    if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1)
        smap_comm_destroy(c);
}

static int group_holds(const struct MPI_ABI_Group *g, int w)
{
    for (int i = 0; g && i < g->size; i++)
        if (smap_group_world_rank(g, i) == w)
            return 1;
    return 0;
}

int smap_comm_live_holds(int w)
{
    int found = 0;
    pthread_mutex_lock(&ctx_lock);
    for (const struct MPI_ABI_Comm *c = live; c && !found; c = c->live_next)
        found = group_holds(c->group, w) || group_holds(c->remote_group, w);
    pthread_mutex_unlock(&ctx_lock);
    return found;
}

void smap_comm_quiesce(struct MPI_ABI_Comm *c)
{
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    while (atomic_load_explicit(&c->refs, memory_order_acquire) -
               atomic_load_explicit(&c->idle_refs, memory_order_acquire) > 1) {
        smap_p2p_progress();
        smap_bsend_reap();
        smap_wait_step(&w);
    }
}

void smap_comm_destroy(struct MPI_ABI_Comm *c)
{
    smap_handle_forget(c);
    pthread_mutex_lock(&ctx_lock);
    ctx_used[c->ctx / 32] &= ~(1u << (c->ctx % 32));
    if (c->live_prev)
        c->live_prev->live_next = c->live_next;
    else
        live = c->live_next;
    if (c->live_next)
        c->live_next->live_prev = c->live_prev;
    pthread_mutex_unlock(&ctx_lock);
    smap_group_release(c->group);
    if (c->remote_group)   /* an intercommunicator's (src/mpi/intercomm.h) */
        smap_group_release(c->remote_group);
    smap_errhandler_release(c->errhandler);
    smap_info_free(c->hints);
    run_destroy_hooks(c);   /* its virtual topology, its hierarchy's memory, if any */
    smap_session_release(c->session);
    c->magic = 0;   /* a stale handle no longer passes smap_comm_get */
    free(c);
}
