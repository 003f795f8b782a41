/* The receiving side: incoming cells, matching against posted receives,
 * the unexpected queue, rendezvous copies, streamed fragments, probe,
 * mprobe and cancel. */
#include "p2p/internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/wait.h"
#include "dtype/engine.h"
#include "smap/remote.h"

static void set_result(struct smap_preq *r, int src, int tag, size_t len)
{
    r->src = src;
    r->rtag = tag;
    r->total = len;
    r->got = len <= r->bytes ? len : r->bytes;
    r->err = len <= r->bytes ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
    smap_p2p_stats.recvd++;
    smap_p2p_stats.recvd_bytes += len;
}

/* Eager payload into the receive buffer (never past its end). */
SMAP_HOT static void eager_into(struct smap_preq *r, const unsigned char *data)
{
    if (SMAP_LIKELY(r->block != NULL))
        smap_shm_copy(r->block, data, r->got);
    else if (r->got)
        smap_dtype_unpack(data, (MPI_Count)r->got, r->buf, r->count, r->dt, 0);
    smap_preq_complete(r);
}

/* Whether [p, p+len) lies in one of this rank's exposed regions (so that
 * the sender reaches it through its view of us). */
static int exposed_here(const void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p;
    static const enum smap_region_kind kinds[] = { SMAP_REGION_HEAP, SMAP_REGION_DATA,
                                                   SMAP_REGION_STACK };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const struct smap_region *g = smap_region_self(kinds[i]);
        if (g->len && a - g->base < g->len && len <= g->len - (a - g->base))
            return 1;
    }
    return 0;
}

/* A large message between two buffers both cores reach directly: the
 * receiver copies the first half now and the sender, asked through its
 * completion word, copies the second half at the same time (all of it,
 * push: the sender's SMAP_SHM_F_PUSH).  The receive completes when the
 * sender reports its part (check_splits). */
static int try_split(struct smap_preq *r, int lr, const void *src, uint32_t word, int push)
{
    if (lr == smap_p2p.me || smap_caps.copy_level != SMAP_COPY_DIRECT)
        return 0;
    const void *v = smap_remote_inline(lr, src, r->got);
    if (!v || !exposed_here(r->block, r->got))
        return 0;
    size_t half = push ? 0 : (r->got / 2) & ~(size_t)63;
    struct smap_shm_word *w = &smap_p2p.peers[lr].words[word];
    w->dst = (uint64_t)(uintptr_t)r->block;
    w->split = half;
    w->end = r->got;
    atomic_store_explicit(&w->v, SMAP_SHM_SPLIT, memory_order_release);
    memcpy(r->block, v, half);
    smap_p2p_stats.rndv[SMAP_COPY_DIRECT]++;
    r->lr = lr;
    r->word = word;
    smap_rq_push(&smap_p2p.splits, r);
    return 1;
}

void smap_p2p_check_splits(void)
{
    struct smap_rq *q = &smap_p2p.splits;
    struct smap_preq *prev = NULL, *r = q->head;
    while (r) {
        struct smap_preq *next = r->next;
        struct smap_shm_peer *p = &smap_p2p.peers[r->lr];
        if (atomic_load_explicit(&p->words[r->word].v, memory_order_acquire) == SMAP_SHM_HALF) {
            smap_rq_unlink(q, prev, r);
            smap_shm_signal(p, r->word, SMAP_SHM_DONE);
            smap_preq_complete(r);
        } else {
            prev = r;
        }
        r = next;
    }
}

/* The single copy of a rendezvous message, or a request to stream it. */
static void rendezvous(struct smap_preq *r, int lr, uint64_t addr, int flags, uint32_t word)
{
    struct smap_shm_peer *p = &smap_p2p.peers[lr];
    const void *src = (const void *)(uintptr_t)addr;
    if (flags & SMAP_SHM_F_MOVABLE) {
        /* Keep the sender from detaching now, or learn where it moved the
         * data (acquire: its copy and dst are visible then). */
        struct smap_shm_word *w = &p->words[word];
        uint32_t expect = SMAP_SHM_PENDING;
        if (!atomic_compare_exchange_strong_explicit(&w->v, &expect, SMAP_SHM_CLAIMED,
                                                     memory_order_acquire,
                                                     memory_order_acquire))
            src = (const void *)(uintptr_t)w->dst;
    }
    if (!(flags & SMAP_SHM_F_NONCONTIG)) {
        if (r->block && r->got >= smap_p2p.split_min && smap_p2p.split_min &&
            !(flags & SMAP_SHM_F_PULL) && try_split(r, lr, src, word, flags & SMAP_SHM_F_PUSH))
            return;
        if (r->block) {
            int level = smap_copy_from(lr, r->block, src, r->got);
            if (level != SMAP_COPY_BOUNCE) {
                smap_p2p_stats.rndv[level]++;
                goto copied;
            }
        } else if (smap_caps.copy_level == SMAP_COPY_DIRECT) {
            const void *v = smap_remote_inline(lr, src, r->got);
            if (v) {
                if (r->got)
                    smap_dtype_unpack(v, (MPI_Count)r->got, r->buf, r->count, r->dt, 0);
                smap_p2p_stats.rndv[SMAP_COPY_DIRECT]++;
                goto copied;
            }
        }
    }
    smap_p2p_stats.rndv[SMAP_COPY_BOUNCE]++;
    /* Not reachable (or not one block): the sender streams it to us. */
    r->lr = lr;
    r->word = word;
    r->roff = 0;
    smap_rq_push(&smap_p2p.streams, r);
    smap_shm_signal(p, word, SMAP_SHM_CTS);
    return;
copied:
    smap_shm_signal(p, word, SMAP_SHM_DONE);
    smap_preq_complete(r);
}

static void fragment(int lr, struct smap_shm_cell *c)
{
    const unsigned char *d = smap_shm_slot(smap_p2p.peers[lr].in, c);
    struct smap_rq *q = &smap_p2p.streams;
    struct smap_preq *prev = NULL, *r = q->head;
    while (r && !(r->lr == lr && r->word == c->word)) {
        prev = r;
        r = r->next;
    }
    if (SMAP_UNLIKELY(!r))
        smap_fatal("point-to-point: stream fragment from local rank %d matches no receive", lr);
    uint64_t off;
    memcpy(&off, c->data, sizeof off);
    size_t n = c->len;
    if (off < r->got) {
        size_t k = r->got - off < n ? r->got - off : n;
        if (r->block)
            memcpy(r->block + off, d, k);
        else
            smap_dtype_unpack(d, (MPI_Count)k, r->buf, r->count, r->dt, (MPI_Count)off);
    }
    r->roff += n;
    if (r->roff >= r->total) {
        smap_rq_unlink(q, prev, r);
        smap_preq_complete(r);
    }
}

static SMAP_COLD void oom(size_t n)
{
    smap_fatal("point-to-point: out of memory keeping an unexpected message of %zu bytes", n);
}

/* Unexpected messages of at most POOL_BYTES payload come from a free list
 * (under the point-to-point lock like the rest), so that a sender running
 * ahead of its receiver costs no allocator call per message. */
#define POOL_BYTES 64
#define POOL_MAX 1024
static struct smap_p2p_msg *pool;
static int npool;

static inline struct smap_p2p_msg *msg_new(size_t keep)
{
    struct smap_p2p_msg *m;
    if (keep <= POOL_BYTES) {
        if (SMAP_LIKELY(pool != NULL)) {
            m = pool;
            pool = m->next;
            npool--;
        } else {
            m = malloc(sizeof *m + POOL_BYTES);
        }
        if (m)
            m->pooled = 1;
    } else {
        m = malloc(sizeof *m + keep);
        if (m)
            m->pooled = 0;
    }
    if (SMAP_UNLIKELY(!m))
        oom(keep);
    return m;
}

static inline void msg_free(struct smap_p2p_msg *m)
{
    if (m->pooled && npool < POOL_MAX) {
        m->next = pool;
        pool = m;
        npool++;
    } else {
        free(m);
    }
}

static void unexpected_add(struct smap_p2p_msg *m)
{
    struct smap_p2p_state *s = &smap_p2p;
    if (s->utail)
        s->utail->next = m;
    else
        s->uhead = m;
    s->utail = m;
}

/* For remote.c (internal.h). */
SMAP_HOT void smap_p2p_set_result(struct smap_preq *r, int src, int tag, size_t len)
{
    set_result(r, src, tag, len);
}

SMAP_HOT void smap_p2p_eager_into(struct smap_preq *r, const unsigned char *data)
{
    eager_into(r, data);
}

struct smap_p2p_msg *smap_p2p_msg_new(size_t keep)
{
    return msg_new(keep);
}

void smap_p2p_msg_free(struct smap_p2p_msg *m)
{
    msg_free(m);
}

void smap_p2p_unexpected_add(struct smap_p2p_msg *m)
{
    unexpected_add(m);
}

/* Keeps a message nobody has asked for yet (eager payload copied out so
 * that the cell goes back to the sender at once). */
static void unexpected(int lr, struct smap_shm_cell *c)
{
    size_t keep = c->kind == SMAP_SHM_EAGER ? c->len : 0;
    struct smap_p2p_msg *m = msg_new(keep);
    smap_p2p_stats.unexpected++;
    m->next = NULL;
    m->ctx = c->ctx;
    m->src = c->src;
    m->tag = c->tag;
    m->lr = lr;
    m->kind = c->kind;
    m->flags = c->flags;
    m->word = c->word;
    m->len = c->len;
    m->addr = 0;
    if (keep)
        smap_shm_copy(m->data, smap_shm_payload(smap_p2p.peers[lr].in, c, keep), keep);
    if (c->kind == SMAP_SHM_RTS)
        memcpy(&m->addr, c->data, sizeof m->addr);
    unexpected_add(m);
}

void smap_p2p_incoming(int lr, struct smap_shm_cell *c)
{
    struct smap_p2p_state *s = &smap_p2p;
    if (SMAP_UNLIKELY(c->kind == SMAP_SHM_FRAG)) {
        fragment(lr, c);
        smap_shm_release(&s->peers[lr], c);
        return;
    }
    struct smap_preq *prev = NULL, *r = s->posted.head;
    int ctx = c->ctx, src = c->src, tag = c->tag;
    while (r && !smap_p2p_matches(r->ctx, r->rank, r->tag, ctx, src, tag)) {
        prev = r;
        r = r->next;
    }
    if (!r) {
        unexpected(lr, c);
    } else {
        smap_rq_unlink(&s->posted, prev, r);
        set_result(r, src, tag, c->len);
        if (c->kind == SMAP_SHM_EAGER) {
            eager_into(r, smap_shm_payload(s->peers[lr].in, c, c->len));
            if (c->flags & SMAP_SHM_F_SYNC)
                smap_shm_signal(&s->peers[lr], c->word, SMAP_SHM_DONE);
        } else {
            uint64_t a;
            memcpy(&a, c->data, sizeof a);
            rendezvous(r, lr, a, c->flags, c->word);
        }
    }
    smap_shm_release(&s->peers[lr], c);
}

/* Receives message m (already out of the unexpected queue) into r. */
static void deliver(struct smap_preq *r, struct smap_p2p_msg *m)
{
    if (SMAP_UNLIKELY(m->lr < 0)) {
        smap_p2p_remote_deliver(r, m);
        msg_free(m);
        return;
    }
    set_result(r, m->src, m->tag, m->len);
    if (m->kind == SMAP_SHM_EAGER) {
        eager_into(r, m->data);
        if (m->flags & SMAP_SHM_F_SYNC)
            smap_shm_signal(&smap_p2p.peers[m->lr], m->word, SMAP_SHM_DONE);
    } else {
        rendezvous(r, m->lr, m->addr, m->flags, m->word);
    }
    msg_free(m);
}

SMAP_HOT static void init_recv(struct smap_preq *r, void *buf, MPI_Count count, smap_dtype_t *dt)
{
    r->kind = SMAP_PREQ_RECV;
    smap_preq_reset(r);
    r->err = MPI_SUCCESS;
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    r->bytes = (size_t)(count * smap_dtype_size(dt));
    /* Predefined contiguous types start at buf (no call needed). */
    r->block = !smap_dtype_is_contiguous(dt)   ? NULL
               : (dt->flags & SMAP_DT_PREDEF) ? (char *)buf
                                              : (char *)buf + smap_dtype_data_offset(dt);
    r->cancelled = 0;
    r->got = r->total = r->roff = 0;
}

/* Takes m (found after prev) out of the unexpected queue. */
static void unexpected_unlink(struct smap_p2p_state *s, struct smap_p2p_msg *prev,
                              struct smap_p2p_msg *m)
{
    if (prev)
        prev->next = m->next;
    else
        s->uhead = m->next;
    if (s->utail == m)
        s->utail = prev;
    m->next = NULL;
}

struct smap_p2p_msg *smap_p2p_probe(int ctx, int rank, int tag, int remove)
{
    struct smap_p2p_state *s = &smap_p2p;
    struct smap_p2p_msg *prev = NULL, *m = s->uhead;
    while (m && !smap_p2p_matches(ctx, rank, tag, m->ctx, m->src, m->tag)) {
        prev = m;
        m = m->next;
    }
    if (m && remove)
        unexpected_unlink(s, prev, m);
    return m;
}

static inline int irecv_body(struct smap_preq *r, void *buf, MPI_Count count,
                             smap_dtype_t *dt, int rank, int tag, int ctx)
{
    smap_p2p_ensure();
    init_recv(r, buf, count, dt);
    r->rank = rank;
    r->tag = tag;
    r->ctx = ctx;
    r->lr = -1;
    /* Anything already here arrived before this receive was posted. */
    struct smap_p2p_msg *m = smap_p2p.uhead ? smap_p2p_probe(ctx, rank, tag, 1) : NULL;
    if (m)
        deliver(r, m);
    else
        smap_rq_push(&smap_p2p.posted, r);
    return MPI_SUCCESS;
}

static SMAP_NOINLINE int irecv_mt(struct smap_preq *r, void *buf, MPI_Count count,
                                  smap_dtype_t *dt, int rank, int tag, int ctx)
{
    smap_lock_acquire(&smap_p2p_lk);
    int rc = irecv_body(r, buf, count, dt, rank, tag, ctx);
    smap_lock_release(&smap_p2p_lk);
    return rc;
}

SMAP_HOT int smap_p2p_irecv(struct smap_preq *r, void *buf, MPI_Count count, smap_dtype_t *dt,
                   int rank, int tag, int ctx)
{
    if (SMAP_UNLIKELY(smap_mt))
        return irecv_mt(r, buf, count, dt, rank, tag, ctx);
    return irecv_body(r, buf, count, dt, rank, tag, ctx);
}

/* Whether a queue other than lr's holds a message. */
static inline int others_waiting(int lr)
{
    struct smap_p2p_state *s = &smap_p2p;
    for (int i = 0; i < s->nlocal; i++)
        if (i != lr && smap_shm_in_cell(&s->peers[i]))
            return 1;
    return 0;
}

SMAP_HOT int smap_p2p_recv_direct(struct smap_preq *r, void *block, size_t cap, int rank, int lr, int tag,
                         int ctx)
{
    struct smap_p2p_state *s = &smap_p2p;
    if (SMAP_UNLIKELY(smap_mt))
        return 0;
    smap_p2p_ensure();
    if (s->uhead || s->posted.head || smap_p2p_progress_hook)
        return 0;
    struct smap_shm_peer *p = &s->peers[lr];
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    for (;;) {
        struct smap_shm_cell *c = smap_shm_in_cell(p);
        if (c) {
            if (c->kind != SMAP_SHM_EAGER ||
                !smap_p2p_matches(ctx, rank, tag, c->ctx, c->src, c->tag))
                return 0;
            r->kind = SMAP_PREQ_RECV;
            r->bytes = cap;
            r->cancelled = 0;
            set_result(r, c->src, c->tag, c->len);
            smap_shm_copy(block, smap_shm_payload(p->in, c, c->len), r->got);
            if (c->flags & SMAP_SHM_F_SYNC)
                smap_shm_signal(p, c->word, SMAP_SHM_DONE);
            smap_shm_release(p, c);
            smap_preq_complete(r);
            return 1;
        }
        /* Anything else to do: the general path does it. */
        if (s->npending || s->active.head || s->splits.head || others_waiting(lr) ||
            smap_wait_step(&w))
            return 0;
    }
}

int smap_p2p_iprobe(int ctx, int rank, int tag, int remove, int *src, int *mtag, size_t *len,
                    struct smap_p2p_msg **taken)
{
    smap_p2p_lock();
    smap_p2p_progress();
    struct smap_p2p_msg *m = smap_p2p_probe(ctx, rank, tag, remove);
    if (m) {
        *src = m->src;
        *mtag = m->tag;
        *len = m->len;
    }
    smap_p2p_unlock();
    if (taken)
        *taken = remove ? m : NULL;
    return m != NULL;
}

void smap_p2p_mrecv(struct smap_preq *r, void *buf, MPI_Count count, smap_dtype_t *dt,
                    struct smap_p2p_msg *m)
{
    smap_p2p_lock();
    smap_p2p_ensure();
    init_recv(r, buf, count, dt);
    r->rank = m->src;
    r->tag = m->tag;
    r->ctx = m->ctx;
    r->lr = -1;
    deliver(r, m);
    smap_p2p_unlock();
}

void smap_p2p_null(struct smap_preq *r, int kind)
{
    r->kind = kind;
    r->err = MPI_SUCCESS;
    r->src = MPI_PROC_NULL;
    r->rtag = MPI_ANY_TAG;
    r->got = 0;
    r->cancelled = 0;
    r->lr = SMAP_P2P_NO_ROUTE;   /* nothing to cancel */
    r->next = NULL;
    smap_preq_complete(r);
}

static int cancel_locked(struct smap_preq *r)
{
    struct smap_rq *q = &smap_p2p.posted;
    struct smap_preq *prev = NULL, *x = q->head;
    while (x && x != r) {
        prev = x;
        x = x->next;
    }
    if (!x)
        return 0;
    smap_rq_unlink(q, prev, r);
    r->cancelled = 1;
    r->got = 0;
    smap_preq_complete(r);
    return 1;
}

int smap_p2p_cancel_recv(struct smap_preq *r)
{
    smap_p2p_lock();
    int rc = cancel_locked(r);
    smap_p2p_unlock();
    return rc;
}

/* Sends to node peers are not recalled: once in the peer's queue the
 * message is the receiver's (MPI lets a cancel fail). */
int smap_p2p_cancel_send(struct smap_preq *r)
{
    smap_p2p_lock();
    int rc = r->kind == SMAP_PREQ_SEND && r->lr <= -2 && smap_p2p.remote
                 ? smap_p2p_remote_cancel_send(r)
                 : 0;
    smap_p2p_unlock();
    return rc;
}

struct smap_p2p_msg *smap_p2p_unexpected_take(int world, uint64_t sid, uint32_t seq)
{
    struct smap_p2p_state *s = &smap_p2p;
    struct smap_p2p_msg *prev = NULL, *m = s->uhead;
    while (m && !(m->lr < 0 && m->world == world && m->sid == sid && m->word == seq)) {
        prev = m;
        m = m->next;
    }
    if (m)
        unexpected_unlink(s, prev, m);
    return m;
}
