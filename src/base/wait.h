/* The waiting policy (DESIGN.md D7): spin with a pause hint for a bounded
 * number of polls, then give the CPU away with sched_yield() on every poll.
 *
 * The spin bound depends on oversubscription: when the node runs more
 * local ranks than the CPUs the launcher gave us (SMAP_NODE_CPUS, else the
 * online CPUs), or another rank is bound to our CPU, a spinning rank only
 * delays the rank it waits for, so the bound drops to a handful of polls.  Used by the node barrier and by the
 * point-to-point progress loop.  Header-only: the hot path is inline. */
#ifndef SMAP_BASE_WAIT_H
#define SMAP_BASE_WAIT_H

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/compiler.h"

static inline void smap_cpu_relax(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_ia32_pause();
#else
    /* Portable fallback: only keep the compiler from fusing the loads. */
    atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* The job's ranks on this machine (set at startup by src/boot, 0 before):
 * more than the node's when several emulated nodes (network namespaces,
 * containers) share one machine and so its CPUs. */
extern int smap_wait_machine_ranks;
/* Set at startup by src/boot when this rank is bound to one CPU and
 * another rank of the job on this machine is bound to that same CPU (two
 * emulated hosts, each pinning its local rank 0 to CPU 0): a spinning
 * waiter then holds the CPU its peer needs, whatever the counts say. */
extern int smap_wait_cpu_shared;

/* Whether `nlocal` ranks sharing the node (or more sharing the machine:
 * smap_wait_machine_ranks) outnumber the CPUs the launcher gave us
 * (SMAP_NODE_CPUS, else the online CPUs).  Computed once (the layout of a
 * job does not change); threads that race to compute it store the same
 * value (atomic: MPI_THREAD_MULTIPLE). */
static inline int smap_wait_oversubscribed(int nlocal)
{
    static _Atomic int over;   /* 0: not known yet, 1: no, 2: yes */
    int o = atomic_load_explicit(&over, memory_order_relaxed);
    if (SMAP_UNLIKELY(!o)) {
        const char *v = getenv("SMAP_NODE_CPUS");
        long cpus = v ? strtol(v, NULL, 10) : 0;
        if (cpus <= 0)
            cpus = sysconf(_SC_NPROCESSORS_ONLN);
        int on = nlocal > smap_wait_machine_ranks ? nlocal : smap_wait_machine_ranks;
        o = on > cpus ? 2 : 1;
        atomic_store_explicit(&over, o, memory_order_relaxed);
    }
    return o == 2;
}

/* Polls before yielding: a handful when oversubscribed or when our CPU is
 * shared (a spinning rank only delays the rank it waits for), else many. */
static inline unsigned smap_wait_spin_bound(int nlocal)
{
    return smap_wait_oversubscribed(nlocal) || smap_wait_cpu_shared ? 8u : 4000u;
}

/* One waiter per blocking call: smap_wait_step() after every unsuccessful
 * poll. */
struct smap_waiter {
    unsigned polls, bound;
};

static inline void smap_wait_init(struct smap_waiter *w, int nlocal)
{
    w->polls = 0;
    w->bound = smap_wait_spin_bound(nlocal);
}

/* Microseconds a long wait naps instead of yielding, 0: never.  Set when
 * the job spans nodes (src/p2p/remote.c): a peer on another node may
 * keep us waiting for long, and a yielding rank still takes a core
 * whenever nobody else wants it, which waiting for a network does not
 * need.  When `smap_wait_sleep_hook` is set too (the network offers a
 * wait object), the nap is a sleep on it: it starts at smap_wait_nap_us
 * and doubles with every nap of the same wait up to smap_wait_sleep_max_us
 * (a completion from the network ends it at once; node-local events have
 * no wait object, so the bound is their worst added latency). */
extern unsigned smap_wait_nap_us, smap_wait_sleep_max_us;
extern void (*smap_wait_sleep_hook)(unsigned us);
void smap_wait_nap(unsigned nth);

/* Returns 1 once the waiter is in its yielding phase. */
static inline int smap_wait_step(struct smap_waiter *w)
{
    if (w->polls < w->bound) {
        w->polls++;
        smap_cpu_relax();
        return 0;
    }
    /* (past a few hundred yields: the wait is long, nap) */
    if (SMAP_UNLIKELY(smap_wait_nap_us != 0) && ++w->polls - w->bound > 256u)
        smap_wait_nap(w->polls - w->bound - 257u);
    else
        sched_yield();
    return 1;
}

#endif
