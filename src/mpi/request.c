/* Request objects and their completion.  Freed requests go to a small
 * cache so that message-rate loops do not call the allocator.  Under
 * MPI_THREAD_MULTIPLE the cache and the orphans are guarded by the
 * point-to-point lock (the `_mt` twins; one branch otherwise). */
#include "mpi/request.h"
#include "mpi/request_hook.h"

#include <stdlib.h>
#include <string.h>

#include "base/wait.h"
#include "dtype/engine.h"
#include "mpi/comm.h"
#include "mpi/handles.h"
#include "mpi/status.h"
#include "smap/smap.h"

#define CACHE_MAX 256
static struct MPI_ABI_Request *cache[CACHE_MAX];
static int ncache;

static struct MPI_ABI_Request *orphans;

static SMAP_COLD void reap_orphans(void)
{
    smap_p2p_lock();
    smap_p2p_progress();
    struct MPI_ABI_Request **pp = &orphans;
    while (*pp) {
        struct MPI_ABI_Request *r = *pp;
        if (smap_req_ready((MPI_Request)r)) {
            *pp = r->orphan_next;
            MPI_Request h = (MPI_Request)r;
            r->persist = SMAP_REQ_ONCE;
            (void)smap_req_finish(&h, MPI_STATUS_IGNORE);
        } else {
            pp = &r->orphan_next;
        }
    }
    smap_p2p_unlock();
}

void smap_req_orphan(struct MPI_ABI_Request *r)
{
    smap_p2p_lock();
    r->orphan_next = orphans;
    orphans = r;
    smap_p2p_unlock();
}

static inline struct MPI_ABI_Request *cache_take(void)
{
    if (SMAP_UNLIKELY(orphans != NULL))
        reap_orphans();
    return ncache ? cache[--ncache] : malloc(sizeof(struct MPI_ABI_Request));
}

static SMAP_NOINLINE struct MPI_ABI_Request *cache_take_mt(void)
{
    smap_p2p_lock();
    struct MPI_ABI_Request *r = cache_take();
    smap_p2p_unlock();
    return r;
}

static inline void cache_put(struct MPI_ABI_Request *r)
{
    if (ncache < CACHE_MAX)
        cache[ncache++] = r;
    else
        free(r);
}

static SMAP_NOINLINE void cache_put_mt(struct MPI_ABI_Request *r)
{
    smap_p2p_lock();
    cache_put(r);
    smap_p2p_unlock();
}

struct MPI_ABI_Request *smap_req_new(MPI_Comm comm)
{
    struct MPI_ABI_Request *r = SMAP_UNLIKELY(smap_mt) ? cache_take_mt() : cache_take();
    if (!r)
        return NULL;
    r->magic = SMAP_REQ_MAGIC;
    r->persist = SMAP_REQ_ONCE;
    r->active = 0;
    r->idle = 0;
    r->proc_null = 0;
    r->comm = comm;
    r->file = NULL;
    smap_comm_hold(comm);   /* MPI_Comm_free waits for us (mpi/comm.h) */
    r->p.next = NULL;
    r->p.dt = NULL;
    r->p.kind = 0;
    smap_preq_reset(&r->p);
    r->p.err = MPI_SUCCESS;
    r->p.cancelled = 0;
    r->extra = NULL;
    r->tmp = NULL;
    r->udt = NULL;
    r->sched = NULL;
    r->sched_ops = NULL;
    r->greq = NULL;
    r->part = NULL;
    r->hook = NULL;
    return r;
}

int smap_req_hook_set(MPI_Request h, const struct smap_req_hook *hook, void *ctx)
{
    struct MPI_ABI_Request *r = smap_req_get(h);
    if (!r)
        return MPI_ERR_REQUEST;
    if (r->hook)
        return MPI_ERR_INTERN;
    r->hook_ctx = ctx;
    r->hook = hook;
    return MPI_SUCCESS;
}

void smap_req_free(struct MPI_ABI_Request *r)
{
    /* a request a Fortran program held as an integer (MPI_Request_c2f):
     * its integer stops resolving (one atomic load when none was) */
    smap_handle_forget(r);
    if (r->p.dt && !(r->p.dt->flags & SMAP_DT_PREDEF))
        smap_dtype_release(r->p.dt);
    if (r->udt)
        smap_dtype_release(r->udt);
    if (SMAP_UNLIKELY(r->sched)) {   /* a collective's schedule (complete by now) */
        r->sched_ops->release(r->sched);
        r->sched = NULL;
    }
    if (SMAP_UNLIKELY(r->greq || r->part)) {
        free(r->greq);
        r->greq = NULL;
        if (r->part)
            smap_part_release(r->part);
        r->part = NULL;
    }
    /* Usually both NULL: skip the allocator's call in message-rate loops. */
    if (SMAP_UNLIKELY(r->extra || r->tmp)) {
        free(r->extra);
        free(r->tmp);
    }
    if (SMAP_UNLIKELY(r->hook)) {
        if (r->hook->release)
            r->hook->release(r->hook_ctx);
        r->hook = NULL;
    }
    if (r->idle)
        smap_comm_idle(r->comm, -1);
    smap_comm_drop(r->comm);   /* after the schedule, which uses it */
    r->magic = 0;
    if (SMAP_UNLIKELY(smap_mt))
        cache_put_mt(r);
    else
        cache_put(r);
}

void smap_req_set_active(struct MPI_ABI_Request *r, int active)
{
    r->active = active;
    int idle = r->persist != SMAP_REQ_ONCE && !active;
    if (idle != r->idle) {
        smap_comm_idle(r->comm, idle ? 1 : -1);
        r->idle = idle;
    }
}

int smap_req_start(struct MPI_ABI_Request *r)
{
    if (SMAP_UNLIKELY(r->hook) && r->hook->start)
        r->hook->start(r->hook_ctx);
    smap_req_set_active(r, 1);
    r->p.next = NULL;
    if (r->persist == SMAP_REQ_PART)
        return smap_part_start(r);
    if (r->persist == SMAP_REQ_PCOLL) {
        int rc = r->sched_ops->restart(r->sched);
        if (rc != MPI_SUCCESS)
            smap_req_set_active(r, 0);
        return rc;
    }
    if (r->proc_null) {
        smap_p2p_null(&r->p, r->persist == SMAP_REQ_PSEND ? SMAP_PREQ_SEND : SMAP_PREQ_RECV);
        return MPI_SUCCESS;
    }
    if (r->pmode == SMAP_REQ_BUFFERED) {
        const char *why = "";
        int rc = smap_bsend(r->comm, r->pbuf, r->pcount, r->p.dt, r->prank, r->plr, r->pme,
                            r->ptag, r->pctx, &why);
        smap_p2p_null(&r->p, SMAP_PREQ_SEND);
        r->p.err = rc;
        return MPI_SUCCESS;
    }
    if (r->persist == SMAP_REQ_PRECV)
        return smap_p2p_irecv(&r->p, (void *)(uintptr_t)r->pbuf, r->pcount, r->p.dt, r->prank,
                              r->ptag, r->pctx);
    return smap_p2p_isend(&r->p, r->pbuf, r->pcount, r->p.dt, r->prank, r->plr, r->pme, r->ptag,
                          r->pctx, r->pmode);
}

int smap_req_finish(MPI_Request *h, MPI_Status *st)
{
    if (*h == MPI_REQUEST_NULL) {
        if (st != MPI_STATUS_IGNORE)
            smap_status_set_empty(st);
        return MPI_SUCCESS;
    }
    struct MPI_ABI_Request *r = (struct MPI_ABI_Request *)*h;
    if (r->persist && !r->active) {
        if (st != MPI_STATUS_IGNORE)
            smap_status_set_empty(st);
        return MPI_SUCCESS;
    }
    if (SMAP_UNLIKELY(r->hook) && r->hook->finish)
        r->hook->finish(r->hook_ctx, r->p.kind == SMAP_PREQ_GREQ ? MPI_SUCCESS : r->p.err);
    if (SMAP_UNLIKELY(r->p.kind == SMAP_PREQ_GREQ)) {
        int gerr = smap_greq_finish(r, st);
        smap_req_free(r);
        *h = MPI_REQUEST_NULL;
        return gerr;
    }
    smap_preq_status(&r->p, st);
    int err = r->p.err;
    if (r->tmp) {
        /* MPI_Isendrecv_replace: the received bytes into the user's buffer. */
        if (r->p.got)
            smap_dtype_unpack(r->tmp, (MPI_Count)r->p.got, r->ubuf, r->ucount, r->udt, 0);
        free(r->tmp);
        r->tmp = NULL;
    }
    if (r->extra) {
        free(r->extra);
        r->extra = NULL;
    }
    if (r->persist) {
        smap_req_set_active(r, 0);
    } else {
        smap_req_free(r);
        *h = MPI_REQUEST_NULL;
    }
    return err;
}

/* ---- completion waits (the binding's MPI_Wait/Test family) ---- */

void smap_req_wait(MPI_Request h)
{
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    for (;;) {
        smap_p2p_progress();
        if (smap_req_ready(h))
            return;
        smap_wait_step(&w);
    }
}

int smap_req_first_pending(int from, int n, MPI_Request reqs[])
{
    while (from < n && smap_req_ready(reqs[from]))
        from++;
    return from;
}

void smap_req_wait_all(int n, MPI_Request reqs[])
{
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    int i = smap_req_first_pending(0, n, reqs);
    while (i < n) {
        smap_p2p_progress();
        int j = smap_req_first_pending(i, n, reqs);
        if (j == i)
            smap_wait_step(&w);
        i = j;
    }
}

/* Index of the lowest ready active request; -1 none ready, -2 none active. */
static int find_any(int n, MPI_Request reqs[])
{
    int active = 0;
    for (int i = 0; i < n; i++) {
        if (!smap_req_active(reqs[i]))
            continue;
        active = 1;
        if (smap_req_ready(reqs[i]))
            return i;
    }
    return active ? -1 : -2;
}

int smap_req_wait_any(int n, MPI_Request reqs[], int blocking)
{
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    for (;;) {
        int i = find_any(n, reqs);
        if (i != -1)
            return i;
        smap_p2p_progress();
        i = find_any(n, reqs);
        if (i != -1 || !blocking)
            return i;
        smap_wait_step(&w);
    }
}

int smap_req_wait_some(int n, MPI_Request reqs[], int indices[], int blocking)
{
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    for (int round = 0;; round++) {
        if (round)
            smap_p2p_progress();
        int k = 0, active = 0;
        for (int i = 0; i < n; i++) {
            if (!smap_req_active(reqs[i]))
                continue;
            active = 1;
            if (smap_req_ready(reqs[i]))
                indices[k++] = i;
        }
        if (!active)
            return -1;
        if (k || (!blocking && round))
            return k;
        if (round)
            smap_wait_step(&w);
    }
}
