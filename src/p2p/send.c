/* The sending side: eager cells, rendezvous descriptors, the per-peer queue
 * of sends waiting for a free cell (or completion word), completion words,
 * and streaming (pipelined bounce) of messages whose buffer the receiver
 * cannot reach. */
#include "p2p/internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/wait.h"
#include "dtype/engine.h"
#include "smap/smap.h"

static inline int take_word(uint32_t *w)
{
    struct smap_p2p_state *s = &smap_p2p;
    if (SMAP_UNLIKELY(!s->nfree))
        return 0;
    *w = s->free_words[--s->nfree];
    /* Ordered before the cell that names it by the cell's release store. */
    atomic_store_explicit(&s->words[*w].v, SMAP_SHM_PENDING, memory_order_relaxed);
    return 1;
}

static inline void give_word(uint32_t w)
{
    smap_p2p.free_words[smap_p2p.nfree++] = w;
}

/* Puts r into the queue to its peer.  0 when no cell (or no completion
 * word) is free: the caller queues r and progress retries in order. */
static int inject(struct smap_preq *r)
{
    struct smap_p2p_state *s = &smap_p2p;
    struct smap_shm_peer *p = &s->peers[r->lr];
    struct smap_shm_cell *c = smap_shm_out_cell(p);
    if (SMAP_UNLIKELY(!c))
        return 0;
    int eager = r->bytes <= s->eager_limit;
    int need_word = !eager || r->mode == SMAP_P2P_SYNC;
    if (need_word && !take_word(&r->word))
        return 0;
    c->ctx = r->ctx;
    c->src = r->me;
    c->tag = r->tag;
    c->len = r->bytes;
    if (eager) {
        c->kind = SMAP_SHM_EAGER;
        c->flags = need_word ? SMAP_SHM_F_SYNC : 0;
        c->word = r->word;
        unsigned char *d = smap_shm_payload(p->out, c, r->bytes);
        if (SMAP_LIKELY(r->block != NULL))
            smap_shm_copy(d, r->block, r->bytes);
        else
            smap_dtype_pack(r->buf, r->count, r->dt, d, 0, (MPI_Count)r->bytes);
    } else {
        c->kind = SMAP_SHM_RTS;
        c->flags = r->block ? (r->movable ? SMAP_SHM_F_MOVABLE : 0) : SMAP_SHM_F_NONCONTIG;
        c->flags |= r->mode == SMAP_P2P_TO_HUB     ? SMAP_SHM_F_PUSH
                    : r->mode == SMAP_P2P_FROM_HUB ? SMAP_SHM_F_PULL
                                                   : 0;
        r->movable <<= 1;
        c->word = r->word;
        uint64_t a = (uint64_t)(uintptr_t)r->block;
        memcpy(c->data, &a, sizeof a);
    }
    smap_shm_post(p, c);
    smap_p2p_stats.sent++;
    smap_p2p_stats.sent_bytes += r->bytes;
    if (!r->movable)   /* (a blocking standard send: see smap_shm_prefetch_next) */
        smap_shm_prefetch_next(p);
    if (need_word)
        smap_rq_push(&s->active, r);
    else
        smap_preq_complete(r);
    return 1;
}

static inline int isend_body(struct smap_preq *r, const void *buf, MPI_Count count,
                             smap_dtype_t *dt, int rank, int lr, int me, int tag, int ctx, int mode)
{
    smap_p2p_ensure();
    r->kind = SMAP_PREQ_SEND;
    smap_preq_reset(r);
    r->err = MPI_SUCCESS;
    r->buf = (void *)(uintptr_t)buf;
    r->count = count;
    r->dt = dt;
    r->bytes = (size_t)(count * smap_dtype_size(dt));
    /* Predefined contiguous types start at buf (no call needed). */
    r->block = !smap_dtype_is_contiguous(dt)   ? NULL
               : (dt->flags & SMAP_DT_PREDEF) ? (char *)buf
                                              : (char *)buf + smap_dtype_data_offset(dt);
    r->rank = rank;
    r->lr = lr;
    r->me = me;
    r->tag = tag;
    r->ctx = ctx;
    r->mode = mode == SMAP_P2P_DETACHABLE ? SMAP_P2P_STANDARD : mode;
    r->streaming = 0;
    r->movable = mode == SMAP_P2P_DETACHABLE && r->block && r->bytes <= SMAP_P2P_DETACH_MAX;
    r->owned = 0;
    r->off = 0;
    r->cancelled = 0;
    r->got = 0;
    if (SMAP_UNLIKELY(lr < 0)) {
        smap_p2p_remote_isend(r);
        return MPI_SUCCESS;
    }
    /* Non-overtaking: once a send to this peer waits, later ones wait too. */
    struct smap_rq *q = &smap_p2p.pending[lr];
    if (SMAP_LIKELY(!q->head) && inject(r))
        return MPI_SUCCESS;
    smap_rq_push(q, r);
    smap_p2p.npending++;
    return MPI_SUCCESS;
}

static SMAP_NOINLINE int isend_mt(struct smap_preq *r, const void *buf, MPI_Count count,
                                  smap_dtype_t *dt, int rank, int lr, int me, int tag, int ctx,
                                  int mode)
{
    smap_lock_acquire(&smap_p2p_lk);
    int rc = isend_body(r, buf, count, dt, rank, lr, me, tag, ctx, mode);
    smap_lock_release(&smap_p2p_lk);
    return rc;
}

SMAP_HOT int smap_p2p_isend(struct smap_preq *r, const void *buf, MPI_Count count, smap_dtype_t *dt,
                   int rank, int lr, int me, int tag, int ctx, int mode)
{
    if (SMAP_UNLIKELY(smap_mt))
        return isend_mt(r, buf, count, dt, rank, lr, me, tag, ctx, mode);
    return isend_body(r, buf, count, dt, rank, lr, me, tag, ctx, mode);
}

/* The blocking small send without a request: the message goes straight
 * into a free cell when nothing to that peer waits before it.  Returns 0
 * (nothing done) when the general path is needed. */
static inline int send_eager_body(const char *block, size_t bytes, int lr, int me, int tag,
                                  int ctx)
{
    struct smap_p2p_state *s = &smap_p2p;
    smap_p2p_ensure();
    if (lr < 0)
        return smap_p2p_remote_send_eager(block, bytes, lr, me, tag, ctx);
    if (SMAP_UNLIKELY(bytes > s->eager_limit || s->pending[lr].head != NULL))
        return 0;
    struct smap_shm_peer *p = &s->peers[lr];
    struct smap_shm_cell *c = smap_shm_out_cell(p);
    if (SMAP_UNLIKELY(!c))
        return 0;
    c->ctx = ctx;
    c->src = me;
    c->tag = tag;
    c->len = bytes;
    c->kind = SMAP_SHM_EAGER;
    c->flags = 0;
    smap_shm_copy(smap_shm_payload(p->out, c, bytes), block, bytes);
    smap_shm_post(p, c);
    smap_p2p_stats.sent++;
    smap_p2p_stats.sent_bytes += bytes;
    return 1;
}

static SMAP_NOINLINE int send_eager_mt(const char *block, size_t bytes, int lr, int me, int tag,
                                       int ctx)
{
    smap_lock_acquire(&smap_p2p_lk);
    int done = send_eager_body(block, bytes, lr, me, tag, ctx);
    smap_lock_release(&smap_p2p_lk);
    return done;
}

SMAP_HOT int smap_p2p_send_eager(const void *block, size_t bytes, int lr, int me, int tag, int ctx)
{
    if (SMAP_UNLIKELY(smap_mt))
        return send_eager_mt(block, bytes, lr, me, tag, ctx);
    return send_eager_body(block, bytes, lr, me, tag, ctx);
}

void smap_p2p_push_pending(void)
{
    struct smap_p2p_state *s = &smap_p2p;
    for (int lr = 0; lr < s->nlocal; lr++) {
        struct smap_rq *q = &s->pending[lr];
        struct smap_preq *r;
        while ((r = q->head) != NULL) {
            q->head = r->next;
            if (!q->head)
                q->tail = NULL;
            r->next = NULL;
            if (!inject(r)) {
                /* Back at the head: order is kept. */
                r->next = q->head;
                q->head = r;
                if (!q->tail)
                    q->tail = r;
                break;
            }
            s->npending--;
        }
    }
}

/* Streams the next fragments of r into its peer's queue.  Returns 1 when
 * the whole message is out (r is done). */
static int push_fragments(struct smap_preq *r)
{
    struct smap_shm_peer *p = &smap_p2p.peers[r->lr];
    while (r->off < r->bytes) {
        struct smap_shm_cell *c = smap_shm_out_cell(p);
        if (!c)
            return 0;
        size_t n = r->bytes - r->off;
        if (n > SMAP_SHM_FRAG_PAYLOAD)
            n = SMAP_SHM_FRAG_PAYLOAD;
        uint64_t off = r->off;
        memcpy(c->data, &off, sizeof off);
        unsigned char *d = smap_shm_slot(p->out, c);
        if (r->block)
            memcpy(d, r->block + r->off, n);
        else
            smap_dtype_pack(r->buf, r->count, r->dt, d, (MPI_Count)r->off, (MPI_Count)n);
        c->kind = SMAP_SHM_FRAG;
        c->flags = 0;
        c->word = r->word;
        c->len = n;
        smap_shm_post(p, c);
        smap_shm_prefetch_next(p);
        r->off += n;
    }
    return 1;
}

/* The receiver copies the first part of the message and asked us to copy
 * the rest into its buffer meanwhile (it checked that we can reach it). */
static void copy_my_half(struct smap_preq *r)
{
    struct smap_shm_word *w = &smap_p2p.words[r->word];
    size_t split = (size_t)w->split, end = (size_t)w->end;
    char *dst = (char *)(uintptr_t)w->dst;
    if (smap_copy_to(r->lr, dst + split, r->block + split, end - split) == SMAP_COPY_BOUNCE)
        smap_fatal("point-to-point: cannot reach local rank %d's receive buffer for a split "
                   "copy", r->lr);
    atomic_store_explicit(&w->v, SMAP_SHM_HALF, memory_order_release);
}

/* Sends waiting on their completion word: DONE finishes them; CTS turns
 * them into streams.  The word stays reserved until the last fragment is
 * out, so that fragments of two messages never share a key. */
void smap_p2p_check_active(void)
{
    struct smap_p2p_state *s = &smap_p2p;
    struct smap_preq *prev = NULL, *r = s->active.head;
    while (r) {
        struct smap_preq *next = r->next;
        int finished = 0;
        if (r->streaming) {
            finished = push_fragments(r);
        } else {
            uint32_t v = atomic_load_explicit(&s->words[r->word].v, memory_order_acquire);
            if (v == SMAP_SHM_DONE) {
                finished = 1;
            } else if (v == SMAP_SHM_CTS) {
                r->streaming = 1;
                finished = push_fragments(r);
            } else if (v == SMAP_SHM_SPLIT) {
                copy_my_half(r);
            }
        }
        if (finished) {
            smap_rq_unlink(&s->active, prev, r);
            give_word(r->word);
            /* Once done, r may be gone (its waiter returned): decide
             * about it first. */
            if (SMAP_UNLIKELY(r->owned)) {
                s->nowned--;
                free(r);
            } else {
                smap_preq_complete(r);
            }
        } else {
            prev = r;
        }
        r = next;
    }
}

static int send_detach_locked(struct smap_preq *r)
{
    struct smap_p2p_state *s = &smap_p2p;
    if (r->movable != 2 || smap_preq_done(r) || r->streaming)
        return 0;
    /* The copy lives on the heap, which the receiver reaches like the
     * user's buffer (directly, else by CMA). */
    struct smap_preq *o = malloc(sizeof *o + r->bytes);
    if (!o)
        return 0;
    *o = *r;
    o->block = (char *)(o + 1);
    o->buf = o->block;
    o->count = (MPI_Count)r->bytes;
    o->dt = smap_dtype_get(MPI_BYTE);
    o->owned = 1;
    memcpy(o->block, r->block, r->bytes);
    struct smap_shm_word *w = &s->words[r->word];
    w->dst = (uint64_t)(uintptr_t)o->block;
    uint32_t expect = SMAP_SHM_PENDING;
    /* Release: the copy and dst before MOVED.  Failing, the receiver has
     * claimed the original buffer: r waits for DONE as before. */
    if (!atomic_compare_exchange_strong_explicit(&w->v, &expect, SMAP_SHM_MOVED,
                                                 memory_order_release, memory_order_acquire)) {
        free(o);
        r->movable = 0;
        return 0;
    }
    struct smap_preq *prev = NULL, *x = s->active.head;
    while (x != r) {
        prev = x;
        x = x->next;
    }
    smap_rq_unlink(&s->active, prev, r);
    smap_rq_push(&s->active, o);
    s->nowned++;
    smap_preq_complete(r);
    return 1;
}

int smap_p2p_send_detach(struct smap_preq *r)
{
    smap_p2p_lock();
    int rc = send_detach_locked(r);
    smap_p2p_unlock();
    return rc;
}

/* Whether detached sends are still in flight, after one progress round. */
static int owned_left(void)
{
    smap_p2p_lock();
    int left = smap_p2p.ready && smap_p2p.nowned;
    if (left) {
        smap_p2p_progress();
        left = smap_p2p.nowned != 0;
    }
    smap_p2p_unlock();
    return left;
}

void smap_p2p_drain(void)
{
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    /* The lock is dropped between polls: other threads go on meanwhile. */
    while (owned_left())
        smap_wait_step(&w);
}
