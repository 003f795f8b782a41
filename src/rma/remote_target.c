/* One-sided with targets on other nodes, the target's role (remote.h):
 * the transport's upcall (answers reach their origin's wait record,
 * requests are queued), the windows whose requests we serve, and serving
 * them from progress on our own memory. */
#include "rma/remote.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/tunables.h"
#include "dtype/engine.h"
#include "net/net.h"
#include "p2p/p2p.h"

struct queued {
    struct queued *next;
    int world;
    size_t dlen;
    struct nmsg m;   /* then dlen bytes */
};

static struct {
    pthread_mutex_t lk;              /* the queue and the window list */
    struct queued *head, **tail;
    struct MPI_ABI_Win **wins;
    int nwins, cap;
} Q = { .lk = PTHREAD_MUTEX_INITIALIZER };

_Atomic int smap_rma_net_live;       /* windows with remote targets */
_Atomic int smap_rma_net_queued;     /* requests waiting to be served */

/* ---- the transport's upcall (progress, smap_p2p_lock held) ---- */

static void answer(const struct nmsg *r, const unsigned char *data, size_t dlen)
{
    if (r->flags & F_PUTACK) {
        struct smap_rma_target *t = (struct smap_rma_target *)(uintptr_t)r->cookie;
        if (r->rc) {
            int z = 0;
            atomic_compare_exchange_strong_explicit(&t->put_err, &z, r->rc,
                                                    memory_order_relaxed, memory_order_relaxed);
        }
        atomic_fetch_add_explicit(&t->puts_acked, 1, memory_order_release);
        return;
    }
    struct call *c = (struct call *)(uintptr_t)r->cookie;
    if (r->rc && !c->rc)
        c->rc = r->rc;
    if (r->flags & F_GRANTED)
        c->granted = 1;
    if (dlen && c->out)
        memcpy(c->out + r->off, data, dlen);
    atomic_fetch_sub_explicit(&c->left, 1, memory_order_release);
}

static struct MPI_ABI_Win *find(uint64_t cb);

/* A target detached a region (N_INVAL: addr, len): forget its key.  In the
 * upcall, p2p lock held, which also guards the caches (origin side). */
static void invalidate(const struct nmsg *m)
{
    struct MPI_ABI_Win *w = find(m->win);
    if (!w || m->from < 0 || m->from >= w->n)
        return;
    struct smap_rma_target *t = &w->t[m->from];
    t->dkey_gen++;
    for (int i = 0; i < t->ndkeys;)
        if (t->dkeys[i].base < m->addr + m->len && m->addr < t->dkeys[i].base + t->dkeys[i].size)
            t->dkeys[i] = t->dkeys[--t->ndkeys];
        else
            i++;
}

static void incoming(int world, const void *msg, size_t len)
{
    struct nmsg m;
    if (SMAP_UNLIKELY(len < sizeof m))
        smap_fatal("one-sided: a %zu-byte request from job rank %d is too short", len, world);
    memcpy(&m, msg, sizeof m);
    const unsigned char *data = (const unsigned char *)msg + sizeof m;
    size_t dlen = len - sizeof m;
    if (m.kind == N_REPLY) {
        answer(&m, data, dlen);
        return;
    }
    if (m.kind == N_INVAL)   /* at once; the acknowledgement is served later */
        invalidate(&m);
    struct queued *q = malloc(sizeof *q + dlen);
    if (!q)
        smap_fatal("one-sided: out of memory queueing a request from job rank %d", world);
    q->next = NULL;
    q->world = world;
    q->dlen = dlen;
    q->m = m;
    memcpy(q + 1, data, dlen);
    pthread_mutex_lock(&Q.lk);
    *Q.tail = q;
    Q.tail = &q->next;
    atomic_fetch_add_explicit(&smap_rma_net_queued, 1, memory_order_release);
    pthread_mutex_unlock(&Q.lk);
}

/* ---- windows whose requests we serve ---- */

int smap_rma_net_register(struct MPI_ABI_Win *w)
{
    pthread_mutex_lock(&Q.lk);
    if (!Q.tail)
        Q.tail = &Q.head;
    if (Q.nwins == Q.cap) {
        int c = Q.cap ? 2 * Q.cap : 16;
        struct MPI_ABI_Win **t = realloc(Q.wins, (size_t)c * sizeof *t);
        if (!t) {
            pthread_mutex_unlock(&Q.lk);
            return smap_fail(MPI_ERR_NO_MEM, "out of memory for the window");
        }
        Q.wins = t;
        Q.cap = c;
    }
    Q.wins[Q.nwins++] = w;
    smap_p2p_rma_incoming = incoming;
    atomic_fetch_add_explicit(&smap_rma_net_live, 1, memory_order_relaxed);
    pthread_mutex_unlock(&Q.lk);
    smap_rma_hook_refresh();
    return MPI_SUCCESS;
}

int smap_rma_net_expose(struct MPI_ABI_Win *w, uint64_t *rbase, uint64_t *rkey)
{
    /* dynamic windows register each attached region on an origin's first
     * request for its key (serve_key), not here */
    if (!smap_tun.rma_net_rma || w->flavor == MPI_WIN_FLAVOR_DYNAMIC || !w->base || !w->size)
        return 0;
    smap_p2p_lock();
    int rc = smap_net_rma_register(w->base, (size_t)w->size, rbase, rkey, &w->net_mr);
    smap_p2p_unlock();
    if (rc)
        w->net_mr = NULL;
    return rc == 0;
}

void smap_rma_net_unregister(struct MPI_ABI_Win *w)
{
    if (w->net_mr) {   /* every peer's transfers completed: the epochs are closed */
        smap_p2p_lock();
        smap_net_rma_unregister(w->net_mr);
        smap_p2p_unlock();
        w->net_mr = NULL;
    }
    if (w->dyn_mr) {
        smap_p2p_lock();
        for (int i = 0; i < SMAP_RMA_DYN_MR; i++)
            if (w->dyn_mr[i].mr)
                smap_net_rma_unregister(w->dyn_mr[i].mr);
        smap_p2p_unlock();
        free(w->dyn_mr);
        w->dyn_mr = NULL;
    }
    free(w->key_given);
    w->key_given = NULL;
    smap_p2p_lock();   /* the upcall may be dropping a key */
    for (int i = 0; i < w->n; i++) {
        free(w->t[i].dkeys);
        w->t[i].dkeys = NULL;
        w->t[i].ndkeys = 0;
    }
    smap_p2p_unlock();
    pthread_mutex_lock(&Q.lk);
    for (int i = 0; i < Q.nwins; i++)
        if (Q.wins[i] == w) {
            Q.wins[i] = Q.wins[--Q.nwins];
            atomic_fetch_sub_explicit(&smap_rma_net_live, 1, memory_order_relaxed);
            break;
        }
    pthread_mutex_unlock(&Q.lk);
    smap_rma_hook_refresh();
}

static struct MPI_ABI_Win *find(uint64_t cb)
{
    struct MPI_ABI_Win *w = NULL;
    pthread_mutex_lock(&Q.lk);
    for (int i = 0; i < Q.nwins && !w; i++)
        if ((uintptr_t)Q.wins[i]->cb == cb)
            w = Q.wins[i];
    pthread_mutex_unlock(&Q.lk);
    return w;
}

/* ---- serving (target side) ---- */

static void reply(int world, const struct nmsg *m, int rc, int flags, const void *data,
                  size_t dlen)
{
    struct nmsg r = { .kind = N_REPLY, .flags = (m->flags & F_PUTACK) | (uint32_t)flags,
                      .rc = rc, .cookie = m->cookie, .off = m->off };
    smap_p2p_rma_send(world, &r, sizeof r, data, dlen);
}

/* Our window's own range check (the origin checked too; a dynamic window
 * is checked against the attach table by node.c). */
static int in_window(struct MPI_ABI_Win *w, uint64_t addr, uint64_t len)
{
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return 1;
    uint64_t b = (uintptr_t)w->base, s = (uint64_t)w->size;
    return addr >= b && addr - b <= s && len <= s - (addr - b);
}

static int try_lock(struct MPI_ABI_Win *w, uint32_t flags)
{
    _Atomic uint64_t *l = &w->cb->lock;
    uint64_t v = atomic_load_explicit(l, memory_order_relaxed);
    if (!(flags & F_EXCL)) {
        while (!(v & (SMAP_RMA_EXCL | SMAP_RMA_WAITERS)))
            if (atomic_compare_exchange_weak_explicit(l, &v, v + 1, memory_order_acquire,
                                                      memory_order_relaxed))
                return 1;
        return 0;
    }
    if (flags & F_FIRST)   /* a waiting writer from now on: new readers back off */
        v = atomic_fetch_add_explicit(l, SMAP_RMA_WAIT1, memory_order_relaxed) + SMAP_RMA_WAIT1;
    while (!(v & (SMAP_RMA_EXCL | SMAP_RMA_SHARED)))
        if (atomic_compare_exchange_weak_explicit(l, &v, v - SMAP_RMA_WAIT1 + SMAP_RMA_EXCL,
                                                  memory_order_acquire, memory_order_relaxed))
            return 1;
    return 0;
}

/* Runs one piece (one segment of a request) on our memory with ourselves
 * as the target. */
static int run_op(struct MPI_ABI_Win *w, uint32_t kind, const struct nmsg *m, uint64_t addr,
                  size_t len, const unsigned char *data, char *out)
{
    if (!in_window(w, addr, len))
        return MPI_ERR_RMA_RANGE;
    smap_dtype_t *bytes = smap_dtype_get(MPI_BYTE);
    smap_dtype_t *b = m->type ? smap_dtype_stored((MPI_Datatype)(uintptr_t)m->type) : NULL;
    struct smap_rma_op_args a = { .taddr = (uintptr_t)addr };
    switch (kind) {
    case SMAP_AM_PUT:
        a.oaddr = data;
        a.ocount = a.tcount = (MPI_Count)len;
        a.otype = a.ttype = bytes;
        return smap_rma_node_ops.put((MPI_Win)w, w->me, &a);
    case SMAP_AM_GET:
        a.raddr = out;
        a.rcount = a.tcount = (MPI_Count)len;
        a.rtype = a.ttype = bytes;
        return smap_rma_node_ops.get((MPI_Win)w, w->me, &a);
    case SMAP_AM_ACC:
    case SMAP_AM_GACC: {
        if (!b || !b->size || len % elem_span(b))
            return MPI_ERR_TYPE;
        MPI_Count n = (MPI_Count)(len / elem_span(b));
        a.op = (MPI_Op)(uintptr_t)m->op;
        a.oaddr = data;
        a.ocount = a.tcount = n;
        a.otype = a.ttype = b;
        if (kind == SMAP_AM_GACC) {
            a.raddr = out;
            a.rcount = n;
            a.rtype = b;
        }
        return smap_rma_node_ops.acc((MPI_Win)w, w->me, &a);
    }
    case SMAP_AM_CAS:
        if (!b || (size_t)b->size != len)
            return MPI_ERR_TYPE;
        a.oaddr = data;
        a.caddr = data + len;
        a.raddr = out;
        a.tcount = 1;
        a.ttype = b;
        return smap_rma_node_ops.cas((MPI_Win)w, w->me, &a);
    }
    return MPI_ERR_INTERN;
}

/* A data request: its segments in order, the data (put, accumulate) and
 * the answer (get, get_accumulate, CAS) consumed and filled piece by
 * piece. */
static int run_request(struct MPI_ABI_Win *w, const struct nmsg *m, const unsigned char *p,
                       size_t plen, char *out)
{
    uint32_t k = m->kind;
    if (k == SMAP_AM_CAS)
        return plen == 2 * m->len ? run_op(w, k, m, m->addr, (size_t)m->len, p, out)
                                  : MPI_ERR_INTERN;
    int has_data = k == SMAP_AM_PUT || ((k == SMAP_AM_ACC || k == SMAP_AM_GACC) &&
                                        (MPI_Op)(uintptr_t)m->op != MPI_NO_OP);
    size_t segbytes = (size_t)m->nseg * 16;
    if (m->nseg > SMAP_RMA_NET_MAXSEG || plen != segbytes + (has_data ? (size_t)m->len : 0))
        return MPI_ERR_INTERN;
    const unsigned char *data = p + segbytes;
    size_t pos = 0;
    for (uint64_t i = 0; i < m->nseg; i++) {
        uint64_t sg[2];
        memcpy(sg, p + 16 * i, sizeof sg);
        if (sg[1] > m->len - pos)
            return MPI_ERR_INTERN;
        int rc = run_op(w, k, m, sg[0], (size_t)sg[1], has_data ? data + pos : NULL,
                        out ? out + pos : NULL);
        if (rc)
            return rc;
        pos += (size_t)sg[1];
    }
    return MPI_SUCCESS;
}

/* N_KEY: the attached region holding [addr, addr+len), registered now if
 * it is not yet; the answer is (base, size, rbase, rkey), F_GRANTED when
 * registered (else the origin uses messages for it). */
static void serve_key(int world, struct MPI_ABI_Win *w, const struct nmsg *m)
{
    struct smap_rma_dyn dr, *d = &dr;
    if (!smap_rma_dyn_own(w, (uintptr_t)m->addr, (size_t)m->len, &dr)) {
        /* no region, or a range across adjacent ones: messages serve it */
        reply(world, m, MPI_ERR_RMA_RANGE, 0, NULL, 0);
        return;
    }
    if (!w->dyn_mr)
        w->dyn_mr = calloc(SMAP_RMA_DYN_MR, sizeof *w->dyn_mr);
    if (!w->key_given)
        w->key_given = calloc((size_t)w->n, 1);
    struct smap_rma_dyn_mr *r = NULL, *fr = NULL;
    for (int i = 0; w->dyn_mr && i < SMAP_RMA_DYN_MR && !r; i++) {
        if (w->dyn_mr[i].mr && w->dyn_mr[i].base == d->base)
            r = &w->dyn_mr[i];
        else if (!w->dyn_mr[i].mr && !fr)
            fr = &w->dyn_mr[i];
    }
    if (!r && fr && w->key_given) {
        smap_p2p_lock();
        if (smap_net_rma_register((void *)(uintptr_t)d->base, (size_t)d->size, &fr->rbase,
                                  &fr->rkey, &fr->mr) == 0) {
            fr->base = d->base;
            fr->size = d->size;
            r = fr;
        } else {
            fr->mr = NULL;
        }
        smap_p2p_unlock();
    }
    uint64_t k[4] = { d->base, d->size, r ? r->rbase : 0, r ? r->rkey : 0 };
    if (r)
        w->key_given[m->from] = 1;
    reply(world, m, MPI_SUCCESS, r ? F_GRANTED : 0, k, sizeof k);
}

void smap_rma_net_detach(struct MPI_ABI_Win *w, uintptr_t base)
{
    struct smap_rma_dyn_mr *r = NULL;
    for (int i = 0; w->dyn_mr && i < SMAP_RMA_DYN_MR && !r; i++)
        if (w->dyn_mr[i].mr && w->dyn_mr[i].base == base)
            r = &w->dyn_mr[i];
    if (!r)
        return;   /* no origin holds a key to it */
    /* every origin that got the key drops it and says so before the
     * registration goes and detach returns: whatever tells an origin
     * about memory attached later (at the same addresses, say) comes after */
    struct call c = { 0 };
    for (int i = 0; i < w->n; i++)
        if (w->key_given[i] && w->t[i].remote) {
            atomic_fetch_add_explicit(&c.left, 1, memory_order_relaxed);
            struct nmsg m = { .kind = N_INVAL, .cookie = (uintptr_t)&c, .addr = r->base,
                              .len = r->size };
            smap_rma_remote_send(w, i, &m, NULL, 0);
        }
    (void)smap_rma_remote_wait(&c);   /* a dead origin ends the job anyway */
    smap_p2p_lock();
    smap_net_rma_unregister(r->mr);
    smap_p2p_unlock();
    r->mr = NULL;
}

static void serve_one(struct queued *q)
{
    const struct nmsg *m = &q->m;
    const unsigned char *data = (const unsigned char *)(q + 1);
    struct MPI_ABI_Win *w = find(m->win);
    if (!w || m->from < 0 || m->from >= w->n) {
        if (m->kind < N_POST || m->kind > N_FENCE)
            reply(q->world, m, MPI_ERR_WIN, 0, NULL, 0);
        else
            smap_log(SMAP_LOG_WARN, "one-sided: job rank %d signalled a window we do not have",
                     q->world);
        return;
    }
    switch (m->kind) {
    case N_LOCK:
        if (!try_lock(w, m->flags))
            reply(q->world, m, MPI_SUCCESS, 0, NULL, 0);
        else if (w->npost >= 0) {
            /* exposed and locked at once (MPI 5.0 12.5.3): give it back */
            atomic_fetch_sub_explicit(&w->cb->lock, (m->flags & F_EXCL) ? SMAP_RMA_EXCL : 1,
                                      memory_order_release);
            reply(q->world, m, MPI_ERR_RMA_CONFLICT, 0, NULL, 0);
        } else
            reply(q->world, m, MPI_SUCCESS, F_GRANTED, NULL, 0);
        return;
    case N_UNLOCK:
        atomic_fetch_sub_explicit(&w->cb->lock, (m->flags & F_EXCL) ? SMAP_RMA_EXCL : 1,
                                  memory_order_release);
        reply(q->world, m, MPI_SUCCESS, 0, NULL, 0);
        return;
    case N_POST:
        atomic_fetch_add_explicit(smap_rma_post_ctr(w->cb, m->from), 1, memory_order_release);
        return;
    case N_DONE:
        atomic_fetch_add_explicit(smap_rma_done_ctr(w->cb, w->n, m->from), 1,
                                  memory_order_release);
        return;
    case N_FENCE: {
        _Atomic uint64_t *f = &w->net_fence[m->from];
        if (atomic_load_explicit(f, memory_order_relaxed) < m->addr)
            atomic_store_explicit(f, m->addr, memory_order_release);
        return;
    }
    case N_KEY:
        serve_key(q->world, w, m);
        return;
    case N_INVAL:   /* the upcall dropped the key already */
        reply(q->world, m, MPI_SUCCESS, 0, NULL, 0);
        return;
    }
    int answers = m->kind == SMAP_AM_GET || m->kind == SMAP_AM_GACC || m->kind == SMAP_AM_CAS;
    size_t olen = answers ? (size_t)m->len : 0;
    char small[256];
    char *out = olen <= sizeof small ? small : malloc(olen);
    int rc = out ? run_request(w, m, data, q->dlen, answers ? out : NULL) : MPI_ERR_NO_MEM;
    reply(q->world, m, rc, 0, rc ? NULL : out, rc ? 0 : olen);
    if (out != small)
        free(out);
}

void smap_rma_net_serve(void)
{
    for (;;) {
        pthread_mutex_lock(&Q.lk);
        struct queued *q = Q.head;
        if (q) {
            Q.head = q->next;
            if (!Q.head)
                Q.tail = &Q.head;
            atomic_fetch_sub_explicit(&smap_rma_net_queued, 1, memory_order_relaxed);
        }
        pthread_mutex_unlock(&Q.lk);
        if (!q)
            return;
        serve_one(q);
        free(q);
    }
}
