/* One-sided communication with targets on other nodes (DESIGN.md D12):
 * puts and gets of fixed-layout windows by RDMA write/read into the
 * target's registered window when the transport offers it (see "RDMA"
 * below), everything else as active messages served by the target's
 * progress, over src/p2p's transport messages (a message kind of their
 * own: they never meet MPI matching, whatever the communicator's contexts
 * and tags).
 *
 * The origin side is node.c's mailbox path: a remote target's path is
 * SMAP_RMA_AM, so the origin data is packed once there, and the blocks of
 * the target layout come here (smap_rma_net_xfer) instead of into a
 * mailbox: consecutive blocks share a message (at most 64 segments and
 * what the transport's room holds; accumulates in whole elements), and
 * compare-and-swap is one message (smap_rma_net_call).  Gets, accumulates
 * and compare-and-swap wait for their answers
 * (so accumulates from one origin stay in order, and results are there on
 * return); puts to windows with a fixed layout do not: each piece is
 * acknowledged and a flush (unlock, fence, complete) waits until every put
 * to that target is acknowledged, which is remote completion.  A put is
 * complete locally on return (the transport copies the message).
 *
 * The target queues requests as they arrive (the transport's upcall may
 * not block) and runs them from smap_rma_am_serve, reached from every
 * progress round (smap_p2p_progress_rma) and every one-sided wait, on its
 * own memory through node.c's functions with itself as target: an
 * accumulate takes exactly the path (C11 atomic per element, or the
 * accumulate lock) that node peers take on that memory, so element
 * atomicity and ordering hold between origins on every node, and a
 * dynamic window's range is checked against its attach table there.
 *
 * Synchronisation: a lock request tries the target's lock word (the same
 * word node peers take) and answers granted or busy; the origin retries,
 * an exclusive request having registered as a waiting writer on its first
 * try, as node_lock does.  Fence, post and complete send one message per
 * remote peer (FENCE n into the peer's net_fence array; POST and DONE add
 * to the same control-block counters node peers add to), after flushing
 * the puts they must follow. */
#include "rma/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/tunables.h"
#include "dtype/engine.h"
#include "net/net.h"
#include "p2p/p2p.h"

enum { N_LOCK = 8, N_UNLOCK, N_POST, N_DONE, N_FENCE, N_KEY, N_INVAL, N_REPLY = 16 };
enum { F_PUTACK = 1, F_EXCL = 2, F_FIRST = 4, F_GRANTED = 8 };

struct nmsg {
    uint32_t kind, flags;
    int32_t from;          /* the sender's rank in the window's group */
    int32_t rc;            /* reply: MPI error class */
    uint64_t win;          /* the target's control block address: names its window there */
    uint64_t cookie;       /* the origin's wait record, echoed by the reply */
    uint64_t addr, len;    /* CAS: target address, bytes; FENCE: the fence number;
                              data requests: len bytes in all, over nseg segments */
    uint64_t nseg;         /* data requests: (address, bytes) pairs before the data */
    uint64_t off;          /* where the answer goes in the origin's buffer */
    uint64_t op, type;     /* accumulates: predefined handles, equal in every process */
};

/* An origin waiting for the answers to its pieces. */
struct call {
    _Atomic long left;
    int rc, granted;
    char *out;
};

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
static void send_req(struct MPI_ABI_Win *w, int target, struct nmsg *m, const void *data,
                     size_t dlen);
static int wait_call(struct call *c);

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

/* The bytes one element of basic type et covers in an accumulate's
 * segment: its size, or its true extent when it has a hole inside
 * (MPI_SHORT_INT: node.c sends such elements one by one, in their own
 * layout). */
static size_t elem_span(const smap_dtype_t *et)
{
    return et->true_extent > et->size ? (size_t)et->true_extent : (size_t)et->size;
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
            send_req(w, i, &m, NULL, 0);
        }
    (void)wait_call(&c);   /* a dead origin ends the job anyway */
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

/* ---- origin side ---- */

static void send_req(struct MPI_ABI_Win *w, int target, struct nmsg *m, const void *data,
                     size_t dlen)
{
    const struct smap_rma_target *t = &w->t[target];
    m->from = w->me;
    m->win = t->rcb;
    smap_p2p_rma_send(t->world, m, sizeof *m, data, dlen);
}

static int wait_call(struct call *c)
{
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    while (atomic_load_explicit(&c->left, memory_order_acquire) > 0) {
        int rc = smap_rma_backoff(&b);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

static int served_error(int rc)
{
    return smap_fail(rc, rc == MPI_ERR_RMA_RANGE
                                 ? "the target range is not inside a region attached there"
                             : rc == MPI_ERR_RMA_CONFLICT
                                 ? "the target window is exposed (MPI_Win_post) and cannot be "
                                   "locked at the same time"
                                 : "the target on another node failed the one-sided request");
}

/* Requests under construction: consecutive blocks of the target layout
 * (consecutive in the packed stream too) gathered into one message of at
 * most SMAP_RMA_NET_MAXSEG segments and `room` data bytes. */
struct batch {
    struct MPI_ABI_Win *w;
    int target;
    struct nmsg m;                      /* kind, op, type; per message: nseg, len, off */
    size_t es;                          /* accumulates: pieces of whole elements */
    size_t room;
    const char *in;                     /* packed origin stream, or NULL */
    struct call *c;                     /* NULL: put, acknowledged to the target entry */
    uint64_t seg[2 * SMAP_RMA_NET_MAXSEG];
};

static void batch_send(struct batch *b)
{
    if (!b->m.nseg)
        return;
    unsigned char stack[2048];
    size_t segbytes = (size_t)b->m.nseg * 16;
    size_t dlen = segbytes + (b->in ? (size_t)b->m.len : 0);
    unsigned char *p = dlen <= sizeof stack ? stack : malloc(dlen);
    if (!p)
        smap_fatal("one-sided: out of memory building a %zu-byte request", dlen);
    memcpy(p, b->seg, segbytes);
    if (b->in)
        memcpy(p + segbytes, b->in + b->m.off, (size_t)b->m.len);
    if (b->c)
        atomic_fetch_add_explicit(&b->c->left, 1, memory_order_relaxed);
    else
        b->w->t[b->target].puts_sent++;
    send_req(b->w, b->target, &b->m, p, dlen);
    if (p != stack)
        free(p);
    b->m.off += b->m.len;
    b->m.len = 0;
    b->m.nseg = 0;
}

static int batch_block(void *ctx, uintptr_t addr, size_t len, size_t off)
{
    struct batch *b = ctx;
    (void)off;   /* blocks come in stream order: off == b->m.off + b->m.len */
    if (len % b->es)   /* no message could carry the piece of an element */
        return smap_fail(MPI_ERR_TYPE, "a block of the target layout cuts an element");
    while (len) {
        size_t k = b->room - (size_t)b->m.len;
        if (k > len)
            k = len;
        k -= k % b->es;
        if (!k || b->m.nseg == SMAP_RMA_NET_MAXSEG) {
            batch_send(b);
            continue;
        }
        b->seg[2 * b->m.nseg] = addr;
        b->seg[2 * b->m.nseg + 1] = k;
        b->m.nseg++;
        b->m.len += k;
        addr += k;
        len -= k;
    }
    return MPI_SUCCESS;
}

int smap_rma_net_xfer(struct MPI_ABI_Win *w, int target, int kind, MPI_Op op, smap_dtype_t *et,
                      uintptr_t taddr, MPI_Count count, smap_dtype_t *tt, const char *in,
                      char *out)
{
    struct call c = { .out = out };
    struct batch b = {
        .w = w, .target = target,
        .m = { .kind = (uint32_t)kind, .op = (uint64_t)(uintptr_t)op,
               .type = et ? (uint64_t)(uintptr_t)smap_dtype_handle(et) : 0 },
        .es = et ? elem_span(et) : 1,
        .room = smap_p2p_rma_room() - sizeof(struct nmsg) - 16 * SMAP_RMA_NET_MAXSEG,
        .in = in,
    };
    /* puts to a window of fixed layout are acknowledged later (flush);
     * the rest waits for its answers (and a dynamic window's range
     * errors come back at once) */
    int later = kind == SMAP_AM_PUT && w->flavor != MPI_WIN_FLAVOR_DYNAMIC;
    if (later) {
        b.m.flags = F_PUTACK;
        b.m.cookie = (uintptr_t)&w->t[target];
    } else {
        b.c = &c;
        b.m.cookie = (uintptr_t)&c;
    }
    int rc = smap_rma_each_block(taddr, count, tt, batch_block, &b);
    batch_send(&b);
    if (later)
        return rc;
    int wrc = wait_call(&c);
    rc = rc ? rc : wrc;
    if (rc)
        return rc;
    return c.rc ? served_error(c.rc) : MPI_SUCCESS;
}

int smap_rma_net_call(struct MPI_ABI_Win *w, int target, int kind, uintptr_t addr, size_t len,
                      MPI_Op op, MPI_Datatype type, const void *in, size_t inlen, void *out,
                      size_t outlen)
{
    (void)outlen;
    smap_dtype_t *et = type != MPI_DATATYPE_NULL ? smap_dtype_stored(type) : NULL;
    if (kind != SMAP_AM_CAS) {   /* one block of bytes or elements */
        smap_dtype_t *bt = smap_dtype_get(MPI_BYTE);
        return smap_rma_net_xfer(w, target, kind, op, kind == SMAP_AM_ACC || kind == SMAP_AM_GACC
                                                          ? et : NULL,
                                 addr, (MPI_Count)len, bt, inlen ? in : NULL, out);
    }
    struct call c = { .out = out };
    atomic_store_explicit(&c.left, 1, memory_order_relaxed);
    struct nmsg m = { .kind = (uint32_t)kind, .type = (uint64_t)(uintptr_t)type,
                      .cookie = (uintptr_t)&c, .addr = addr, .len = len };
    send_req(w, target, &m, in, inlen);
    int rc = wait_call(&c);
    if (rc)
        return rc;
    return c.rc ? served_error(c.rc) : MPI_SUCCESS;
}

/* A round trip of one synchronisation request; *granted from the answer. */
static int sync_call(struct MPI_ABI_Win *w, int target, int kind, uint32_t flags, int *granted)
{
    struct call c = { 0 };
    atomic_store_explicit(&c.left, 1, memory_order_relaxed);
    struct nmsg m = { .kind = (uint32_t)kind, .flags = flags, .cookie = (uintptr_t)&c };
    send_req(w, target, &m, NULL, 0);
    int rc = wait_call(&c);
    if (!rc && c.rc)
        rc = served_error(c.rc);
    if (granted)
        *granted = c.granted;
    return rc;
}

void smap_rma_net_signal(struct MPI_ABI_Win *w, int target, int kind, uint64_t value)
{
    struct nmsg m = { .kind = (uint32_t)(kind == SMAP_RMA_NET_POST   ? N_POST
                                         : kind == SMAP_RMA_NET_DONE ? N_DONE
                                                                     : N_FENCE),
                      .addr = value };
    send_req(w, target, &m, NULL, 0);
}

static int net_flush(MPI_Win h, int target)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    struct smap_rma_target *t = &w->t[target];
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    while (atomic_load_explicit(&t->puts_acked, memory_order_acquire) < t->puts_sent) {
        int rc = smap_rma_backoff(&b);
        if (rc)
            return rc;
    }
    int rc = atomic_exchange_explicit(&t->put_err, 0, memory_order_relaxed);
    return rc ? served_error(rc) : MPI_SUCCESS;
}

static int net_lock(MPI_Win h, int target, int type)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    uint32_t flags = (type == MPI_LOCK_EXCLUSIVE ? F_EXCL : 0) | F_FIRST;
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    for (;;) {
        int granted = 0;
        int rc = sync_call(w, target, N_LOCK, flags, &granted);
        if (rc || granted)
            return rc;
        flags &= ~(uint32_t)F_FIRST;
        /* let the holder's unlock travel before asking again */
        if ((rc = smap_rma_backoff(&b)) != MPI_SUCCESS)
            return rc;
    }
}

static int net_unlock(MPI_Win h, int target, int type)
{
    return sync_call(smap_win_get(h), target, N_UNLOCK,
                     type == MPI_LOCK_EXCLUSIVE ? F_EXCL : 0, NULL);
}


/* ---- RDMA: puts and gets straight into the target's registered window --
 *
 * When the target registered its window (t->rdma), a put or get whose
 * target layout has at most SMAP_RMA_NET_MAXSEG dense blocks is one
 * fi_write or fi_read per block (net/rma.c cuts them at the transport's
 * chunk): no message to serve at the target, whose provider places the
 * data (a software provider such as tcp does it in the target's progress,
 * which any MPI call drives; a NIC needs nothing).  Locks, fences, PSCW
 * and accumulates stay messages, so the data path only runs inside an
 * epoch the target granted.
 *
 * A put packs the origin data into a buffer of its own, so it is complete
 * locally on return (as on the message path: Rput's request and
 * flush_local need nothing more); each write counts in the target's
 * puts_sent and its completion -- delivery complete: the data is in the
 * target's memory -- in puts_acked, so net_flush (flush, unlock, fence,
 * complete) waits for remote completion exactly as for acknowledged put
 * messages.  A get waits for its reads before returning (Rget's request
 * is complete on return), reading straight into the result buffer when
 * both layouts are contiguous. */

/* Bytes of put buffers still in flight: past this, puts wait. */
#define RDMA_PUT_INFLIGHT_MAX ((size_t)64 << 20)
static _Atomic size_t rdma_inflight;

struct rput {
    long refs;                       /* writes in flight + the issuer */
    struct smap_rma_target *t;
    size_t bytes;
    char data[];
};

/* Whether (count, tt) has at most SMAP_RMA_NET_MAXSEG dense blocks. */
static int few_blocks(MPI_Count count, smap_dtype_t *tt)
{
    if (smap_dtype_is_contiguous(tt))
        return 1;
    const struct smap_dtype_flat *f = smap_dtype_flat(tt);
    if (!f)
        return 0;
    MPI_Count per = 0;
    for (MPI_Count r = 0; r < f->nblk; r++)
        per += f->blk[r].n;
    return per > 0 && count <= SMAP_RMA_NET_MAXSEG / per;
}

static void rput_release(struct rput *p)
{
    if (--p->refs)
        return;
    atomic_fetch_sub_explicit(&rdma_inflight, p->bytes, memory_order_relaxed);
    free(p);
}

/* A write completed (progress, p2p lock held): remote completion. */
static void rput_done(void *cookie)
{
    struct rput *p = cookie;
    atomic_fetch_add_explicit(&p->t->puts_acked, 1, memory_order_release);
    rput_release(p);
}

struct rdma_ctx {
    struct smap_rma_target *t;
    uint64_t base, rbase, rkey;      /* the registered memory: window or attached region */
    char *stream;
    struct rput *put;                /* put: the buffer; get: NULL */
    _Atomic long left;               /* get: reads in flight */
};

static void rget_done(void *cookie)
{
    struct rdma_ctx *c = cookie;
    atomic_fetch_sub_explicit(&c->left, 1, memory_order_release);
}

static int rdma_block(void *ctx, uintptr_t addr, size_t len, size_t off)
{
    struct rdma_ctx *c = ctx;
    struct smap_rma_target *t = c->t;
    if (!len)
        return MPI_SUCCESS;
    uint64_t raddr = c->rbase + (addr - c->base);
    if (c->put) {
        c->put->refs++;
        t->puts_sent++;
        smap_net_rma(1, t->world, c->stream + off, len, raddr, c->rkey, rput_done, c->put);
    } else {
        atomic_fetch_add_explicit(&c->left, 1, memory_order_relaxed);
        smap_net_rma(0, t->world, c->stream + off, len, raddr, c->rkey, rget_done, c);
    }
    return MPI_SUCCESS;
}

static int rdma_put(struct MPI_ABI_Win *w, int target, const struct smap_rma_op_args *a,
                    const struct smap_rma_dkey *k)
{
    struct smap_rma_target *t = &w->t[target];
    size_t bytes = (size_t)(a->ocount * a->otype->size);
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    while (atomic_load_explicit(&rdma_inflight, memory_order_relaxed) > RDMA_PUT_INFLIGHT_MAX) {
        int rc = smap_rma_backoff(&b);
        if (rc)
            return rc;
    }
    struct rput *p = malloc(sizeof *p + bytes);
    if (!p)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for a put to another node");
    p->refs = 1;
    p->t = t;
    p->bytes = bytes;
    atomic_fetch_add_explicit(&rdma_inflight, bytes, memory_order_relaxed);
    smap_dtype_pack(a->oaddr, a->ocount, a->otype, p->data, 0, (MPI_Count)bytes);
    struct rdma_ctx c = { .t = t, .base = k->base, .rbase = k->rbase, .rkey = k->rkey,
                          .stream = p->data, .put = p };
    smap_p2p_lock();
    int rc = smap_rma_each_block(a->taddr, a->tcount, a->ttype, rdma_block, &c);
    rput_release(p);
    smap_p2p_unlock();
    return rc;
}

static int rdma_get(struct MPI_ABI_Win *w, int target, const struct smap_rma_op_args *a,
                    const struct smap_rma_dkey *k)
{
    struct smap_rma_target *t = &w->t[target];
    size_t bytes = (size_t)(a->tcount * a->ttype->size);
    int direct = smap_dtype_is_contiguous(a->rtype);
    char *s = direct ? (char *)a->raddr + smap_dtype_data_offset(a->rtype) : malloc(bytes);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for a get from another node");
    struct rdma_ctx c = { .t = t, .base = k->base, .rbase = k->rbase, .rkey = k->rkey,
                          .stream = s };
    smap_p2p_lock();
    int rc = smap_rma_each_block(a->taddr, a->tcount, a->ttype, rdma_block, &c);
    smap_p2p_unlock();
    struct smap_rma_backoff b;
    smap_rma_backoff_init(&b);
    /* the reads posted must finish even after an error: they name s */
    while (atomic_load_explicit(&c.left, memory_order_acquire) > 0) {
        int wrc = smap_rma_backoff(&b);
        if (wrc && !rc)
            rc = wrc;
        if (wrc)
            break;
    }
    if (!rc && !direct)
        smap_dtype_unpack(s, (MPI_Count)bytes, a->raddr, a->rcount, a->rtype, 0);
    if (!direct && !atomic_load_explicit(&c.left, memory_order_acquire))
        free(s);
    return rc;
}

/* ---- dynamic windows: the target's region keys, fetched and cached ----
 *
 * The first put or get into a region of a target's dynamic window asks
 * the target for the region holding the range (N_KEY, a round trip); the
 * target registers the region then (once) and answers its key, which the
 * origin caches per target.  Detaching sends N_INVAL to every origin that
 * got the key before the registration goes, and the origin's upcall drops
 * the entry at once: a program that tells an origin about a region
 * attached later (at the same addresses, say) does so by a message that
 * arrives after the N_INVAL, so the origin fetches the new key (an
 * answer that crossed an N_INVAL, seen as a moved dkey_gen, is fetched
 * again).  Ranges outside every region, and regions the target could not
 * register, go to messages, which report the range error. */

/* The cached region of target t holding [lo, lo+len), or NULL (p2p lock
 * held). */
static const struct smap_rma_dkey *dkey_find(const struct smap_rma_target *t, uint64_t lo,
                                             uint64_t len)
{
    for (int i = 0; i < t->ndkeys; i++) {
        const struct smap_rma_dkey *k = &t->dkeys[i];
        if (lo >= k->base && lo - k->base <= k->size && len <= k->size - (lo - k->base))
            return k;
    }
    return NULL;
}

/* The key of the region holding [lo, lo+len) at target: *k, 1 when RDMA
 * may be used, 0 when not (no region: messages report the error). */
static int dkey_get(struct MPI_ABI_Win *w, int target, uint64_t lo, uint64_t len,
                    struct smap_rma_dkey *out)
{
    struct smap_rma_target *t = &w->t[target];
    for (int tries = 0; tries < 4; tries++) {
        smap_p2p_lock();
        const struct smap_rma_dkey *k = dkey_find(t, lo, len);
        if (k)
            *out = *k;
        uint64_t gen = t->dkey_gen;
        smap_p2p_unlock();
        if (k)
            return out->rdma;
        uint64_t ans[4] = { 0 };
        struct call c = { .out = (char *)ans };
        atomic_store_explicit(&c.left, 1, memory_order_relaxed);
        struct nmsg m = { .kind = N_KEY, .cookie = (uintptr_t)&c, .addr = lo, .len = len };
        send_req(w, target, &m, NULL, 0);
        if (wait_call(&c) || c.rc)
            return 0;
        struct smap_rma_dkey nk = { ans[0], ans[1], ans[2], ans[3], c.granted };
        smap_p2p_lock();
        int fresh = t->dkey_gen == gen;   /* no N_INVAL crossed the answer */
        if (fresh) {
            if (!t->dkeys)
                t->dkeys = calloc(SMAP_RMA_DKEYS, sizeof *t->dkeys);
            if (t->dkeys) {
                if (t->ndkeys == SMAP_RMA_DKEYS)   /* full: the oldest goes */
                    memmove(t->dkeys, t->dkeys + 1, (SMAP_RMA_DKEYS - 1) * sizeof *t->dkeys);
                else
                    t->ndkeys++;
                t->dkeys[t->ndkeys - 1] = nk;
            }
        }
        smap_p2p_unlock();
        if (fresh) {
            *out = nk;
            return nk.rdma;
        }
    }
    return 0;
}

/* Whether the put/get goes by RDMA, with the key in *k. */
static int rdma_path(struct MPI_ABI_Win *w, int target, const struct smap_rma_op_args *a,
                     struct smap_rma_dkey *k)
{
    const struct smap_rma_target *t = &w->t[target];
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        if (!t->rdma || !few_blocks(a->tcount, a->ttype))
            return 0;
        *k = (struct smap_rma_dkey){ .base = t->base, .rbase = t->rbase, .rkey = t->rkey };
        return 1;
    }
    if (!smap_tun.rma_net_rma || !smap_net.rma_rw || !few_blocks(a->tcount, a->ttype))
        return 0;
    smap_dtype_t *tt = a->ttype;
    uint64_t lo = a->taddr + (uint64_t)tt->true_lb;
    uint64_t len = (uint64_t)((a->tcount - 1) * tt->extent + tt->true_extent);
    return dkey_get(w, target, lo, len, k);
}

static int net_put(MPI_Win h, int target, const struct smap_rma_op_args *a)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    struct smap_rma_dkey k;
    if (rdma_path(w, target, a, &k))
        return rdma_put(w, target, a, &k);
    return smap_rma_node_ops.put(h, target, a);
}

static int net_get(MPI_Win h, int target, const struct smap_rma_op_args *a)
{
    struct MPI_ABI_Win *w = smap_win_get(h);
    struct smap_rma_dkey k;
    if (rdma_path(w, target, a, &k))
        return rdma_get(w, target, a, &k);
    return smap_rma_node_ops.get(h, target, a);
}

static int net_acc(MPI_Win h, int target, const struct smap_rma_op_args *a)
{
    return smap_rma_node_ops.acc(h, target, a);
}

static int net_cas(MPI_Win h, int target, const struct smap_rma_op_args *a)
{
    return smap_rma_node_ops.cas(h, target, a);
}

const struct smap_rma_ops smap_rma_net_ops = {
    .put = net_put,
    .get = net_get,
    .acc = net_acc,
    .cas = net_cas,
    .lock = net_lock,
    .unlock = net_unlock,
    .flush = net_flush,
};

int smap_rma_net_flush_all(struct MPI_ABI_Win *w)
{
    for (int i = 0; i < w->n; i++)
        if (w->t[i].remote) {
            int rc = net_flush((MPI_Win)w, i);
            if (rc)
                return rc;
        }
    return MPI_SUCCESS;
}
