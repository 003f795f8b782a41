/* Per-communicator control blocks in the collectives region and the step
 * synchronisation between them (csm.h describes the layout and the rules).
 *
 * The state of a communicator is built on its first collective: the
 * node-local rank of every member and the local address of every member's
 * slot (through our view of its collectives region).  Communicators whose
 * members live on several nodes never get a block (comm/comm_agree.c,
 * smap_comm_make): their collectives run as schedules over point-to-point. */
#define _GNU_SOURCE
#include "coll/smap/csm.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/compiler.h"
#include "base/wait.h"
#include "boot/boot.h"
#include "coll/nbc/nbc.h"
#include "mpi/group.h"
#include "p2p/p2p.h"

static struct csm_comm *states[CSM_NSLOTS];
/* WORLD's and SELF's for good.  Atomic: threads may create and free
 * communicators at once (MPI_THREAD_MULTIPLE; which thread may pick which
 * free block is settled in mpi/comm.c). */
static _Atomic uint32_t slots_used = 3u;

/* Our collectives region, created if a singleton has not made it yet (it
 * is only ours then). */
static char *own_region(void)
{
    if (!smap_coll_region()) {
        char err[160];
        if (smap_coll_region_create(err, sizeof err) != 0)
            return NULL;
    }
    return smap_coll_region();
}

/* Local address of local rank lr's slot `k`, or NULL when not mapped. */
static char *slot_of(int lr, int k)
{
    char *base;
    if (lr == smap_my_local_rank || smap_nlocal <= 1) {
        base = smap_coll_region();
    } else {
        if (!smap_peers || (unsigned)lr >= (unsigned)smap_nlocal)
            return NULL;
        const struct smap_view *v = &smap_peers[lr].view[SMAP_REGION_COLL];
        if (v->len < SMAP_COLL_REGION_SIZE)
            return NULL;
        base = (char *)(uintptr_t)(v->base + (uintptr_t)v->delta);
    }
    return base ? base + (size_t)k * CSM_SLOT_BYTES : NULL;
}

static SMAP_COLD int build(smap_comm_t *c, int k, struct csm_comm **out)
{
    if (!own_region())
        return smap_fail(MPI_ERR_INTERN, "cannot create the collectives' shared region");
    int n = c->size;
    if (n > CSM_MAX_RANKS)
        return smap_fail(MPI_ERR_UNSUPPORTED_OPERATION,
                        "communicator too large for the collectives' control blocks");
    struct csm_comm *s = calloc(1, sizeof *s);
    int *lr = calloc((size_t)n, sizeof *lr);
    char **slot = calloc((size_t)n, sizeof *slot);
    MPI_Count *disp = calloc((size_t)n + 1, sizeof *disp);
    unsigned char *flag = calloc((size_t)n, 1);
    if (!s || !lr || !slot || !disp || !flag) {
        free(s), free(lr), free(slot), free(disp), free(flag);
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the collectives' state");
    }
    for (int i = 0; i < n; i++) {
        int w = smap_group_world_rank(c->group, i);
        lr[i] = -1;
        if (w < smap_job.size && smap_job.node_of && smap_job.node_of[w] == smap_job.node)
            for (int j = 0; j < smap_job.local_size; j++)
                if (smap_job.local_ranks[j] == w)
                    lr[i] = j;
        if (n == 1)
            lr[i] = smap_my_local_rank;
        if (lr[i] < 0 || !(slot[i] = slot_of(lr[i], k))) {
            free(s), free(lr), free(slot), free(disp), free(flag);
            return smap_fail(MPI_ERR_UNSUPPORTED_OPERATION,
                            "the communicator spans several nodes: collectives between nodes "
                            "need the inter-node layer (src/net, coll/hier), not built yet");
        }
    }
    s->n = n;
    s->me = c->rank;
    s->lr = lr;
    s->slot = slot;
    s->disp = disp;
    s->flag = flag;
    s->step = csm_hdr_step((struct csm_hdr *)(void *)slot[c->rank]);
    states[k] = s;
    *out = s;
    return MPI_SUCCESS;
}

int csm_get(smap_comm_t *c, struct csm_comm **out)
{
    int k = c->slot;
    if (SMAP_UNLIKELY((unsigned)k >= CSM_NSLOTS))
        return smap_fail(MPI_ERR_UNSUPPORTED_OPERATION,
                        "this communicator has no collectives control block (its "
                        "collectives run as schedules, src/coll/nbc: this path is a bug)");
    struct csm_comm *s = states[k];
    if (SMAP_LIKELY(s != NULL)) {
        /* A member known dead has had its regions unmapped
         * (smap_peers_reap): its slot must not be read any more. */
        for (int i = 0; smap_peers && i < s->n; i++)
            if (SMAP_UNLIKELY(!smap_peers[s->lr[i]].alive) && i != s->me)
                return smap_fail(MPI_ERR_OTHER, "a rank of the communicator died");
        *out = s;
        return MPI_SUCCESS;
    }
    return build(c, k, out);
}

_Thread_local const char *smap_coll_func SMAP_TLS_INITIAL_EXEC;

static struct csm_wrec *wrec(const struct csm_comm *s, int i)
{
    return (struct csm_wrec *)(void *)(csm_half(s, i, 0) + CSM_DESC_BYTES - CSM_WREC_BYTES);
}

/* A rank in MPI_Finalize: it publishes no step any more */
#define WREC_GONE UINT64_MAX

void smap_coll_leave(void)
{
    char *r = smap_coll_region();
    for (int k = 0; r && k < CSM_NSLOTS; k++) {
        struct csm_wrec *w = (struct csm_wrec *)(void *)(r + (size_t)k * CSM_SLOT_BYTES +
                                                         CSM_HDR_BYTES + CSM_DESC_BYTES -
                                                         CSM_WREC_BYTES);
        atomic_store_explicit(&w->on, WREC_GONE, memory_order_release);
    }
}

/* Whether comm rank i, which has not published step t, has left for
 * MPI_Finalize (its record says so): it never will.  (A cycle of waits
 * within one communicator cannot form: every wait is for a step the
 * waiter has published itself, so a rank waits only for peers behind it;
 * what keeps a peer from ever catching up is that it left the
 * collectives, which its record tells.) */
static int peer_gone(const struct csm_comm *s, int i, uint64_t t)
{
    /* The record first: its release store follows every step the peer
     * published, so a step read after it is final.  Read the other way
     * round, a step published just before the peer left looked missing. */
    return atomic_load_explicit(&wrec(s, i)->on, memory_order_acquire) == WREC_GONE &&
           atomic_load_explicit(&csm_cell(s, i, t)->seq, memory_order_acquire) < t;
}

/* A peer left for MPI_Finalize below the step we wait for: the ranks took
 * different paths through a collective (its counts, types or root differ
 * between them, or one returned early on an error the others did not
 * see) and nothing can release us, so the job stops with a message naming
 * our collective, which beats a hang (DESIGN.md D18, issue 36). */
static SMAP_COLD _Noreturn void stuck(const struct csm_comm *s, int i, uint64_t t)
{
    char msg[512];
    snprintf(msg, sizeof msg,
             "%s: rank %d of the communicator waits for rank %d's step %llu while rank %d "
             "left for MPI_Finalize: the ranks took different paths through the collective "
             "(counts, types or roots differ between the ranks, or a rank returned an error "
             "the others did not see); stopping the job",
             smap_coll_func ? smap_coll_func : "a collective", s->me, i, (unsigned long long)t,
             i);
    smap_boot_abort(MPI_ERR_OTHER, msg);
}

void csm_diverged(const struct csm_comm *s, int peer)
{
    char msg[400];
    snprintf(msg, sizeof msg,
             "%s: rank %d of the communicator and rank %d took different paths through the "
             "collective (their counts or types differ, so their sizes chose different "
             "algorithms); stopping the job rather than writing where the other did not ask",
             smap_coll_func ? smap_coll_func : "a collective", s->me, peer);
    smap_boot_abort(MPI_ERR_OTHER, msg);
}

/* Waiting for a peer's step, past the spin phase: yield, drive
 * point-to-point now and then (a peer may wait for our sends before it
 * joins), give up when a node peer has died, and stop the job when the
 * peer has left for MPI_Finalize without the step. */
static SMAP_COLD int wait_slow(const struct csm_comm *s, int peer, uint64_t t,
                               struct smap_waiter *w)
{
    _Atomic uint64_t *seq = &csm_cell(s, peer, t)->seq;
    for (unsigned i = 1;; i++) {
        if (atomic_load_explicit(seq, memory_order_acquire) >= t)
            return 0;
        smap_wait_step(w);
        if ((i & 63) == 0) {
            smap_p2p_progress();
            if (smap_nlocal > 1 && smap_peers_attached() && smap_node_barrier_peer_died())
                return smap_fail(MPI_ERR_OTHER, "a rank of the communicator died");
            if (peer_gone(s, peer, t))
                stuck(s, peer, t);
        }
    }
}

int csm_wait_slow(const struct csm_comm *s, int i, uint64_t t)
{
    /* acquire: the cell's data and everything written before step t */
    _Atomic uint64_t *seq = &csm_cell(s, i, t)->seq;
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    for (unsigned spins = w.bound; spins > 0; spins--) {
        smap_cpu_relax();
        if (atomic_load_explicit(seq, memory_order_acquire) >= t)
            return MPI_SUCCESS;
    }
    return wait_slow(s, i, t, &w);
}

int csm_wait_all(struct csm_comm *s, uint64_t t)
{
    if (s->seen >= t)   /* known already: no peer line read at all */
        return MPI_SUCCESS;
    for (int i = 0; i < s->n; i++) {
        if (i == s->me)
            continue;
        int rc = csm_wait(s, i, t);
        if (rc)
            return rc;
    }
    s->seen = t;
    return MPI_SUCCESS;
}

int csm_catch_up(struct csm_comm *s, uint64_t need)
{
    /* A peer that shows our own step is known there for the next
     * CSM_NCELLS-2 writes; only one that lags is waited for, to `need`.
     * (acquire: its reads of the cell we rewrite came before either.) */
    uint64_t now = s->step, known = now;
    for (int i = 0; i < s->n; i++) {
        if (i == s->me)
            continue;
        if (atomic_load_explicit(&csm_cell(s, i, now)->seq, memory_order_acquire) >= now)
            continue;
        int rc = csm_wait(s, i, need);
        if (rc)
            return rc;
        known = need;
    }
    if (known > s->seen)
        s->seen = known;
    return MPI_SUCCESS;
}

int csm_exposed(const void *p, size_t len)
{
    if (smap_caps.copy_level != SMAP_COPY_DIRECT)
        return 0;
    static const enum smap_region_kind kinds[] = { SMAP_REGION_HEAP, SMAP_REGION_DATA,
                                                   SMAP_REGION_STACK, SMAP_REGION_COLL };
    uintptr_t a = (uintptr_t)p;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const struct smap_region *r = smap_region_self(kinds[k]);
        if (!r || !r->base)
            continue;
        uintptr_t off = a - r->base;
        if (off < r->len && len <= r->len - off)
            return 1;
    }
    return 0;
}

int csm_cma_ok(void)
{
    return smap_caps.copy_level <= SMAP_COPY_CMA && smap_caps.cma_ok;
}

uint32_t smap_coll_slots_free(void)
{
    return ~atomic_load_explicit(&slots_used, memory_order_acquire) & ((1u << CSM_NSLOTS) - 1);
}

static struct csm_hdr *own_hdr(int k)
{
    char *r = own_region();
    return r ? (struct csm_hdr *)(void *)(r + (size_t)k * CSM_SLOT_BYTES) : NULL;
}

uint64_t smap_coll_slot_step(int k)
{
    struct csm_hdr *h = own_hdr(k);
    return h ? csm_hdr_step(h) : 0;
}

void smap_coll_slot_claim(int k, uint64_t step)
{
    atomic_fetch_or_explicit(&slots_used, 1u << k, memory_order_relaxed);
    struct csm_hdr *h = own_hdr(k);
    /* raised, never lowered: a past user's peer may still wait for it.
     * Every cell, each to the last step of its residue up to `step`, so
     * that cell[t%CSM_NCELLS].seq >= t keeps meaning "published t". */
    for (uint64_t k2 = 0; h && k2 < CSM_NCELLS && k2 <= step; k2++) {
        uint64_t v = step - k2;
        _Atomic uint64_t *seq = &h->cell[v % CSM_NCELLS].seq;
        if (atomic_load_explicit(seq, memory_order_relaxed) < v)
            atomic_store_explicit(seq, v, memory_order_release);
    }
}

int smap_coll_release(smap_comm_t *c)
{
    int k = c->slot, rc = MPI_SUCCESS;
    if ((unsigned)k >= CSM_NSLOTS || k < 2)
        return MPI_SUCCESS;
    struct csm_comm *s = states[k];
    if (s) {
        if (s->n > 1)
            rc = csm_sync(s);
        free(s->lr), free(s->slot), free(s->disp), free(s->flag), free(s);
        states[k] = NULL;
    }
    atomic_fetch_and_explicit(&slots_used, ~(1u << k), memory_order_release);
    c->slot = -1;
    return rc;
}

_Atomic int csm_consumed;

int smap_coll_consumed_take(void)
{
    if (!atomic_load_explicit(&csm_consumed, memory_order_relaxed))
        return 0;
    atomic_store_explicit(&csm_consumed, 0, memory_order_relaxed);
    return 1;
}

int smap_cb_barrier(smap_comm_t *c)
{
    if (c->slot < 0)   /* no control block: a schedule instead (src/coll/nbc) */
        return smap_nbc_barrier(c, NULL);
    struct csm_comm *s;
    smap_coll_func = "MPI_Barrier";
    int rc = csm_get(c, &s);
    return rc ? rc : csm_sync(s);
}
