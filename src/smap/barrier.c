/* The node barrier (public smap_node_barrier, DESIGN.md D7): a central
 * counter plus a generation word in the first cache lines of local rank 0's
 * control region, reached through our view of it.  Each rank reads the
 * generation, then increments the counter; the last to arrive resets the
 * counter and publishes the next generation, which releases the others.
 *
 * Waiting spins with a pause hint, then yields the CPU: with more local
 * ranks than CPUs (8 ranks on 2 cores) the spin phase is almost skipped,
 * because a spinning rank only delays the one it waits for.  While it
 * waits long, it checks whether a node peer died (the barrier could never
 * complete) and then fails instead of hanging.
 *
 * Before the views exist (inside smap_init) it is the bootstrap's node
 * barrier. */
#define _GNU_SOURCE
#include "smap/smap.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/wait.h"
#include "boot/boot.h"

struct node_bar {
    _Alignas(64) atomic_uint count;
    _Alignas(64) atomic_uint gen;
};
_Static_assert(sizeof(struct node_bar) <= SMAP_CTL_BARRIER_BYTES, "barrier outgrew its ctl bytes");

static struct node_bar *bar_of_lr0(void)
{
    if (smap_my_local_rank == 0)
        return (struct node_bar *)smap_ctl_base();
    const struct smap_view *v = &smap_peers[0].view[SMAP_REGION_CTL];
    return v->len ? (struct node_bar *)(uintptr_t)(v->base + (uintptr_t)v->delta) : NULL;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
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

static SMAP_COLD int wait_slow(struct node_bar *b, unsigned g)
{
    double next_check = now_s() + 0.05;
    for (unsigned i = 0;; i++) {
        sched_yield();
        if (atomic_load_explicit(&b->gen, memory_order_acquire) != g)
            return 0;
        if ((i & 63) == 0 && now_s() > next_check) {
            if (peer_died())
                return -1;
            next_check = now_s() + 0.05;
        }
    }
}

/* Arrival half: 1 when this rank completed the barrier (it was the last),
 * 0 with the generation to wait on in *gen, -1 on failure. */
int smap_node_barrier_arrive(unsigned *gen)
{
    struct node_bar *b = bar_of_lr0();
    if (SMAP_UNLIKELY(!b))
        return -1;
    /* The generation must be read before arriving: once we are counted the
     * last rank may bump it at any time. */
    unsigned g = atomic_load_explicit(&b->gen, memory_order_acquire);
    unsigned prev = atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel);
    if (prev + 1 == (unsigned)smap_nlocal) {
        /* Nobody touches count until the new generation is visible. */
        atomic_store_explicit(&b->count, 0, memory_order_relaxed);
        atomic_store_explicit(&b->gen, g + 1, memory_order_release);
        return 1;
    }
    *gen = g;
    return 0;
}

/* Whether the barrier entered at generation g has completed. */
int smap_node_barrier_done(unsigned g)
{
    struct node_bar *b = bar_of_lr0();
    return atomic_load_explicit(&b->gen, memory_order_acquire) != g;
}

/* For waiters that poll (MPI_Barrier progresses point-to-point meanwhile):
 * 1 when a node peer has died, checked at most every 50 ms. */
int smap_node_barrier_peer_died(void)
{
    static _Thread_local double next_check;   /* per thread: MPI_THREAD_MULTIPLE */
    double t = now_s();
    if (t < next_check)
        return 0;
    next_check = t + 0.05;
    return peer_died();
}

SMAP_EXPORT int smap_node_barrier(void)
{
    if (SMAP_UNLIKELY(!smap_peers_attached()))
        return smap_nlocal > 0 ? smap_boot_node_barrier() : -1;
    if (smap_nlocal == 1)
        return 0;
    unsigned g;
    int rc = smap_node_barrier_arrive(&g);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    struct node_bar *b = bar_of_lr0();
    unsigned spin = smap_wait_spin_bound(smap_nlocal);
    for (unsigned i = 0; i < spin; i++) {
        if (atomic_load_explicit(&b->gen, memory_order_acquire) != g)
            return 0;
        smap_cpu_relax();
    }
    return wait_slow(b, g);
}
