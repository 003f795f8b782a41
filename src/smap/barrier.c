/* The node barrier (public smap_node_barrier, DESIGN.md D6/D7): gather and
 * release through the first cache lines of the control regions.
 *
 * Every rank counts its barriers in `arrived`, a line of its own control
 * region that only it writes: arriving at barrier e is one store of e.
 * Local rank 0 (the gatherer) polls those lines, each peer's own, and once
 * all show e it stores e in `released`, a line of its own region that
 * every other rank polls.  So an arrival costs one line transfer to the
 * gatherer, the release one to each waiter, and no line is written by two
 * ranks (a shared counter had every arrival fight for one line with an
 * atomic read-modify-write, and the last rank to arrive, not the root of
 * the collective that follows, left first).  Local rank 0 leaves as soon
 * as the last arrival is seen: it is world rank 0 in the usual layout,
 * the root of the rooted collectives a program's loop calls next, so it
 * starts their data on its way while the others still see the release.
 *
 * Epochs are unsigned and compared modulo 2^32 (wrap-safe); each rank
 * keeps its own in its arrival line, the gatherer its in `released`.
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
#include "base/wait.h"
#include "boot/boot.h"

struct node_bar {
    _Alignas(64) atomic_uint arrived;    /* every rank's own: its last barrier */
    _Alignas(64) atomic_uint released;   /* local rank 0's: the last one completed */
};
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

/* The gatherer's progress within the current barrier: the first local
 * rank whose arrival it has not seen yet (ranks before it arrived).  Only
 * local rank 0 uses it, one barrier at a time. */
static int gather_next = 1;

/* Local rank 0: polls the arrivals not yet seen, once each; releases
 * barrier e when all are in.  1 when released. */
static int gather(unsigned e)
{
    for (; gather_next < smap_nlocal; gather_next++) {
        struct node_bar *p = bar_of(gather_next);
        /* acquire: what the peer wrote before arriving happens before our
         * release, so before the other waiters leave */
        if (!p || !reached(atomic_load_explicit(&p->arrived, memory_order_acquire), e))
            return 0;
    }
    gather_next = 1;
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
            return 1;
        }
    return 0;
}

/* The barrier this thread is waiting in (smap_node_barrier_peer_died). */
static _Thread_local int pending;
static _Thread_local unsigned pending_e;

/* Arrival half: 1 when this rank completed the barrier (local rank 0 saw
 * every arrival in), 0 with the epoch to wait for in *gen, -1 on failure. */
int smap_node_barrier_arrive(unsigned *gen)
{
    struct node_bar *me = bar_of(smap_my_local_rank);
    if (SMAP_UNLIKELY(!me))
        return -1;
    if (smap_my_local_rank == 0) {
        unsigned e = atomic_load_explicit(&me->released, memory_order_relaxed) + 1;
        if (gather(e))
            return 1;
        *gen = pending_e = e;
        pending = 1;
        return 0;
    }
    unsigned e = atomic_load_explicit(&me->arrived, memory_order_relaxed) + 1;
    /* release: our writes before the barrier reach whoever leaves it */
    atomic_store_explicit(&me->arrived, e, memory_order_release);
    *gen = pending_e = e;
    pending = 1;
    return 0;
}

/* Whether the barrier of epoch e has completed (local rank 0 completes it
 * here, when the last arrival shows). */
int smap_node_barrier_done(unsigned e)
{
    int done;
    if (smap_my_local_rank == 0) {
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
    int rc = smap_node_barrier_arrive(&e);
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
