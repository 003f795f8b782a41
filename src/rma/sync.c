/* Synchronisation (MPI 5.0 §12.5): fence, post/start/complete/wait/test,
 * passive-target locks, flushes.
 *
 * Every operation is complete when its call returns (rma.h; puts to other
 * nodes at the flush that ends their epoch), so synchronisation only has
 * to order: a fence is a barrier through the
 * fence words of the window's control blocks; PSCW counts posts and
 * completions in per-pair counters of the control blocks (a start consumes
 * one post of each target, a wait one completion of each origin); a lock
 * is an atomic word in the target's control block.  Waiting follows D7:
 * a bounded spin, then sched_yield, driving point-to-point progress every
 * 64 polls (a peer may be blocked in a send to us) and noticing dead
 * peers.  The entry points pass their arguments as given: the assert bits,
 * lock types and ranks are checked here (MPI_PROC_NULL: nothing to do). */
#define _GNU_SOURCE
#include "rma/internal.h"

#include <stdlib.h>

#include "base/compiler.h"
#include "base/wait.h"
#include "mpi/group.h"
#include "p2p/p2p.h"
#include "smap/smap.h"

void smap_rma_backoff_init(struct smap_rma_backoff *b)
{
    b->polls = 0;
    b->yields = 0;
    b->bound = smap_wait_spin_bound(smap_nlocal);
}

int smap_rma_backoff(struct smap_rma_backoff *b)
{
    /* origins may wait for us meanwhile; with peers on other nodes, their
     * requests and answers come through point-to-point progress */
    if (atomic_load_explicit(&smap_rma_net_live, memory_order_relaxed))
        smap_p2p_progress();
    else if (smap_p2p_progress_rma)
        smap_rma_am_serve();
    if (b->polls < b->bound) {
        b->polls++;
        smap_cpu_relax();
        return MPI_SUCCESS;
    }
    sched_yield();
    if ((++b->yields & 63) == 0) {
        smap_p2p_progress();
        if (smap_nlocal > 1 && smap_peers_attached() && smap_node_barrier_peer_died())
            return smap_fail(MPI_ERR_OTHER, "a rank of the window died");
    }
    return MPI_SUCCESS;
}

int smap_rma_wait_ge(_Atomic uint64_t *word, uint64_t value)
{
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    while (atomic_load_explicit(word, memory_order_acquire) < value) {
        int rc = smap_rma_backoff(&b);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

int smap_rma_acc_lock(struct smap_rma_cb *cb)
{
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    for (;;) {
        uint32_t z = 0;
        if (atomic_load_explicit(&cb->acc_lock, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(&cb->acc_lock, &z, SMAP_RMA_ACC_PLAIN,
                                                  memory_order_acquire, memory_order_relaxed))
            return MPI_SUCCESS;
        int rc = smap_rma_backoff(&b);
        if (rc)
            return rc;
    }
}

/* The Dekker half of the bulk path (node.c): our seq_cst exchange on the
 * lock word and an origin's seq_cst store to its busy flag are ordered, so
 * either it sees DRAIN and backs off, or we see its flag and wait. */
int smap_rma_acc_lock_drain(struct smap_rma_cb *cb, int n)
{
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    for (;;) {
        uint32_t z = 0;
        if (atomic_load_explicit(&cb->acc_lock, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(&cb->acc_lock, &z, SMAP_RMA_ACC_DRAIN,
                                                  memory_order_seq_cst, memory_order_relaxed))
            break;
        int rc = smap_rma_backoff(&b);
        if (rc)
            return rc;
    }
    /* A flag is held for a few atomics only.  No progress while we hold
     * the lock: a request served from it could want this very lock (a
     * window of ours, accumulated by a rank on another node). */
    for (int i = 0; i < n; i++) {
        _Atomic uint64_t *busy = smap_rma_busy_flag(cb, n, i);
        smap_rma_backoff_init(&b);
        while (atomic_load_explicit(busy, memory_order_seq_cst) != 0) {
            if (b.polls < b.bound) {
                b.polls++;
                smap_cpu_relax();
                continue;
            }
            sched_yield();
            if ((++b.yields & 63) == 0 && smap_nlocal > 1 && smap_peers_attached() &&
                smap_node_barrier_peer_died()) {
                smap_rma_acc_unlock(cb);
                return smap_fail(MPI_ERR_OTHER, "a rank of the window died");
            }
        }
    }
    return MPI_SUCCESS;
}

void smap_rma_acc_unlock(struct smap_rma_cb *cb)
{
    atomic_store_explicit(&cb->acc_lock, 0, memory_order_release);
}

int smap_rma_barrier(struct MPI_ABI_Win *w)
{
    uint64_t k = ++w->fence_seq;
    if (w->net) {
        /* peers on other nodes: our puts there are acknowledged, then
         * each hears our fence number (remote.c) */
        int rc = smap_rma_net_flush_all(w);
        if (rc)
            return rc;
        for (int i = 0; i < w->n; i++)
            if (w->t[i].remote)
                smap_rma_net_signal(w, i, SMAP_RMA_NET_FENCE, k);
    }
    /* release: our stores to our window and everything we put elsewhere */
    atomic_store_explicit(&w->cb->fence, w->t[w->me].fence_base + k, memory_order_release);
    for (int i = 0; i < w->n; i++) {
        if (i == w->me)
            continue;
        int rc = w->t[i].remote ? smap_rma_wait_ge(&w->net_fence[i], k)
                                : smap_rma_wait_ge(&w->t[i].cb->fence, w->t[i].fence_base + k);
        if (rc)
            return rc;
    }
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}

/* ---- the arguments the entry points pass as given ---- */

/* MPI_ERR_ASSERT when `a` holds a bit outside `allowed` (MPI 5.0 §12.5.5:
 * each call takes its own subset of the MPI_MODE_* bits). */
static int check_assert(int a, int allowed)
{
    if (SMAP_UNLIKELY(a & ~allowed))
        return smap_failf(MPI_ERR_ASSERT, "assert %d holds bits this call does not take", a);
    return MPI_SUCCESS;
}

/* ---- fence ---- */

int smap_win_fence(MPI_Win h, int assert)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    int rc = check_assert(assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                                      MPI_MODE_NOSUCCEED);
    if (rc)
        return rc;
    if (w->nlocks || w->lock_all || w->nstart >= 0 || w->npost >= 0)
        return smap_fail(MPI_ERR_RMA_SYNC,
                             "a lock, start or post epoch is open on this window");
    /* NOPRECEDE: no operation of ours precedes, but others may have put
     * into our window or expect ours to be seen: a barrier is still the
     * simplest correct answer, and costs one round on the node. */
    rc = smap_rma_barrier(w);
    if (rc)
        return rc;
    w->fence_open = !(assert & MPI_MODE_NOSUCCEED);
    w->fence_used = 0;
    return MPI_SUCCESS;
}

/* A fence without MPI_MODE_NOSUCCEED opens an epoch only if operations
 * follow it (MPI 5.0 §12.5.1): before the first one, another kind of
 * epoch may begin instead. */
static int fence_busy(struct MPI_ABI_Win *w)
{
    if (w->fence_open && !w->fence_used)
        w->fence_open = 0;
    return w->fence_open;
}

/* ---- PSCW ---- */

/* The group's members as window ranks; NULL with *n -1 on failure. */
static int *translate(struct MPI_ABI_Win *w, struct MPI_ABI_Group *g, int *n, int *cls,
                      const char **why)
{
    int *r = malloc((size_t)(g->size ? g->size : 1) * sizeof *r);
    if (!r) {
        *cls = MPI_ERR_NO_MEM;
        *why = "out of memory";
        return NULL;
    }
    for (int i = 0; i < g->size; i++) {
        r[i] = smap_group_find(w->group, smap_group_world_rank(g, i));
        if (r[i] < 0) {
            free(r);
            *cls = MPI_ERR_GROUP;
            *why = "the group holds a process that is not in the window's group";
            return NULL;
        }
    }
    *n = g->size;
    return r;
}

int smap_win_post(MPI_Win h, struct MPI_ABI_Group *g, int assert)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    int bad = check_assert(assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT);
    if (bad)
        return bad;
    if (w->npost >= 0 || fence_busy(w))
        return smap_fail(MPI_ERR_RMA_SYNC, w->npost >= 0
                                                   ? "an exposure epoch (MPI_Win_post) is open"
                                                   : "a fence epoch is open (end it with "
                                                     "MPI_MODE_NOSUCCEED)");
    /* MPI 5.0 §12.5.3: a window may not be locked and exposed at once.  A
     * lock held now (by any process, node peers and other nodes alike: all
     * take this word) was granted before this post, so the program is
     * erroneous whatever happens next; a lock taken with MPI_MODE_NOCHECK
     * leaves no trace and is not seen.  The other order (a lock granted
     * during the epoch) is seen by the lock: cb->exposed. */
    if (atomic_load_explicit(&w->cb->lock, memory_order_acquire) &
        (SMAP_RMA_EXCL | SMAP_RMA_SHARED))
        return smap_fail(MPI_ERR_RMA_CONFLICT,
                             "the window is locked (MPI_Win_lock) by a process: it cannot be "
                             "exposed by MPI_Win_post at the same time");
    int cls = 0, n = 0;
    const char *why = "";
    int *r = translate(w, g, &n, &cls, &why);
    if (!r)
        return smap_fail(cls, why);
    w->post_grp = r;
    w->npost = n;
    w->post_nocheck = (assert & MPI_MODE_NOCHECK) != 0;
    atomic_store_explicit(&w->cb->exposed, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    if (!w->post_nocheck)
        for (int i = 0; i < n; i++) {
            if (w->t[r[i]].remote)
                smap_rma_net_signal(w, r[i], SMAP_RMA_NET_POST, 0);
            else
                atomic_fetch_add_explicit(smap_rma_post_ctr(w->t[r[i]].cb, w->me), 1,
                                          memory_order_release);
        }
    return MPI_SUCCESS;
}

int smap_win_start(MPI_Win h, struct MPI_ABI_Group *g, int assert)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    int bad = check_assert(assert, MPI_MODE_NOCHECK);
    if (bad)
        return bad;
    if (w->nstart >= 0 || w->lock_all || w->nlocks || fence_busy(w))
        return smap_fail(MPI_ERR_RMA_SYNC, "another access epoch is open on this window");
    int cls = 0, n = 0;
    const char *why = "";
    int *r = translate(w, g, &n, &cls, &why);
    if (!r)
        return smap_fail(cls, why);
    w->start_nocheck = (assert & MPI_MODE_NOCHECK) != 0;
    if (!w->start_nocheck)
        for (int i = 0; i < n; i++) {
            uint64_t want = ++w->post_seen[r[i]];
            int rc = smap_rma_wait_ge(smap_rma_post_ctr(w->cb, r[i]), want);
            if (rc) {
                free(r);
                return rc;
            }
        }
    w->start_grp = r;
    w->nstart = n;
    return MPI_SUCCESS;
}

int smap_win_complete(MPI_Win h)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    if (w->nstart < 0)
        return smap_fail(MPI_ERR_RMA_SYNC, "no access epoch of MPI_Win_start is open");
    atomic_thread_fence(memory_order_release);
    for (int i = 0; i < w->nstart; i++) {
        int t = w->start_grp[i];
        if (!w->t[t].remote) {
            atomic_fetch_add_explicit(smap_rma_done_ctr(w->t[t].cb, w->n, w->me), 1,
                                      memory_order_release);
            continue;
        }
        int rc = w->t[t].ops->flush(h, t);   /* our puts there first */
        if (rc)
            return rc;
        smap_rma_net_signal(w, t, SMAP_RMA_NET_DONE, 0);
    }
    free(w->start_grp);
    w->start_grp = NULL;
    w->nstart = -1;
    return MPI_SUCCESS;
}

/* Whether every origin of our exposure epoch has completed (consumes
 * nothing). */
static int all_done(struct MPI_ABI_Win *w)
{
    for (int i = 0; i < w->npost; i++) {
        int o = w->post_grp[i];
        if (atomic_load_explicit(smap_rma_done_ctr(w->cb, w->n, o), memory_order_acquire) <
            w->done_seen[o] + 1)
            return 0;
    }
    return 1;
}

static void end_exposure(struct MPI_ABI_Win *w)
{
    for (int i = 0; i < w->npost; i++)
        w->done_seen[w->post_grp[i]]++;
    atomic_thread_fence(memory_order_acquire);
    free(w->post_grp);
    w->post_grp = NULL;
    w->npost = -1;
    atomic_store_explicit(&w->cb->exposed, 0, memory_order_release);
}

int smap_win_wait(MPI_Win h)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    if (w->npost < 0)
        return smap_fail(MPI_ERR_RMA_SYNC, "no exposure epoch of MPI_Win_post is open");
    for (int i = 0; i < w->npost; i++) {
        int o = w->post_grp[i];
        int rc = smap_rma_wait_ge(smap_rma_done_ctr(w->cb, w->n, o), w->done_seen[o] + 1);
        if (rc)
            return rc;
    }
    end_exposure(w);
    return MPI_SUCCESS;
}

int smap_win_test(MPI_Win h, int *flag)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    if (w->npost < 0)
        return smap_fail(MPI_ERR_RMA_SYNC, "no exposure epoch of MPI_Win_post is open");
    *flag = all_done(w);
    if (*flag)
        end_exposure(w);
    else
        smap_p2p_progress();
    return MPI_SUCCESS;
}

/* ---- passive target ---- */

#define LOCKED_NOCHECK 4

int smap_win_lock(MPI_Win h, int type, int rank, int assert)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    if (type != MPI_LOCK_SHARED && type != MPI_LOCK_EXCLUSIVE)
        return smap_failf(MPI_ERR_LOCKTYPE,
                          "lock_type %d is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE", type);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (SMAP_UNLIKELY(!smap_win_rank_ok(w, rank)))
        return smap_win_bad_rank(w, rank);
    int bad = check_assert(assert, MPI_MODE_NOCHECK);
    if (bad)
        return bad;
    if (w->locked[rank] || w->lock_all || w->nstart >= 0 || fence_busy(w))
        return smap_fail(MPI_ERR_RMA_SYNC,
                             w->locked[rank] || w->lock_all
                                 ? "this target is already locked by this process"
                                 : "another access epoch (fence or start) is open");
    if (w->hints.no_locks)
        return smap_fail(MPI_ERR_RMA_SYNC, "the window was created with no_locks=true");
    int nocheck = (assert & MPI_MODE_NOCHECK) != 0;
    if (!nocheck) {
        int rc = w->t[rank].ops->lock(h, rank, type);
        if (rc)
            return rc;
    }
    w->locked[rank] = (unsigned char)(type - 300 + (nocheck ? LOCKED_NOCHECK : 0));
    w->nlocks++;
    return MPI_SUCCESS;
}

int smap_win_unlock(MPI_Win h, int rank)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (SMAP_UNLIKELY(!smap_win_rank_ok(w, rank)))
        return smap_win_bad_rank(w, rank);
    int l = w->locked[rank];
    if (!l)
        return smap_fail(MPI_ERR_RMA_SYNC, "this target is not locked by this process");
    int rc = w->t[rank].ops->flush(h, rank);
    if (!rc && !(l & LOCKED_NOCHECK))
        rc = w->t[rank].ops->unlock(h, rank, 300 + (l & 3));
    w->locked[rank] = 0;
    w->nlocks--;
    return rc;
}

int smap_win_lock_all(MPI_Win h, int assert)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    int bad = check_assert(assert, MPI_MODE_NOCHECK);
    if (bad)
        return bad;
    if (w->lock_all || w->nlocks || w->nstart >= 0 || fence_busy(w))
        return smap_fail(MPI_ERR_RMA_SYNC, "another access epoch is open on this window");
    if (w->hints.no_locks)
        return smap_fail(MPI_ERR_RMA_SYNC, "the window was created with no_locks=true");
    int nocheck = (assert & MPI_MODE_NOCHECK) != 0;
    if (!nocheck)
        for (int i = 0; i < w->n; i++) {
            int rc = w->t[i].ops->lock(h, i, MPI_LOCK_SHARED);
            if (rc) {
                while (--i >= 0)
                    w->t[i].ops->unlock(h, i, MPI_LOCK_SHARED);
                return rc;
            }
        }
    w->lock_all = 1 + nocheck;
    return MPI_SUCCESS;
}

int smap_win_unlock_all(MPI_Win h)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    if (!w->lock_all)
        return smap_fail(MPI_ERR_RMA_SYNC, "MPI_Win_lock_all was not called");
    int rc = MPI_SUCCESS;
    for (int i = 0; i < w->n; i++) {
        int r = w->t[i].ops->flush(h, i);
        if (w->lock_all == 1) {
            int u = w->t[i].ops->unlock(h, i, MPI_LOCK_SHARED);
            r = r ? r : u;
        }
        rc = rc ? rc : r;
    }
    w->lock_all = 0;
    return rc;
}

int smap_win_flush(MPI_Win h, int rank, int local)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank != SMAP_WIN_ALL && SMAP_UNLIKELY(!smap_win_rank_ok(w, rank)))
        return smap_win_bad_rank(w, rank);
    if (smap_p2p_progress_rma)
        smap_rma_poll();
    if (!w->lock_all && (rank < 0 ? !w->nlocks : !w->locked[rank]))
        return smap_fail(MPI_ERR_RMA_SYNC,
                             "flushes belong in a passive-target epoch (MPI_Win_lock or "
                             "MPI_Win_lock_all)");
    /* On the node every operation completes remotely at once.  A put to
     * another node is complete locally on return (the transport copied
     * it): only remote completion waits, for its acknowledgements. */
    if (rank >= 0)
        return local && w->t[rank].remote ? MPI_SUCCESS : w->t[rank].ops->flush(h, rank);
    for (int i = 0; i < w->n; i++) {
        if (local && w->t[i].remote)
            continue;
        int rc = w->t[i].ops->flush(h, i);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

int smap_win_sync(MPI_Win h)
{
    (void)h;
    if (smap_p2p_progress_rma)
        smap_rma_poll();
    /* unified model: one full fence makes our stores and the peers'
     * completed operations agree */
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}
