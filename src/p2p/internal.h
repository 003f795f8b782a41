/* State shared by the files of src/p2p (one process: no locking; the
 * library serialises calls). */
#ifndef SMAP_P2P_INTERNAL_H
#define SMAP_P2P_INTERNAL_H

#include "p2p/p2p.h"
#include "shm/shm.h"

/* A FIFO of requests linked through ->next. */
struct smap_rq {
    struct smap_preq *head, *tail;
};

static inline void smap_rq_push(struct smap_rq *q, struct smap_preq *r)
{
    r->next = NULL;
    if (q->tail)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
}

/* Unlinks r, whose predecessor is prev (NULL: r is the head). */
static inline void smap_rq_unlink(struct smap_rq *q, struct smap_preq *prev, struct smap_preq *r)
{
    if (prev)
        prev->next = r->next;
    else
        q->head = r->next;
    if (q->tail == r)
        q->tail = prev;
    r->next = NULL;
}

struct smap_p2p_state {
    int ready;
    int nlocal, me;
    struct smap_shm_peer *peers;     /* by local rank */
    struct smap_rq *pending;         /* sends waiting for a cell, per local rank */
    int npending;                    /* requests in all pending queues */
    struct smap_rq active;           /* sends waiting on a completion word */
    struct smap_rq posted;           /* receives not matched yet, in post order */
    struct smap_rq streams;          /* receives being streamed into */
    struct smap_rq splits;           /* receives waiting for the sender's half */
    struct smap_p2p_msg *uhead, *utail;   /* unexpected messages, arrival order */
    int *lr_of;                      /* job rank -> local rank or -1 */
    uint32_t *free_words;            /* stack of free completion words */
    unsigned nfree;
    struct smap_shm_word *words;     /* our completion words */
    int rr;                          /* where the next poll starts */
    size_t eager_limit;
    size_t split_min;                /* 0: never split a copy */
    int nowned;                      /* detached sends in flight */
    int remote;                      /* peers on other nodes (src/net is open) */
};

extern struct smap_p2p_state smap_p2p;

static inline void smap_p2p_ensure(void)
{
    if (SMAP_UNLIKELY(!smap_p2p.ready))
        smap_p2p_init();
}

/* send.c */
void smap_p2p_push_pending(void);
void smap_p2p_check_active(void);
void smap_p2p_check_splits(void);
/* recv.c: one incoming cell from local rank lr (consumed and released). */
void smap_p2p_incoming(int lr, struct smap_shm_cell *c);
/* recv.c, for remote.c: the receive's status fields for a message of len
 * bytes; an eager payload into a matched receive (completes it); a kept
 * message (payload of `keep` bytes); queueing it as unexpected. */
void smap_p2p_set_result(struct smap_preq *r, int src, int tag, size_t len);
void smap_p2p_eager_into(struct smap_preq *r, const unsigned char *data);
struct smap_p2p_msg *smap_p2p_msg_new(size_t keep);
void smap_p2p_msg_free(struct smap_p2p_msg *m);
void smap_p2p_unexpected_add(struct smap_p2p_msg *m);
/* remote.c: a send to another node (r->lr is its route); an unexpected
 * message from another node received into r; one round of the transport. */
void smap_p2p_remote_isend(struct smap_preq *r);
int smap_p2p_remote_send_eager(const void *block, size_t bytes, int lr, int me, int tag, int ctx);
void smap_p2p_remote_deliver(struct smap_preq *r, struct smap_p2p_msg *m);
void smap_p2p_remote_progress(void);
/* remote.c: smap_p2p_cancel_send for a remote peer's send (lock held). */
int smap_p2p_remote_cancel_send(struct smap_preq *r);
/* recv.c: the unexpected message from job rank `world` with the sender's
 * request `sid` and sequence number `seq`, taken out of the queue, or NULL. */
struct smap_p2p_msg *smap_p2p_unexpected_take(int world, uint64_t sid, uint32_t seq);

/* The first posted receive that matches (ctx, src, tag), taken out of
 * the posted queue, or NULL. */
static inline struct smap_preq *smap_p2p_take_posted(int ctx, int src, int tag);

static inline int smap_p2p_matches(int rctx, int rsrc, int rtag, int ctx, int src, int tag)
{
    return rctx == ctx && (rsrc == MPI_ANY_SOURCE || rsrc == src) &&
           (rtag == MPI_ANY_TAG || rtag == tag);
}

static inline struct smap_preq *smap_p2p_take_posted(int ctx, int src, int tag)
{
    struct smap_rq *q = &smap_p2p.posted;
    struct smap_preq *prev = NULL, *r = q->head;
    while (r && !smap_p2p_matches(r->ctx, r->rank, r->tag, ctx, src, tag)) {
        prev = r;
        r = r->next;
    }
    if (r)
        smap_rq_unlink(q, prev, r);
    return r;
}

#endif
