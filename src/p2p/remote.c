/* Point-to-point with peers on other nodes, through src/net.  Matching
 * stays where it is for node peers (the posted and unexpected queues of
 * recv.c): a message from another node is matched against the same posted
 * receives, in the same arrival order, so MPI_ANY_SOURCE, probe, mprobe
 * and cancel behave alike whichever node the sender is on.
 *
 * Protocols (the wire header below travels in one transport message):
 *   EAGER  payload of at most smap_net.eager_max packed bytes; the send
 *          completes at once, or, synchronous, when the receiver's ACK
 *          comes back (sent when the message matches); a standard send of
 *          one block of at least ZCOPY_MIN bytes is sent from the user's
 *          buffer and completes when the transport is done with it;
 *   RTS    a larger message: the sender's request and, when the provider
 *          offers RMA, the key of its buffer (packed into a library
 *          buffer first when the datatype is not one block).  The receiver
 *          that matches it reads the buffer in chunks of smap_net.chunk
 *          bytes, then sends FIN; without RMA it posts tagged receives for
 *          the chunks and sends CTS, and the sender sends them (pipelined).
 *          Either way at most the receive buffer's size moves (truncation
 *          is reported by the receiver), and no single transfer exceeds a
 *          chunk, whatever the message size (> 2 GiB included).
 * READING  the receiver has started reading an RTS's buffer (manual-progress
 *          providers, in order only): the peer's reads are served by our
 *          polls, so until FIN our waits poll instead of sleeping.
 * CANCEL asks the receiver to drop a send it has not matched (MPI_Cancel):
 *          it answers CANCELLED with 1 (taken out of its unexpected queue,
 *          never seen by a receive) or 0 (matched, or not arrived: the
 *          cancel fails and the send completes as usual).  The sender's
 *          request completes only once the answer is in, so that no
 *          message of the protocol can outlive it.
 * Order: every matchable message (EAGER, RTS) carries a per-pair sequence
 * number; one that arrives early (a provider without send-after-send
 * order) waits until its predecessors have been matched or queued, so
 * the non-overtaking rule holds on any provider. */
#define _GNU_SOURCE 1   /* ppoll */
#include "p2p/internal.h"

#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/tunables.h"
#include "base/wait.h"
#include "boot/boot.h"
#include "dtype/engine.h"
#include "net/net.h"

enum wire_kind {
    W_EAGER = 1, W_RTS, W_CTS, W_FIN, W_ACK, W_ONESIDED, W_CANCEL, W_CANCELLED, W_READING
};
/* An early message whose cancel was granted: skipped when its turn comes. */
#define W_DROPPED 0
enum wire_flags { W_SYNC = 1, W_RMA = 2 };

struct wire {
    uint8_t kind, flags;
    uint16_t pad;
    int32_t world;            /* sender's job rank */
    int32_t ctx, src, tag;    /* matching: src is the sender's rank in the communicator */
    uint32_t seq;             /* EAGER, RTS: per (sender, receiver) */
    uint64_t len;             /* message bytes; CTS: bytes granted */
    uint64_t sid;             /* the sender's request */
    uint64_t addr;            /* RTS: exposed buffer; CTS: the receiver's transfer id */
    uint64_t key;             /* RTS: its key */
};

_Static_assert(sizeof(struct wire) <= SMAP_NET_HDR_MAX, "the wire header outgrew src/net's room");

/* A message that arrived before one of its predecessors (copied). */
struct early {
    struct early *next;
    size_t len;
    struct wire h;            /* then the payload */
};

static struct {
    uint32_t *seq_out, *seq_in;   /* by job rank, then peers of other jobs (src/spawn) */
    int *me_at;               /* by peer: our rank as it knows us (NULL: our job rank for all) */
    int npeers;               /* entries of seq_out, seq_in (and me_at) */
    struct early *early;
    uint32_t next_rid;
    long sends;               /* sends waiting for their receiver (ACK, FIN, CTS) */
    long rdv_sends;           /* of which rendezvous (RTS sent) */
    long being_read;          /* of which the receiver reads now (READING came, FIN not yet) */
    unsigned long events;     /* transport events handled (completions, messages) */
    unsigned long events_seen;    /* as sleep_on_net last saw it */
    struct timespec quiet_since;  /* since when sleep_on_net has seen none */
} R;

/* Our rank as peer `world` knows it: our job rank, except for the
 * processes of another job (src/spawn), which number us after their own. */
static inline int32_t me_at(int world)
{
    return SMAP_UNLIKELY(R.me_at != NULL) ? R.me_at[world] : smap_job.rank;
}

/* Eager sends of one block from this size on go out from the user's
 * buffer (no copy into a transport buffer): below it the copy costs less
 * than the completion the send then waits for. */
#define ZCOPY_MIN ((size_t)4096)

/* A receive's net_mr when the sender waits for FIN (it exposed its
 * buffer; receives expose nothing themselves). */
#define FIN_OWED ((void *)&R)

/* Tags of the pipelined chunks: the receiver's transfer id above, the
 * chunk's index below (chosen by the receiver, so unique there without
 * the provider matching on the source address). */
static inline uint64_t chunk_tag(uint64_t rid, size_t i)
{
    return (rid << 32) | (uint64_t)(uint32_t)i;
}

static inline size_t nchunks(size_t bytes)
{
    return bytes ? (bytes + smap_net.chunk - 1) / smap_net.chunk : 0;
}

static void send_ctl(int world, int kind, uint64_t sid, uint64_t addr, uint64_t len)
{
    struct wire h = { .kind = (uint8_t)kind, .world = me_at(world), .sid = sid, .addr = addr,
                      .len = len };
    smap_net_send_msg(world, &h, sizeof h, NULL, 0);
}

/* ---- sending ------------------------------------------------------------- */

static void send_release(struct smap_preq *r)
{
    R.sends--;
    if (r->bytes > smap_net.eager_max)
        R.rdv_sends--;
    if (r->net_mr && r->net_left) {   /* READING came */
        R.being_read--;
        r->net_left = 0;
    }
    if (r->net_mr)
        smap_net_unexpose(r->net_mr);
    free(r->net_tmp);
    r->net_mr = r->net_tmp = NULL;
}

/* The receiver has the data (ACK, FIN, last chunk).  With a cancel
 * asked, the request waits for its answer (which names it). */
static void send_done(struct smap_preq *r)
{
    send_release(r);
    if (SMAP_UNLIKELY(r->net_cancel)) {
        r->net_cancel = 2;
        return;
    }
    smap_preq_complete(r);
}

int smap_p2p_remote_cancel_send(struct smap_preq *r)
{
    if (r->net_cancel || r->cancelled)
        return 0;
    int done = smap_preq_done(r);
    /* A complete send was matched, unless eager and asynchronous. */
    if (done && (r->mode == SMAP_P2P_SYNC || r->bytes > smap_net.eager_max))
        return 0;
    if (done)
        smap_preq_reset(r);
    r->net_cancel = done ? 2 : 1;
    R.sends++;
    send_ctl(SMAP_P2P_REMOTE_RANK(r->lr), W_CANCEL, (uint64_t)(uintptr_t)r, r->net_peer, 0);
    return 1;
}

/* The receiver's answer to CANCEL. */
static void cancel_answered(struct smap_preq *r, int cancelled)
{
    R.sends--;
    if (cancelled && r->net_cancel == 1 && r->net_left && !r->net_mr) {
        /* an eager send from the user's buffer that the transport has not
         * finished with: complete (cancelled) when it has (send_done) */
        r->cancelled = 1;
        r->net_cancel = 0;
        return;
    }
    if (cancelled) {
        if (r->net_cancel == 1)   /* the transfer will never happen */
            send_release(r);
        r->cancelled = 1;
    } else if (r->net_cancel == 1) {   /* matched: ACK, FIN or chunks to come */
        r->net_cancel = 0;
        return;
    }
    r->net_cancel = 0;
    smap_preq_complete(r);
}

/* Whether an eager message of `bytes` goes out as a copy (send_msg) rather
 * than from the user's buffer (send_msgv: large enough, or small enough
 * for the engine to bundle it). */
static inline int copied_eager(size_t bytes)
{
    return bytes < ZCOPY_MIN && !(smap_net.coalesce && bytes <= smap_net.coalesce);
}

/* The blocking send of a small block (smap_p2p_send): a copied message
 * is complete once the engine took it, so it needs no request (nor a
 * place in a bundle: its sender waits for it alone, and the engine sends
 * what it staged for that peer first).  0 (nothing done) for the general
 * path. */
SMAP_HOT int smap_p2p_remote_send_eager(const void *block, size_t bytes, int lr, int me, int tag,
                                        int ctx)
{
    if (SMAP_UNLIKELY(bytes > smap_net.eager_max || bytes >= ZCOPY_MIN))
        return 0;
    int world = SMAP_P2P_REMOTE_RANK(lr);
    /* (no sid: only a synchronous or cancelled send is answered) */
    struct wire h = { .kind = W_EAGER, .world = me_at(world), .ctx = ctx, .src = me, .tag = tag,
                      .seq = R.seq_out[world]++, .len = bytes };
    smap_net_send_msg(world, &h, sizeof h, block, bytes);
    return 1;
}

SMAP_HOT void smap_p2p_remote_isend(struct smap_preq *r)
{
    int world = SMAP_P2P_REMOTE_RANK(r->lr);
    struct wire h = { .world = me_at(world), .ctx = r->ctx, .src = r->me, .tag = r->tag,
                      .seq = R.seq_out[world]++, .len = r->bytes,
                      .sid = (uint64_t)(uintptr_t)r };
    r->net_tmp = r->net_mr = NULL;
    r->net_left = 0;
    r->net_peer = h.seq;
    r->net_cancel = 0;
    if (r->bytes <= smap_net.eager_max) {
        h.kind = W_EAGER;
        h.flags = r->mode == SMAP_P2P_SYNC ? W_SYNC : 0;
        const void *data = r->block;
        if (data && !h.flags && !copied_eager(r->bytes)) {
            /* done at once (injected), or (transfer_done -> send_done)
             * when the transport has sent it (from our buffer, or a copy
             * in a bundle of messages to that peer: net.h), owed like a
             * rendezvous until then: the upcall comes from a later
             * progress round, never from this call */
            if (smap_net_send_msgv(world, &h, sizeof h, data, r->bytes, r,
                                   r->movable ? SMAP_NET_NOW : 0)) {
                smap_preq_complete(r);
                return;
            }
            r->net_left = 1;
            R.sends++;
            return;
        }
        unsigned char small[512];
        void *tmp = NULL;
        if (!data && r->bytes) {
            tmp = r->bytes <= sizeof small ? small : malloc(r->bytes);
            if (!tmp)
                smap_fatal("point-to-point: out of memory packing %zu bytes", r->bytes);
            smap_dtype_pack(r->buf, r->count, r->dt, tmp, 0, (MPI_Count)r->bytes);
            data = tmp;
        }
        smap_net_send_msg(world, &h, sizeof h, data, r->bytes);
        if (tmp != small)
            free(tmp);
        if (!(h.flags & W_SYNC))
            smap_preq_complete(r);
        else
            R.sends++;
        return;
    }
    const char *data = r->block;
    if (!data) {
        if (!(r->net_tmp = malloc(r->bytes)))
            smap_fatal("point-to-point: out of memory packing %zu bytes", r->bytes);
        smap_dtype_pack(r->buf, r->count, r->dt, r->net_tmp, 0, (MPI_Count)r->bytes);
        data = r->net_tmp;
    }
    h.kind = W_RTS;
    R.sends++;
    R.rdv_sends++;
    h.addr = (uint64_t)(uintptr_t)data;
    if (smap_net.rma) {
        h.flags = W_RMA;
        smap_net_expose_to(world, data, r->bytes, &h.addr, &h.key, &r->net_mr);
    }
    smap_net_send_lazy(world, &h, sizeof h);
}

/* CTS: the receiver posted tagged receives for `granted` bytes. */
static void send_chunks(struct smap_preq *r, int world, uint64_t rid, size_t granted)
{
    const char *data = r->net_tmp ? (const char *)r->net_tmp : r->block;
    size_t n = nchunks(granted);
    if (!n) {
        send_done(r);
        return;
    }
    r->net_left = n;
    for (size_t i = 0; i < n; i++) {
        size_t off = i * smap_net.chunk;
        size_t len = granted - off < smap_net.chunk ? granted - off : smap_net.chunk;
        smap_net_tsend(world, data + off, len, chunk_tag(rid, i), r);
    }
}

/* ---- receiving ----------------------------------------------------------- */

static void recv_done(struct smap_preq *r)
{
    if (r->net_tmp) {
        if (r->got)
            smap_dtype_unpack(r->net_tmp, (MPI_Count)r->got, r->buf, r->count, r->dt, 0);
        free(r->net_tmp);
        r->net_tmp = NULL;
    }
    if (r->net_mr == FIN_OWED)
        send_ctl(SMAP_P2P_REMOTE_RANK(r->lr), W_FIN, r->net_peer, 0, 0);
    r->net_mr = NULL;
    smap_preq_complete(r);
}

/* A matched rendezvous: fetch min(message, buffer) bytes. */
static void rendezvous(struct smap_preq *r, int world, int flags, uint64_t sid, uint64_t addr,
                       uint64_t key)
{
    r->lr = SMAP_P2P_REMOTE(world);
    r->net_peer = sid;
    r->net_tmp = NULL;
    r->net_mr = (flags & W_RMA) ? FIN_OWED : NULL;
    size_t got = r->got, n = nchunks(got);
    char *dst = r->block;
    if (!dst && got && !(dst = r->net_tmp = malloc(got)))
        smap_fatal("point-to-point: out of memory for a %zu-byte receive", got);
    r->net_left = n;
    if (flags & W_RMA) {
        if (n && smap_net.manual_progress && smap_net.ordered) {
            struct wire h = { .kind = W_READING, .world = me_at(world), .sid = sid };
            smap_net_send_lazy(world, &h, sizeof h);
        }
        for (size_t i = 0; i < n; i++) {
            size_t off = i * smap_net.chunk;
            size_t len = got - off < smap_net.chunk ? got - off : smap_net.chunk;
            smap_net_read(world, dst + off, len, addr + off, key, r);
        }
    } else {
        uint64_t rid = (R.next_rid++ & 0x0fffffffu) + 1;
        for (size_t i = 0; i < n; i++) {
            size_t off = i * smap_net.chunk;
            size_t len = got - off < smap_net.chunk ? got - off : smap_net.chunk;
            smap_net_trecv(world, dst + off, len, chunk_tag(rid, i), r);
        }
        send_ctl(world, W_CTS, sid, rid, got);
    }
    if (!n)
        recv_done(r);
}

static void deliver_wire(struct smap_preq *r, const struct wire *h, const unsigned char *data)
{
    smap_p2p_set_result(r, h->src, h->tag, (size_t)h->len);
    if (h->kind == W_EAGER) {
        smap_p2p_eager_into(r, data);
        if (h->flags & W_SYNC)
            send_ctl(h->world, W_ACK, h->sid, 0, 0);
    } else {
        rendezvous(r, h->world, h->flags, h->sid, h->addr, h->key);
    }
}

void smap_p2p_remote_deliver(struct smap_preq *r, struct smap_p2p_msg *m)
{
    smap_p2p_set_result(r, m->src, m->tag, m->len);
    if (m->kind == W_EAGER) {
        smap_p2p_eager_into(r, m->data);
        if (m->flags & W_SYNC)
            send_ctl(m->world, W_ACK, m->sid, 0, 0);
    } else {
        rendezvous(r, m->world, m->flags, m->sid, m->addr, m->key);
    }
}

/* A matchable message, in order: to the first matching posted receive,
 * else into the unexpected queue (the same queues as node peers'). */
SMAP_HOT static void matchable(const struct wire *h, const unsigned char *data)
{
    struct smap_preq *r = smap_p2p_take_posted(h->ctx, h->src, h->tag);
    if (r) {
        deliver_wire(r, h, data);
        return;
    }
    size_t keep = h->kind == W_EAGER ? (size_t)h->len : 0;
    struct smap_p2p_msg *m = smap_p2p_msg_new(keep);
    m->next = NULL;
    m->ctx = h->ctx;
    m->src = h->src;
    m->tag = h->tag;
    m->lr = -1;
    m->kind = h->kind;
    m->flags = h->flags;
    m->word = h->seq;   /* names it to a CANCEL */
    m->len = (size_t)h->len;
    m->addr = h->addr;
    m->world = h->world;
    m->sid = h->sid;
    m->key = h->key;
    if (keep)
        memcpy(m->data, data, keep);
    smap_p2p_unexpected_add(m);
}

/* Messages that waited for a predecessor, now in order. */
static void release_early(int world)
{
    for (;;) {
        struct early **pp = &R.early, *e;
        while ((e = *pp) != NULL && !(e->h.world == world && e->h.seq == R.seq_in[world]))
            pp = &e->next;
        if (!e)
            return;
        *pp = e->next;
        R.seq_in[world]++;
        if (e->h.kind != W_DROPPED)
            matchable(&e->h, (const unsigned char *)(e + 1));
        free(e);
    }
}

/* CANCEL from `world` for its send `sid` of sequence number `seq`: granted
 * when the message waits unmatched (unexpected, or early: then dropped
 * when its turn comes, so that the sequence goes on). */
static void cancel_asked(int world, uint64_t sid, uint32_t seq)
{
    int granted = 0;
    struct smap_p2p_msg *m = smap_p2p_unexpected_take(world, sid, seq);
    if (m) {
        smap_p2p_msg_free(m);
        granted = 1;
    } else {
        for (struct early *e = R.early; e; e = e->next)
            if (e->h.world == world && e->h.seq == seq && e->h.sid == sid &&
                e->h.kind != W_DROPPED) {
                e->h.kind = W_DROPPED;
                granted = 1;
                break;
            }
    }
    send_ctl(world, W_CANCELLED, sid, 0, (uint64_t)granted);
}

SMAP_HOT static void incoming(int src, const void *msg, size_t len)
{
    (void)src;
    struct wire h;
    if (SMAP_UNLIKELY(len < sizeof h))
        smap_fatal("point-to-point: a %zu-byte message from another node is too short", len);
    memcpy(&h, msg, sizeof h);
    const unsigned char *data = (const unsigned char *)msg + sizeof h;
    int world = h.world;
    if ((unsigned)world >= (unsigned)R.npeers)
        smap_fatal("point-to-point: a message names job rank %d, not in the job", world);
    switch (h.kind) {
    case W_EAGER:
    case W_RTS:
        if (SMAP_UNLIKELY(h.seq != R.seq_in[world])) {
            size_t plen = len - sizeof h;
            struct early *e = malloc(sizeof *e + plen);
            if (!e)
                smap_fatal("point-to-point: out of memory keeping an early message");
            e->h = h;
            e->len = plen;
            memcpy(e + 1, data, plen);
            e->next = R.early;
            R.early = e;
            return;
        }
        R.seq_in[world]++;
        matchable(&h, data);
        if (SMAP_UNLIKELY(R.early != NULL))
            release_early(world);
        return;
    case W_CTS:
        send_chunks((struct smap_preq *)(uintptr_t)h.sid, world, h.addr, (size_t)h.len);
        return;
    case W_FIN:
    case W_ACK:
        send_done((struct smap_preq *)(uintptr_t)h.sid);
        return;
    case W_ONESIDED:
        if (smap_p2p_rma_incoming)
            smap_p2p_rma_incoming(world, data, len - sizeof h);
        return;
    case W_CANCEL:
        cancel_asked(world, h.sid, (uint32_t)h.addr);
        return;
    case W_CANCELLED:
        cancel_answered((struct smap_preq *)(uintptr_t)h.sid, h.len != 0);
        return;
    case W_READING: {
        /* before the FIN (ordered provider): the request is alive */
        struct smap_preq *r = (struct smap_preq *)(uintptr_t)h.sid;
        if (!r->net_left) {
            r->net_left = 1;
            R.being_read++;
        }
        return;
    }
    default:
        smap_fatal("point-to-point: unknown message kind %d from job rank %d", h.kind, world);
    }
}

/* ---- one-sided traffic (src/rma/remote.c) ------------------------------- */

void (*smap_p2p_rma_incoming)(int world, const void *msg, size_t len);

void smap_p2p_rma_send(int world, const void *hdr, size_t hlen, const void *data, size_t dlen)
{
    unsigned char head[SMAP_NET_HDR_MAX + 128];
    struct wire h = { .kind = W_ONESIDED, .world = me_at(world) };
    if (hlen > sizeof head - sizeof h)
        smap_fatal("one-sided: a %zu-byte request header is too large", hlen);
    memcpy(head, &h, sizeof h);
    memcpy(head + sizeof h, hdr, hlen);
    smap_p2p_lock();
    smap_net_send_msg(world, head, sizeof h + hlen, data, dlen);
    smap_p2p_unlock();
}

size_t smap_p2p_rma_room(void)
{
    return SMAP_NET_HDR_MAX + smap_net.room - sizeof(struct wire);
}

/* A chunk of r (sent, received or read) has completed. */
static void transfer_done(void *cookie)
{
    struct smap_preq *r = cookie;
    if (--r->net_left)
        return;
    if (r->kind == SMAP_PREQ_SEND)
        send_done(r);
    else
        recv_done(r);
}

SMAP_HOT void smap_p2p_remote_progress(void)
{
    R.events += (unsigned long)smap_net_progress();
}

/* Whether a transfer we take part in is under way and moves only while we
 * poll (a provider with manual data progress, the socket ones): a
 * rendezvous send whose buffer the peer reads (READING came; without
 * ordered messages, any rendezvous send still out), or a transfer of ours
 * the provider has not completed (reads, chunks, message sends).  A send
 * waiting for a late receiver is not under way: it sleeps.  A nap then stalls the stream:
 * with 1 ms naps the socket buffers drain and fill between polls, and a
 * window of 4 MiB messages moved at half the speed of polling. */
static int transfer_under_way(void)
{
    return smap_net.manual_progress &&
           (R.being_read > 0 || smap_net.ops->busy() || (!smap_net.ordered && R.rdv_sends > 0));
}

/* How long a wait with a transfer under way may go on yielding without
 * seeing any event: far above the gaps of a working transfer (a 4 MiB read
 * takes 2-3 ms over emulated tcp, a loaded CPU may stall a rank for tens of
 * ms, and a nap then lasts far longer than asked). */
#define QUIET_NS 100000000LL

/* A long wait's nap (base/wait.h, DESIGN D7): sleep on the network's
 * wait object, at most `us`.  fi_trywait runs under the lock (it may
 * progress the provider); the sleep itself does not hold it, so another
 * thread's MPI calls go on meanwhile.  Node-local queues have no wait
 * object: `us` bounds how late we see them.  While a transfer is under
 * way the wait yields instead, as in its second phase (the rank is not
 * idle: its polls are what moves the data) for as long as events keep
 * coming, QUIET_NS apart at most; then it naps the shortest nap. */
static void sleep_on_net(unsigned us)
{
    long long quiet = 0;
    smap_p2p_lock();
    int busy = smap_p2p.remote && transfer_under_way();
    int fd = busy ? -1 : smap_p2p.remote ? smap_net_trywait() : -2;
    if (busy) {
        /* A peer that stopped polling (a receiver computing between its
         * MPI calls) stops the transfer too: after QUIET_NS without any
         * event the wait naps the shortest nap, which still leaves the
         * socket buffers (MiBs) far from draining between polls. */
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (R.events != R.events_seen) {
            R.events_seen = R.events;
            R.quiet_since = now;
        }
        quiet = (long long)(now.tv_sec - R.quiet_since.tv_sec) * 1000000000LL +
                (now.tv_nsec - R.quiet_since.tv_nsec);
    }
    smap_p2p_unlock();
    if (busy && quiet < QUIET_NS) {
        sched_yield();
        return;
    }
    if (busy)
        us = smap_wait_nap_us;
    struct timespec t = { (time_t)(us / 1000000u), (long)(us % 1000000u) * 1000 };
    if (fd >= 0) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        (void)ppoll(&p, 1, &t, NULL);
    } else if (fd == -2 || busy) {
        nanosleep(&t, NULL);
    }
}

/* ---- opening and closing ------------------------------------------------- */

static int remote_open(int local, char *err, size_t errlen);
static int opened_local;   /* open for peers of other jobs alone (a one-node job) */

int smap_p2p_remote_open(char *err, size_t errlen)
{
    return remote_open(0, err, errlen);
}

static const struct smap_net_upcalls net_up = { .incoming = incoming, .done = transfer_done };

/* The job-wide open (local == 0: collective, every rank's address through
 * the boot key-value store) or a one-node job's open for peers of other
 * jobs alone (src/spawn). */
static int remote_open(int local, char *err, size_t errlen)
{
    smap_p2p_init();
    size_t n = (size_t)smap_job.size;
    R.seq_out = calloc(n, sizeof *R.seq_out);
    R.seq_in = calloc(n, sizeof *R.seq_in);
    R.npeers = (int)n;
    if (!R.seq_out || !R.seq_in) {
        snprintf(err, errlen, "out of memory for %zu peers' sequence numbers", n);
        return -1;
    }
    if ((local ? smap_net_open_local(&net_up, err, errlen) : smap_net_open(&net_up, err, errlen)) != 0) {
        free(R.seq_out), free(R.seq_in);
        memset(&R, 0, sizeof R);
        return -1;
    }
    smap_p2p_lock();
    for (int w = 0; w < smap_job.size; w++)
        if (smap_p2p.lr_of[w] < 0)
            smap_p2p.lr_of[w] = SMAP_P2P_REMOTE(w);
    smap_p2p.remote = 1;
    opened_local = local;
    smap_p2p_unlock();
    /* Long waits nap between polls (DESIGN D7, base/wait.h): 50 us keeps
     * the latency of a late message small next to the network's; with a
     * wait object they sleep on it instead, longer and longer up to
     * SMAP_NET_SLEEP_MAX, woken at once by the network.  Either way the
     * nap is sleep_on_net, which does not sleep while a transfer of ours
     * needs our polls. */
    smap_wait_nap_us = 50;
    smap_wait_sleep_max_us = 50;
    if (smap_tun.net_sleep_max > 0) {
        int64_t max = smap_tun.net_sleep_max;
        smap_wait_sleep_max_us = max > 1000000 ? 1000000u : max < 50 ? 50u : (unsigned)max;
    }
    smap_wait_sleep_hook = sleep_on_net;
    return 0;
}

void smap_p2p_remote_drain(void)
{
    if (!smap_p2p.remote)
        return;
    /* Sends still owed to their receivers (a request the program freed
     * while active): the receiver may still read our buffer, and reads
     * over a software provider need our progress, which the launcher's
     * barrier would not give. */
    smap_p2p_lock();
    while (R.sends > 0 || smap_net.ops->busy())
        smap_p2p_progress();
    /* Then what left without a completion (net's injected messages). */
    if (smap_net.ops->drain)
        smap_net.ops->drain();
    while (smap_net.ops->busy())
        smap_p2p_progress();
    smap_p2p_unlock();
}

void smap_p2p_remote_close(void)
{
    if (!smap_p2p.remote)
        return;
    smap_p2p_lock();
    smap_p2p.remote = 0;
    smap_wait_nap_us = 0;
    smap_wait_sleep_hook = NULL;
    smap_net_close();
    for (int w = 0; w < smap_p2p_nranks; w++)
        if (smap_p2p.lr_of[w] < -1)
            smap_p2p.lr_of[w] = SMAP_P2P_NO_ROUTE;
    while (R.early) {
        struct early *e = R.early;
        R.early = e->next;
        free(e);
    }
    free(R.seq_out);
    free(R.seq_in);
    free(R.me_at);
    memset(&R, 0, sizeof R);
    smap_p2p_unlock();
}

/* ---- peers of other jobs (src/spawn, DESIGN D17) -------------------------- */

int smap_p2p_remote_open_local(char *err, size_t errlen)
{
    if (smap_p2p.remote)
        return smap_net.ops->add_peers ? 0 : (snprintf(err, errlen, "the network engine %s "
                                                        "does not reach other jobs (SMAP_NET_ENGINE=ofi does)",
                                                        smap_net.ops->name), -1);
    return remote_open(1, err, errlen);
}

/* A one-node job opened the transport for the processes of other jobs
 * alone; once every one of them is reached through shm (src/spawn agreed
 * node-peer routes, p2p/foreign.c) nothing needs it, and an open
 * transport costs every wait: its progress in each poll, and naps on its
 * descriptor once a wait is long, which shm messages do not wake.  So it
 * is closed again, and the next bridge opens it anew. */
void smap_p2p_remote_release_local(void)
{
    if (!smap_p2p.remote || !opened_local)
        return;
    for (int w = smap_job.size; w < smap_p2p_nranks; w++)
        if (smap_p2p.lr_of[w] < SMAP_P2P_NO_ROUTE)
            return;   /* still reached through the transport */
    smap_p2p_remote_drain();
    smap_p2p_remote_close();
    opened_local = 0;
}

int smap_p2p_remote_name(void *buf, size_t *len)
{
    return smap_p2p.remote && smap_net.ops->getname ? smap_net.ops->getname(buf, len) : -1;
}

/* Route tables replaced by larger ones: kept (reachable) until the
 * process exits, since a reader may still hold one. */
static struct retired {
    struct retired *next;
    int *table;
} *retired;

/* Grows an array of n ints/uint32s to m entries, the new ones set to v. */
static int grow(void *pp, size_t elem, int n, int m, int v)
{
    void *p = realloc(*(void **)pp, (size_t)m * elem);
    if (!p)
        return -1;
    *(void **)pp = p;
    for (int i = n; i < m; i++) {
        if (elem == sizeof(int))
            ((int *)p)[i] = v;
    }
    return 0;
}

int smap_p2p_add_foreign(int first, int n, int me_there, const void *addrs, size_t alen,
                         char *err, size_t errlen)
{
    smap_p2p_lock();
    int old = smap_p2p_nranks, m = first + n, rc = -1;
    if (first < old) {
        snprintf(err, errlen, "peers of the other job would take ranks %d.. already known", first);
        goto out;
    }
    if (!R.me_at) {
        if (!(R.me_at = malloc((size_t)R.npeers * sizeof *R.me_at + 1)))
            goto oom;
        for (int w = 0; w < R.npeers; w++)
            R.me_at[w] = smap_job.rank;
    }
    /* lr_of is read without the lock (smap_p2p_local_rank, any thread):
     * the grown copy replaces it and the old one stays allocated */
    int *lr = malloc((size_t)m * sizeof *lr);
    struct retired *rt = malloc(sizeof *rt);
    if (!lr || !rt) {
        free(lr), free(rt);
        goto oom;
    }
    memcpy(lr, smap_p2p.lr_of, (size_t)old * sizeof *lr);
    for (int w = old; w < m; w++)
        lr[w] = SMAP_P2P_NO_ROUTE;
    *rt = (struct retired){ retired, smap_p2p.lr_of };
    retired = rt;
    smap_p2p.lr_of = lr;
    if (grow(&R.seq_out, sizeof(uint32_t), R.npeers, m, 0) != 0 ||
        grow(&R.seq_in, sizeof(uint32_t), R.npeers, m, 0) != 0 ||
        grow(&R.me_at, sizeof(int), R.npeers, m, -1) != 0)
        goto oom;
    for (int w = R.npeers; w < m; w++)
        R.seq_out[w] = R.seq_in[w] = 0;
    R.npeers = m;
    if (smap_net.ops->add_peers(first, n, addrs, alen, err, errlen) != 0)
        goto out;
    for (int i = 0; i < n; i++) {
        smap_p2p.lr_of[first + i] = SMAP_P2P_REMOTE(first + i);
        R.me_at[first + i] = me_there;
    }
    /* the array before the count; a thread learns the new ranks only
     * through the communicator made after this returns, whose handing
     * over between threads is the program's synchronisation */
    smap_p2p_lr_of = smap_p2p.lr_of;
    smap_p2p_nranks = m;
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory for %d peers of another job", n);
out:
    smap_p2p_unlock();
    return rc;
}
