/* The node barrier (public smap_node_barrier, DESIGN.md D6/D7): flag
 * lines in the first cache lines of the control regions, in one of two
 * shapes chosen once per job from the local rank count.
 *
 * Every rank counts its barriers in `arrived`, a line of its own control
 * region that only it writes: arriving at barrier e is one store of e.
 *
 * Flat (up to SMAP_BARRIER_FLAT_MAX local ranks, not oversubscribed):
 * every rank polls every peer's `arrived` line and leaves when all show e.
 * The last arrival reaches everyone in one line transfer (the peers' loads
 * overlap), where gather/release needs two in a row: with 2 ranks the
 * barrier costs half a ping-pong, not a whole one.  Each line is read by
 * n-1 ranks, so the traffic grows as n^2: hence the bound.
 *
 * Which rank leaves first matters to the call after the barrier: a line
 * a peer stored reaches us one transfer after the store, whenever we
 * start polling it.  Flat, the last rank to arrive finds every other
 * arrival there already and leaves at once, one transfer before the
 * others see it; in a loop of "barrier; collective" that last rank is the
 * one that waited for data in the collective (a bcast receiver, a reduce
 * root), and it now leaves first and waits again, two transfers, for data
 * its producer writes only after leaving itself.  So a rank that consumed
 * peers' data since its last barrier (the caller says so: `late`) leaves
 * a flat barrier only once a peer (the helper: local rank 0, or 1 for
 * rank 0) shows in its `released` line that it saw every arrival: the
 * producers leave first and the consumer one transfer after them, as
 * their first line reaches it (gather/release's order, for the ranks that
 * benefit from it).  Everyone stores `released` after seeing every
 * arrival; the consumer checked every arrival itself, so the wait for the
 * helper is advisory: it is bounded (BAR_ACK_POLLS) and a dead or
 * descheduled helper only ends it early.  A loop of bare barriers
 * consumes nothing and stays at one transfer per barrier.
 *
 * Gather/release (more ranks, or more ranks than CPUs): local rank 0 (the
 * gatherer) polls the `arrived` lines, and once all show e it stores e in
 * `released`, a line of its own region that every other rank polls.  An
 * arrival costs one line transfer to the gatherer, the release one to
 * each waiter.  Local rank 0 leaves as soon as the last arrival is seen:
 * it is world rank 0 in the usual layout, the root of the rooted
 * collectives a program's loop calls next, so it starts their data on its
 * way while the others still see the release; oversubscribed, that is
 * what keeps the others from waiting for a descheduled root (a flat
 * barrier lets them leave first and spin on data rank 0 has no CPU to
 * write).
 *
 * In both no line has two writers and no atomic read-modify-write is
 * needed (a shared counter had every arrival fight for one line, and the
 * last rank to arrive left first).  Epochs are unsigned and compared
 * modulo 2^32 (wrap-safe); each rank keeps its own in its arrival line,
 * the gatherer its in `released`.  A rank that runs ahead into barrier e+1
 * stores e+1, which still reads as "arrived at e" to a slow poller.
 *
 * Waiting spins with a pause hint, then yields the CPU (base/wait.h: with
 * more local ranks than CPUs the spin phase is almost skipped, because a
 * spinning rank only delays the one it waits for).  While it waits long,
 * it checks whether a node peer died (the barrier could never complete)
 * and then fails instead of hanging.
 *
 * Before the views exist (inside smap_init) it is the bootstrap's node
 * barrier. */
#define _GNU_SOURCE
#include "smap/smap.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/tunables.h"
#include "base/wait.h"
#include "boot/boot.h"

struct node_bar {
    _Alignas(64) atomic_uint arrived;    /* every rank's own: its last barrier */
    _Alignas(64) atomic_uint released;   /* gather/release: local rank 0's, the last one
                                            completed; flat: every rank's, the last one
                                            whose arrivals it saw all */
};

/* Polls a late rank gives its helper (flat shape) before it leaves
 * anyway: the helper's `released` normally shows within two line
 * transfers, so this only ends the waits on a helper without a CPU. */
#define BAR_ACK_POLLS 200u
_Static_assert(sizeof(struct node_bar) <= SMAP_CTL_BARRIER_BYTES, "barrier outgrew its ctl bytes");

/* Local rank lr's barrier lines through our view, NULL when not mapped
 * (a dead peer's views are unmapped by smap_peers_reap). */
static struct node_bar *bar_of(int lr)
{
    if (lr == smap_my_local_rank)
        return (struct node_bar *)smap_ctl_base();
    const struct smap_view *v = &smap_peers[lr].view[SMAP_REGION_CTL];
    return v->len ? (struct node_bar *)(uintptr_t)(v->base + (uintptr_t)v->delta) : NULL;
}

/* Whether epoch `have` is epoch `want` or later. */
static inline int reached(unsigned have, unsigned want)
{
    return (int)(have - want) >= 0;
}

/* Whether this job's barrier is flat (1) or gather/release (0); computed
 * once, the same value on every rank (the layout and SMAP_* are the
 * job's).  Threads that race store the same value. */
static _Atomic int shape = -1;

static inline int is_flat(void)
{
    int f = atomic_load_explicit(&shape, memory_order_relaxed);
    if (SMAP_UNLIKELY(f < 0)) {
        f = smap_nlocal <= (int)smap_tun.barrier_flat_max && !smap_wait_oversubscribed(smap_nlocal);
        atomic_store_explicit(&shape, f, memory_order_relaxed);
    }
    return f;
}

/* The poller's progress within the current barrier: the first local rank
 * whose arrival it has not seen yet (ranks before it arrived).  Used by
 * every rank (flat) or by local rank 0 (gather/release), one barrier at a
 * time. */
static int poll_next;

/* Flat: whether the current barrier waits for its helper's `released`
 * (the caller consumed data since its last barrier), whether every
 * arrival was seen already (only that wait is left), and its polls. */
static int bar_late, bar_all_in;
static unsigned bar_ack_polls;

/* The peer a late rank waits for (flat shape). */
static inline int helper(void)
{
    return smap_my_local_rank == 0 ? 1 : 0;
}

/* Polls the arrivals not seen yet, once each: 1 when every peer has
 * arrived at e. */
static int all_arrived(unsigned e)
{
    for (; poll_next < smap_nlocal; poll_next++) {
        if (poll_next == smap_my_local_rank)
            continue;
        struct node_bar *p = bar_of(poll_next);
        /* acquire: what the peer wrote before arriving happens before we
         * leave (gather/release: before our release, so before the other
         * waiters leave) */
        if (!p || !reached(atomic_load_explicit(&p->arrived, memory_order_acquire), e))
            return 0;
    }
    poll_next = 0;
    return 1;
}

/* Flat: 1 once barrier e is done for this rank.  Every rank stores
 * `released` when it has seen every arrival; a late one then waits
 * (bounded) until its helper's shows e too. */
static int flat_done(unsigned e)
{
    if (!bar_all_in) {
        if (!all_arrived(e))
            return 0;
        atomic_store_explicit(&bar_of(smap_my_local_rank)->released, e, memory_order_release);
        if (!bar_late)
            return 1;
        bar_all_in = 1;
        bar_ack_polls = 0;
    }
    struct node_bar *h = bar_of(helper());
    if (h && !reached(atomic_load_explicit(&h->released, memory_order_acquire), e) &&
        ++bar_ack_polls < BAR_ACK_POLLS)
        return 0;
    bar_all_in = 0;
    return 1;
}

/* Gather/release, local rank 0: releases barrier e once all are in.  1
 * when released. */
static int gather(unsigned e)
{
    if (!all_arrived(e))
        return 0;
    atomic_store_explicit(&bar_of(0)->released, e, memory_order_release);
    return 1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Whether a node peer has exited (or was reaped before), without reaping
 * it: its regions stay mapped, so what it stored before it exited (a
 * release) can still be read.  The same test as smap_peers_reap. */
static SMAP_COLD int peer_exited(void)
{
    int n = smap_nlocal;
    struct pollfd pf[n];
    for (int lr = 0; lr < n; lr++) {
        const struct smap_peer *p = &smap_peers[lr];
        int watch = lr != smap_my_local_rank && p->alive && p->pidfd >= 0;
        pf[lr] = (struct pollfd){ .fd = watch ? p->pidfd : -1, .events = POLLIN };
    }
    (void)poll(pf, (nfds_t)n, 0);
    for (int lr = 0; lr < n; lr++) {
        const struct smap_peer *p = &smap_peers[lr];
        if (lr == smap_my_local_rank)
            continue;
        if (!p->alive)
            return 1;   /* reaped already */
        if (p->pidfd >= 0 ? (pf[lr].revents & (POLLIN | POLLHUP)) != 0
                          : kill(p->pid, 0) != 0 && errno == ESRCH)
            return 1;
    }
    return 0;
}

/* A node peer is dead: the barrier may never complete. */
static SMAP_COLD int peer_died(void)
{
    smap_peers_reap();
    for (int lr = 0; lr < smap_nlocal; lr++)
        if (lr != smap_my_local_rank && !smap_peers[lr].alive) {
            smap_warn("node barrier: local rank %d (pid %ld) has died", lr, (long)smap_peers[lr].pid);
            poll_next = 0;   /* this barrier is abandoned */
            bar_all_in = 0;
            return 1;
        }
    return 0;
}

/* The barrier this thread is waiting in (smap_node_barrier_peer_died). */
static _Thread_local int pending;
static _Thread_local unsigned pending_e;

/* Arrival half: 1 when this rank completed the barrier already (flat:
 * everyone was in; gather/release: local rank 0 saw every arrival), 0
 * with the epoch to wait for in *gen, -1 on failure. */
int smap_node_barrier_arrive(unsigned *gen, int late)
{
    struct node_bar *me = bar_of(smap_my_local_rank);
    if (SMAP_UNLIKELY(!me))
        return -1;
    int flat = is_flat();
    unsigned e;
    if (!flat && smap_my_local_rank == 0) {
        e = atomic_load_explicit(&me->released, memory_order_relaxed) + 1;
        if (gather(e))
            return 1;
    } else {
        e = atomic_load_explicit(&me->arrived, memory_order_relaxed) + 1;
        /* release: our writes before the barrier reach whoever leaves it */
        atomic_store_explicit(&me->arrived, e, memory_order_release);
        if (flat) {
            bar_late = late;
            bar_all_in = 0;
            if (flat_done(e))
                return 1;
        }
    }
    *gen = pending_e = e;
    pending = 1;
    return 0;
}

/* Whether the barrier of epoch e has completed (flat: every arrival
 * shows; gather/release: local rank 0 completes it here, when the last
 * arrival shows). */
int smap_node_barrier_done(unsigned e)
{
    int done;
    if (is_flat()) {
        done = flat_done(e);
    } else if (smap_my_local_rank == 0) {
        done = gather(e);
    } else {
        struct node_bar *b = bar_of(0);
        done = b && reached(atomic_load_explicit(&b->released, memory_order_acquire), e);
    }
    if (done)
        pending = 0;
    return done;
}

/* For waiters that poll (MPI_Barrier progresses point-to-point meanwhile):
 * 1 when a node peer has died, checked at most every 50 ms.  A peer may
 * release the barrier and exit at once (local rank 0 leaves the one in
 * smap_finalize first): so while this thread waits in a barrier, an exit
 * is first seen without unmapping the peer, and when the barrier turns
 * out complete it is no failure (the waiter's next poll sees it done). */
int smap_node_barrier_peer_died(void)
{
    static _Thread_local double next_check;   /* per thread: MPI_THREAD_MULTIPLE */
    double t = now_s();
    if (t < next_check)
        return 0;
    next_check = t + 0.05;
    if (pending) {
        if (!peer_exited())
            return 0;
        unsigned e = pending_e;
        if (bar_all_in)
            bar_ack_polls = BAR_ACK_POLLS;   /* everyone arrived: only the advisory wait is left */
        if (smap_node_barrier_done(e)) {
            pending = 1;   /* the caller's next poll completes it */
            return 0;
        }
    }
    return peer_died();
}

/* A waiter past its spin phase: yield, and fail when a node peer died. */
static SMAP_COLD int wait_slow(unsigned e, struct smap_waiter *w)
{
    for (;;) {
        if (smap_node_barrier_done(e))
            return 0;
        if (smap_wait_step(w) && smap_node_barrier_peer_died()) {
            pending = 0;
            return -1;
        }
    }
}

SMAP_EXPORT int smap_node_barrier(void)
{
    if (SMAP_UNLIKELY(!smap_peers_attached()))
        return smap_nlocal > 0 ? smap_boot_node_barrier() : -1;
    if (smap_nlocal == 1)
        return 0;
    unsigned e;
    int rc = smap_node_barrier_arrive(&e, 0);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    while (w.polls < w.bound) {
        if (smap_node_barrier_done(e))
            return 0;
        smap_wait_step(&w);
    }
    return wait_slow(e, &w);
}
