/* The point-to-point state and the progress engine.  Progress is driven by
 * whoever waits or tests (no thread): every MPI_Test, MPI_Wait loop, probe
 * or new operation calls smap_p2p_progress, so an application that only
 * calls MPI_Test still moves every protocol forward.
 *
 * Under MPI_THREAD_MULTIPLE every entry point of src/p2p takes smap_p2p_lk
 * around its work (the `_mt` twins); otherwise it runs the same body with
 * no lock: one branch on smap_mt. */
#include "p2p/internal.h"

#include <stdlib.h>

#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "smap/smap.h"

struct smap_p2p_state smap_p2p;
struct smap_p2p_stats smap_p2p_stats;
struct smap_lock smap_p2p_lk = SMAP_LOCK_INITIALIZER;
int *smap_p2p_lr_of;
int smap_p2p_nranks;
void (*smap_p2p_progress_hook)(void);
void (*smap_p2p_progress_rma)(void);

static SMAP_COLD void oom(void)
{
    smap_fatal("point-to-point: out of memory setting up %d node peers", smap_nlocal);
}

/* First use after MPI_Init: the control regions are mapped by then.
 * Under MPI_THREAD_MULTIPLE MPI_Init_thread calls it before any other
 * thread may communicate (smap_p2p_local_rank reads the table unlocked). */
static void apply_tunables(struct smap_p2p_state *s)
{
    size_t lim = smap_tun.eager_limit;
    s->eager_limit = lim > SMAP_SHM_PAYLOAD ? SMAP_SHM_PAYLOAD : lim;
    s->split_min = smap_tun.split_min;
}

static SMAP_COLD void init_locked(void)
{
    struct smap_p2p_state *s = &smap_p2p;
    if (s->ready)
        return;
    s->nlocal = smap_nlocal > 0 ? smap_nlocal : 1;
    s->me = smap_my_local_rank;
    /* room for the spare indices (processes of other jobs, foreign.c);
     * only the job's node ranks are polled until a bridge adds one */
    size_t cap = (size_t)(smap_peers_capacity() > s->nlocal ? smap_peers_capacity() : s->nlocal);
    s->peers = calloc(cap, sizeof *s->peers);
    s->pending = calloc(cap, sizeof *s->pending);
    s->lr_of = malloc((size_t)(smap_job.size > 0 ? smap_job.size : 1) * sizeof *s->lr_of);
    s->free_words = malloc(SMAP_SHM_NWORDS * sizeof *s->free_words);
    if (!s->peers || !s->pending || !s->lr_of || !s->free_words)
        oom();
    for (int r = 0; r < smap_job.size; r++)
        s->lr_of[r] = -1;
    for (int lr = 0; lr < smap_job.local_size; lr++)
        s->lr_of[smap_job.local_ranks[lr]] = lr;
    if (smap_job.size <= 0)
        s->lr_of[0] = 0;
    if (smap_shm_init(s->peers, s->nlocal, s->me) != 0)
        smap_fatal("point-to-point: the shared-memory queues are not mapped (control region "
                   "of %zu bytes)", smap_ctl_size());
    /* Highest word on top: any order works, this one is easy to read. */
    s->nfree = 0;
    for (unsigned w = SMAP_SHM_NWORDS; w-- > 0;)
        s->free_words[s->nfree++] = w;
    s->words = smap_shm_my_words();
    apply_tunables(s);
    s->ready = 1;
    smap_p2p_nranks = smap_job.size > 0 ? smap_job.size : 1;
    smap_p2p_lr_of = s->lr_of;
}

SMAP_COLD void smap_p2p_init(void)
{
    smap_p2p_lock();
    init_locked();
    smap_p2p_unlock();
}

/* Consumes what each peer's queue holds, peers in rotating order so that
 * no sender starves a wildcard receive. */
static inline void poll_queues(void)
{
    struct smap_p2p_state *s = &smap_p2p;
    int n = s->nlocal, lr = s->rr;
    for (int i = 0; i < n; i++) {
        struct smap_shm_peer *p = &s->peers[lr];
        struct smap_shm_cell *c;
        /* At most one queue's worth per visit: a fast sender cannot keep
         * us in its queue forever. */
        for (unsigned k = 0; k < SMAP_SHM_NCELLS && (c = smap_shm_in_cell(p)); k++)
            smap_p2p_incoming(lr, c);
        if (++lr == n)
            lr = 0;
    }
    s->rr = s->rr + 1 == n ? 0 : s->rr + 1;
}

static inline void progress_body(void)
{
    smap_p2p_ensure();
    poll_queues();
    if (smap_p2p.npending)
        smap_p2p_push_pending();
    if (smap_p2p.active.head)
        smap_p2p_check_active();
    if (smap_p2p.splits.head)
        smap_p2p_check_splits();
    if (SMAP_UNLIKELY(smap_p2p.remote))
        smap_p2p_remote_progress();
    if (SMAP_UNLIKELY(smap_p2p_progress_hook != NULL))
        smap_p2p_progress_hook();
    if (SMAP_UNLIKELY(smap_p2p_progress_rma != NULL))
        smap_p2p_progress_rma();
}

static SMAP_NOINLINE void progress_mt(void)
{
    smap_lock_acquire(&smap_p2p_lk);
    progress_body();
    smap_lock_release(&smap_p2p_lk);
}

SMAP_HOT void smap_p2p_progress(void)
{
    if (SMAP_UNLIKELY(smap_mt)) {
        progress_mt();
        return;
    }
    progress_body();
}

void smap_p2p_queue_lengths(uint64_t *posted, uint64_t *unexpected)
{
    uint64_t np = 0, nu = 0;
    smap_p2p_lock();
    if (smap_p2p.ready) {
        for (struct smap_preq *r = smap_p2p.posted.head; r; r = r->next)
            np++;
        for (struct smap_p2p_msg *m = smap_p2p.uhead; m; m = m->next)
            nu++;
    }
    smap_p2p_unlock();
    *posted = np;
    *unexpected = nu;
}

void smap_p2p_stats_snapshot(struct smap_p2p_stats *out)
{
    smap_p2p_lock();
    *out = smap_p2p_stats;
    smap_p2p_unlock();
}

void smap_p2p_tunables_changed(void)
{
    smap_p2p_lock();
    if (smap_p2p.ready)
        apply_tunables(&smap_p2p);
    smap_p2p_unlock();
}
