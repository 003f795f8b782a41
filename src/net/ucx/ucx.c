/* The inter-node transport over UCX's UCP layer (DESIGN.md D9): one worker
 * per rank, an endpoint per remote rank made at its first use from the
 * worker addresses every rank published through the boot key-value store,
 * progress by ucp_worker_progress from p2p's progress loop, and the
 * worker's event fd (UCP_FEATURE_WAKEUP) as the wait object of blocked
 * ranks (DESIGN D7).
 *
 * Everything travels as UCP tagged messages, in two tag spaces split by
 * the top bit:
 *   - messages (net.h: header plus at most `room` payload bytes) carry
 *     MSG_BIT | the sender's job rank, and land in a ring of NRECV posted
 *     receives matching MSG_BIT alone.  UCP matches a worker's posted
 *     receives in the order they were posted and keeps each sender's
 *     messages in order, so delivering the ring's completed buffers from
 *     its head on (a receive of a large message completes later than a
 *     small one matched after it, UCP's own rendezvous) keeps every pair's
 *     order: `ordered` holds.
 *   - tagged data transfers carry the receiver's 64-bit tag (p2p's chunk
 *     tags leave the top bits zero, checked in tsend/trecv).  Under them
 *     UCP runs its own protocols: eager copies, or a rendezvous that reads
 *     the sender's buffer (get zcopy over verbs, emulated over tcp).
 * Reads of exposed buffers and one-sided windows, with the engine's own
 * exchange of UCP's memory keys, are rma.c's (internal.h: what the two
 * files share).  SMAP_NET_RMA=0 / SMAP_RMA_NET_RMA=0 turn them off: p2p's
 * rendezvous is then its pipelined tagged sends (CTS, then chunks, which
 * UCP moves with its own rendezvous) and src/rma uses messages served by
 * the target's progress.
 *
 * UCP's callbacks only record what completed (a completion list, the
 * ring's flags); the upcalls run after ucp_worker_progress has returned,
 * so p2p's answers (sends from an upcall) never enter UCP from inside it.
 *
 * Built as the plugin libsmartmap_net_ucx.so (net/engine.h), which alone
 * links UCX: the library's state and services come through smap_lib
 * (net/plugin/lib.c). */
#include "net/engine.h"
#include "net/frame.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "net/ucx/internal.h"

/* Address bytes one key-value entry carries (PMI values: 1024 chars, hex). */
#define KV_PART 480

struct ucx_state U;

SMAP_COLD _Noreturn void ucx_fail(const char *what, ucs_status_t st)
{
    smap_fatal("inter-node transport (UCX): %s failed: %s", what, ucs_status_string(st));
}

static void flush_all(void);

/* ---- completions ---------------------------------------------------------- */

void ucx_push_done(struct uop *o, ucs_status_t st)
{
    o->status = st;
    o->next = NULL;
    if (U.done_tail)
        U.done_tail->next = o;
    else
        U.done_head = o;
    U.done_tail = o;
}

static void send_cb(void *req, ucs_status_t st, void *user)
{
    (void)req;
    ucx_push_done(user, st);
}

static void trecv_cb(void *req, ucs_status_t st, const ucp_tag_recv_info_t *info, void *user)
{
    (void)req;
    (void)info;
    ucx_push_done(user, st);
}

void ucx_flush_cb(void *req, ucs_status_t st, void *user)
{
    (void)req;
    ucx_push_done(user, st);
}

SMAP_HOT static void msg_cb(void *req, ucs_status_t st, const ucp_tag_recv_info_t *info, void *user)
{
    (void)req;
    struct rslot *s = user;
    s->status = st;
    if (st == UCS_OK) {
        s->len = info->length;
        s->tag = info->sender_tag;
    }
    s->done = 1;
}

/* A peer's endpoint failed (SMAP_NET_UCX_ERRORS=peer, the default): its rank
 * died, its host went away, or it closed its endpoints (MPI_Finalize,
 * forced: a peer past the job's last barrier may still be polling here).
 * Only noted: what was under way with that peer fails with the status
 * (reap says so), and so does any later use of the endpoint (ep_of); a
 * rank that died stops the job through the launcher anyway, which is all
 * mode none relies on. */
static void ep_error(void *arg, ucp_ep_h ep, ucs_status_t st)
{
    (void)ep;
    int rank = (int)(intptr_t)arg;
    U.ep_err[rank] = st;
    if (!U.closing)
        smap_log(SMAP_LOG_INFO, "inter-node transport (UCX): the connection to rank %d "
                                "failed: %s", rank, ucs_status_string(st));
}

/* The endpoint to rank, made at its first use.  PEER error handling by
 * default; NONE (SMAP_NET_UCX_ERRORS=none) measured ~3% faster for small
 * messages over tcp but 1.1-3x slower ping-pongs from 64 KiB
 * (bench/results/internode-ucx/paired.md). */
SMAP_HOT ucp_ep_h ucx_ep_of(int rank)
{
    if (SMAP_UNLIKELY(U.ep_err[rank] != UCS_OK))
        smap_fatal("inter-node transport (UCX): the connection to rank %d failed: %s (that "
                   "rank or its host is gone)", rank, ucs_status_string(U.ep_err[rank]));
    if (U.ep[rank])
        return U.ep[rank];
    ucp_ep_params_t p = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
        .address = U.addr[rank],
        .err_mode = UCP_ERR_HANDLING_MODE_NONE,
    };
    if (U.peer_errors) {
        p.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLER;
        p.err_mode = UCP_ERR_HANDLING_MODE_PEER;
        p.err_handler = (ucp_err_handler_t){ .cb = ep_error, .arg = (void *)(intptr_t)rank };
    }
    ucs_status_t st = ucp_ep_create(U.worker, &p, &U.ep[rank]);
    if (st != UCS_OK)
        smap_fatal("inter-node transport (UCX): cannot reach rank %d (ucp_ep_create): %s", rank,
                   ucs_status_string(st));
    return U.ep[rank];
}

/* After a non-blocking call: NULL (done at once: the op is reaped like any
 * other, by the next progress round, never inside this call), an error,
 * or UCP's request (the callback will come). */
void ucx_started(struct uop *o, ucs_status_ptr_t r, const char *what)
{
    U.inflight++;
    if (r == NULL) {
        o->req = NULL;
        ucx_push_done(o, UCS_OK);
    } else if (UCS_PTR_IS_ERR(r)) {
        ucx_fail(what, UCS_PTR_STATUS(r));
    } else {
        o->req = r;
    }
}

struct uop *ucx_uop_new(enum uop_kind kind, int peer, size_t extra)
{
    struct uop *o = malloc(sizeof *o + extra);
    if (!o)
        smap_fatal("inter-node transport (UCX): out of memory");
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->peer = peer;
    return o;
}

static const char *uop_name(enum uop_kind k)
{
    switch (k) {
    case U_SEND: return "a message send";
    case U_TSEND: return "a tagged send";
    case U_TRECV: return "a tagged receive";
    case U_FLUSH: return "flushing the worker";
    case U_GET: return "a read";
    case U_PUT: return "a write";
    case U_RFLUSH: return "a write's remote completion";
    case U_KEYREP: return "fetching a memory key";
    case U_BUNDLE: return "a bundle of messages";
    }
    return "an operation";
}

/* A message buffer: from the spares, else a new one. */
static unsigned char *buf_get(void)
{
    unsigned char *b = U.spare;
    if (b) {
        memcpy(&U.spare, b, sizeof U.spare);
        return b;
    }
    if (!(b = malloc(U.msg_cap)))
        smap_fatal("inter-node transport (UCX): out of memory for a message buffer");
    return b;
}

static void buf_put(unsigned char *b)
{
    memcpy(b, &U.spare, sizeof U.spare);
    U.spare = b;
}

/* Posts ring slot i with a fresh buffer.  Always through the callback
 * (UCP_OP_ATTR_FLAG_NO_IMM_CMPL): a message already waiting completes
 * the receive inside this call, and the callback records it alike.  (An
 * immediate completion's UCP_OP_ATTR_FIELD_RECV_INFO is not filled in by
 * UCX 1.13, Debian 12's: the length and tag came out as garbage.) */
static void post_recv(int i)
{
    struct rslot *s = &U.ring[i];
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = msg_cb,
        .user_data = s,
        .datatype = ucp_dt_make_contig(1),
    };
    s->done = 0;
    s->req = NULL;
    s->buf = buf_get();
    ucs_status_ptr_t r = ucp_tag_recv_nbx(U.worker, s->buf, U.msg_cap, MSG_BIT, MSG_BIT, &p);
    if (UCS_PTR_IS_ERR(r))
        ucx_fail("posting a message receive", UCS_PTR_STATUS(r));
    s->req = r;
}

/* Posts the delivered slots again, oldest first, so that UCP has the
 * ring's receives in the ring's order: [repost, head) are delivered and
 * not posted, [head, repost + NRECV) posted.  Run before the next
 * ucp_worker_progress rather than before each upcall: a message's
 * answer (p2p's reply, the user's next send) then leaves without a
 * ucp_tag_recv_nbx ahead of it (callgrind: ~210 instructions each), and
 * a message that arrives while slots wait here stays in UCP's unexpected
 * queue, matched in arrival order when they are posted. */
SMAP_HOT static void repost(void)
{
    while (U.nposted < NRECV) {
        post_recv(U.repost);
        U.repost = (U.repost + 1) % NRECV;
        U.nposted++;
    }
}

/* The next record of the bundle being handed on.  The cursor moves on
 * before the upcall, so that a nested delivery takes the record after. */
static int deliver_record(void)
{
    struct bcur *b = U.bcur;
    size_t at = b->off;
    uint32_t rlen;
    b->off = smap_net_frame_next(b->buf, b->len, at, &rlen);
    if (b->off >= b->len)
        U.bcur = NULL;   /* the ring's next message follows */
    b->refs++;
    if (rlen)
        U.up.incoming(b->src, b->buf + at + SMAP_NET_FRAME, rlen);
    if (--b->refs == 0 && b->off >= b->len) {
        buf_put(b->buf);
        free(b);
    }
    return 1;
}

/* A bundle arrived in a ring buffer, which stays the bundle's until its
 * last record has been handed on. */
static void start_bundle(int src, unsigned char *buf, size_t len)
{
    struct bcur *b = malloc(sizeof *b);
    if (!b)
        smap_fatal("inter-node transport (UCX): out of memory for a bundle of messages");
    *b = (struct bcur){ .buf = buf, .len = len, .off = 0, .src = src, .refs = 0 };
    if (!len) {   /* (never sent so: nothing to hand on) */
        buf_put(buf);
        free(b);
        return;
    }
    U.bcur = b;
}

/* A bundle left: the copies are on their way, their senders may go on. */
static void bundle_sent(struct uop *o)
{
    int n = o->ncookies;
    void *c[BUNDLE_MAX];
    memcpy(c, o->cookies, (size_t)n * sizeof *c);
    if (!U.bundle_spare)
        U.bundle_spare = o;
    else
        free(o);
    for (int i = 0; i < n; i++)
        if (c[i])   /* NULL: a copied message (send_msg, send_lazy) */
            U.up.done(c[i]);
}

/* Hands on what completed: messages in the ring's order, then the other
 * operations.  Upcalls may send (staying out of UCP's callbacks). */
SMAP_HOT static int reap(void)
{
    int n = 0;
    if (U.kreq.done) {
        ucx_key_request();
        n++;
    }
    for (;;) {
        if (U.bcur) {
            n += deliver_record();
            continue;
        }
        if (!(U.nposted && U.ring[U.head].done))
            break;
        /* Delivered from the ring's head; the slot waits for repost(),
         * which a nested reap (an upcall that progresses) runs first. */
        struct rslot *s = &U.ring[U.head];
        ucp_request_free(s->req);
        if (s->status != UCS_OK)
            smap_fatal("inter-node transport (UCX): a message receive failed: %s",
                       ucs_status_string(s->status));
        unsigned char *buf = s->buf;
        size_t len = s->len;
        int src = (int)(uint32_t)(s->tag & 0xffffffffu);
        int bundle = (s->tag & BUNDLE_TAG) != 0;
        s->req = NULL;
        s->done = 0;
        U.nposted--;
        U.head = (U.head + 1) % NRECV;
        if (bundle) {
            start_bundle(src, buf, len);
            continue;
        }
        U.up.incoming(src, buf, len);
        buf_put(buf);
        n++;
    }
    while (U.done_head) {
        struct uop *o = U.done_head;
        if (!(U.done_head = o->next))
            U.done_tail = NULL;
        U.inflight--;
        if (o->req)
            ucp_request_free(o->req);
        if (o->status != UCS_OK)
            smap_fatal("inter-node transport (UCX): %s %s rank %d failed: %s", uop_name(o->kind),
                       o->kind == U_TRECV || o->kind == U_GET || o->kind == U_KEYREP ? "from"
                                                                                     : "to",
                       o->peer, ucs_status_string(o->status));
        if (o->counted)
            U.sending[o->peer]--;
        if (o->kind == U_BUNDLE) {
            bundle_sent(o);
            n++;
            continue;
        }
        if (o->kind == U_KEYREP)
            ucx_key_reply(o);
        else if (o->ent)
            o->ent->users--;
        void *cookie = o->cookie;
        void (*fn)(void *) = o->fn;
        free(o);
        if (fn)
            fn(cookie);
        else if (cookie)
            U.up.done(cookie);
        n++;
    }
    return n;
}

/* One ucp_worker_progress per round, then the upcalls: a second call
 * (UCP returns 0 once nothing more is there) is one more empty
 * epoll_wait over tcp, and it sat between a message's recvfrom and the
 * answer p2p sends once its receive completes (strace of an 8-byte
 * ping-pong: MPICH goes from recvfrom straight to sendto).  p2p's wait
 * loop calls again at once. */
SMAP_HOT static int ucx_progress(void)
{
    repost();
    U.round++;
    if (U.ndirty)
        flush_all();
    int n = (int)ucp_worker_progress(U.worker);
    U.in_progress++;
    int r = reap();
    U.in_progress--;
    /* what the upcalls answered (CTS, ACK, FIN...) leaves now */
    if (U.ndirty)
        flush_all();
    return r + (n > 0);
}

static int ucx_busy(void)
{
    return U.inflight > 0 || U.done_head != NULL || U.ndirty > 0 || U.bcur != NULL;
}

/* MPI_Finalize's drain: a send UCP completed at once may still sit in a
 * transport's buffer (tcp: a socket that was full), leaving only at later
 * progress calls of ours; the flush completes once every operation of the
 * worker has left (busy() waits for it). */
static void ucx_drain(void)
{
    flush_all();
    struct uop *o = ucx_uop_new(U_FLUSH, -1, 0);
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = ucx_flush_cb,
        .user_data = o,
    };
    ucx_started(o, ucp_worker_flush_nbx(U.worker, &p), "ucp_worker_flush_nbx");
}

/* Sleeping: the worker's event fd once ucp_worker_arm says nothing is
 * pending (UCS_ERR_BUSY: events are there, progress instead). */
static int ucx_trywait(void)
{
    repost();
    if (U.ndirty) {
        flush_all();
        return -1;
    }
    if (U.done_head || U.bcur || (U.nposted && U.ring[U.head].done) || U.kreq.done)
        return -1;
    if (U.efd < 0)
        return -2;
    ucs_status_t st = ucp_worker_arm(U.worker);
    if (st == UCS_ERR_BUSY)
        return -1;
    return st == UCS_OK ? U.efd : -2;
}

/* ---- sending -------------------------------------------------------------- */

void ucx_send_uop(struct uop *o, int dst, const void *buf, size_t count, ucp_datatype_t dt,
                  uint64_t tag)
{
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_DATATYPE,
        .cb.send = send_cb,
        .user_data = o,
        .datatype = dt,
    };
    ucx_started(o, ucp_tag_send_nbx(ucx_ep_of(dst), buf, count, tag, &p), "ucp_tag_send_nbx");
}

/* A message fits a posted buffer: header and payload within
 * SMAP_NET_HDR_MAX + room (one-sided requests carry a longer header and
 * a shorter payload). */
static void check_len(size_t hlen, size_t dlen)
{
    if (hlen + dlen > U.msg_cap)
        smap_fatal("inter-node transport (UCX): a %zu+%zu-byte message exceeds the %zu bytes "
                   "of a receive buffer", hlen, dlen, U.msg_cap);
}

/* Messages up to this many bytes (header and payload) try send_now
 * first: the header and 4 KiB, the most p2p copies (its larger eager
 * messages leave from the user's buffer, send_msgv).  The other way
 * copies as much, into a malloc'ed operation whose completion is reaped
 * and freed later: at 1 and 2 KiB bw's sender was slower than MPICH's
 * (issue 38). */
#define SEND_NOW_MAX (SMAP_NET_HDR_MAX + 4096)

static inline uint64_t msg_tag(void)
{
    return MSG_BIT | (uint64_t)(uint32_t)smap_lib->job->rank;
}

/* ---- coalescing ------------------------------------------------------------- */

/* A message send to dst started (a uop whose completion comes): counted
 * until then, so that a nonblocking send queues behind it in dst's bundle
 * rather than leaving alone. */
static void count_send(struct uop *o, int dst)
{
    o->counted = 1;
    U.sending[dst]++;
}

/* Sends the bundle staged for dst. */
static void flush_peer(int dst)
{
    struct uop *o = U.stage[dst];
    U.stage[dst] = NULL;
    for (int i = 0; i < U.ndirty; i++)
        if (U.dirty[i] == dst) {
            U.dirty[i] = U.dirty[--U.ndirty];
            break;
        }
    count_send(o, dst);
    ucx_send_uop(o, dst, o->data, o->len, ucp_dt_make_contig(1), msg_tag() | BUNDLE_TAG);
}

static void flush_all(void)
{
    while (U.ndirty)
        flush_peer(U.dirty[U.ndirty - 1]);
}

/* Before any other traffic to dst: what is staged for it goes first. */
static inline void flush_before(int dst)
{
    if (SMAP_UNLIKELY(U.stage[dst] != NULL))
        flush_peer(dst);
}

/* Copies one message into dst's bundle: the bundle leaves at the end of
 * the progress round (or the start of the next), when full, or before any
 * other traffic to dst; done(cookie) follows its completion.  A window of
 * small nonblocking sends then costs one socket write, one receive and
 * one completion per bundle instead of per message (as the libfabric
 * engine's, over sockets). */
static void stage_msg(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen,
                      void *cookie)
{
    size_t span = smap_net_frame_span(hlen + dlen);
    size_t cap = (U.msg_cap + 7) & ~(size_t)7;
    struct uop *o = U.stage[dst];
    if (o && (o->len + span > U.msg_cap || o->ncookies == BUNDLE_MAX)) {
        flush_peer(dst);
        o = NULL;
    }
    if (!o) {
        if ((o = U.bundle_spare) != NULL) {
            U.bundle_spare = NULL;
            memset(o, 0, sizeof *o);
            o->kind = U_BUNDLE;
            o->peer = dst;
        } else {
            o = ucx_uop_new(U_BUNDLE, dst, cap + BUNDLE_MAX * sizeof(void *));
        }
        o->cookies = (void **)(void *)(o->data + cap);
        U.stage[dst] = o;
        U.dirty[U.ndirty++] = dst;
    }
    o->len += smap_net_frame_record(o->data + o->len, hdr, hlen, data, dlen);
    o->cookies[o->ncookies++] = cookie;
}

/* A small message UCP can send at once (its short protocol; the
 * transport had room): from a stack buffer, no operation record, no
 * completion to reap.  0 when UCP could not (then send_msg's way). */
SMAP_HOT static int send_now(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen)
{
    unsigned char b[SEND_NOW_MAX];
    memcpy(b, hdr, hlen);
    if (dlen)
        memcpy(b + hlen, data, dlen);
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL,
        .datatype = ucp_dt_make_contig(1),
    };
    ucs_status_ptr_t r = ucp_tag_send_nbx(ucx_ep_of(dst), b, hlen + dlen, msg_tag(), &p);
    if (r == NULL)
        return 1;
    if (UCS_PTR_IS_ERR(r) && UCS_PTR_STATUS(r) == UCS_ERR_NO_RESOURCE)
        return 0;
    if (UCS_PTR_IS_ERR(r))
        ucx_fail("ucp_tag_send_nbx (message)", UCS_PTR_STATUS(r));
    /* A request despite the flag (not seen with UCX 1.13): the stack
     * buffer must outlive it. */
    ucx_wait_req(r);
    return 1;
}

/* A copied message: the caller's buffers are free on return.  Sent from
 * an upcall (p2p's answers to what this round delivered: CTS, ACK, FIN),
 * it is staged: a round's messages to a peer leave as one bundle when the
 * round ends. */
SMAP_HOT static void ucx_send_msg(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen)
{
    size_t len = hlen + dlen;
    check_len(hlen, dlen);
    if (U.in_progress && len <= U.coalesce) {
        stage_msg(dst, hdr, hlen, data, dlen, NULL);
        return;
    }
    flush_before(dst);
    if (len <= SEND_NOW_MAX && send_now(dst, hdr, hlen, data, dlen))
        return;
    struct uop *o = ucx_uop_new(U_SEND, dst, len);
    memcpy(o->data, hdr, hlen);
    if (dlen)
        memcpy(o->data + hlen, data, dlen);
    count_send(o, dst);
    ucx_send_uop(o, dst, o->data, len, ucp_dt_make_contig(1), msg_tag());
}

/* An RTS: its receiver answers by a CTS that moves only while we poll
 * (manual progress), so it waits in the bundle until our next progress
 * round (a window of rendezvous sends: one write for all). */
static void ucx_send_lazy(int dst, const void *hdr, size_t hlen)
{
    if (hlen <= U.coalesce) {
        stage_msg(dst, hdr, hlen, NULL, 0, NULL);
        return;
    }
    ucx_send_msg(dst, hdr, hlen, NULL, 0);
}

/* send_msgv payloads from this size on leave alone, from the caller's
 * buffer, when nothing to their peer is staged or in flight (p2p sends
 * from the user's buffer from 4 KiB on: below, a copy costs less than a
 * completion; a ping-pong's message gains nothing from a bundle). */
#define LONE_MIN ((size_t)4096)

/* The payload leaves from the caller's buffer (an iovec with the copied
 * header), done(cookie) once UCP is through with it; 1 when UCP completed
 * it at once (then no upcall). */
static int ucx_send_msgv(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen,
                         void *cookie, int flags)
{
    size_t len = hlen + dlen;
    check_len(hlen, dlen);
    /* a blocking send's small message to an idle peer leaves at once */
    if ((flags & SMAP_NET_NOW) && !U.in_progress && !U.stage[dst] && !U.sending[dst] &&
        len <= SEND_NOW_MAX && send_now(dst, hdr, hlen, data, dlen))
        return 1;
    /* (UCP mostly completes a send at once: "in flight" is also "a lone
     * one left since the last progress round", a window's first) */
    if (len <= U.coalesce && (dlen < LONE_MIN || U.stage[dst] || U.sending[dst] > 0 ||
                              U.lone[dst] == U.round)) {
        stage_msg(dst, hdr, hlen, data, dlen, cookie);
        return 0;
    }
    flush_before(dst);
    U.lone[dst] = U.round;
    struct uop *o = ucx_uop_new(U_SEND, dst, hlen);
    memcpy(o->data, hdr, hlen);
    o->iov[0] = (ucp_dt_iov_t){ o->data, hlen };
    o->iov[1] = (ucp_dt_iov_t){ (void *)(uintptr_t)data, dlen };
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_DATATYPE,
        .cb.send = send_cb,
        .user_data = o,
        .datatype = ucp_dt_make_iov(),
    };
    ucs_status_ptr_t r = ucp_tag_send_nbx(ucx_ep_of(dst), o->iov, dlen ? 2 : 1, msg_tag(), &p);
    if (r == NULL) {
        free(o);
        return 1;
    }
    o->cookie = cookie;
    if (!UCS_PTR_IS_ERR(r))
        count_send(o, dst);
    ucx_started(o, r, "ucp_tag_send_nbx (message)");
    return 0;
}

static void check_tag(uint64_t tag)
{
    if (tag & (MSG_BIT | KEY_BIT))
        smap_fatal("inter-node transport (UCX): data tag %#llx uses the message or key bit",
                   (unsigned long long)tag);
}

static void ucx_tsend(int dst, const void *buf, size_t len, uint64_t tag, void *cookie)
{
    check_tag(tag);
    flush_before(dst);
    struct uop *o = ucx_uop_new(U_TSEND, dst, 0);
    o->cookie = cookie;
    ucx_send_uop(o, dst, buf, len, ucp_dt_make_contig(1), tag);
}

/* The tag is the receiver's own (unique among its transfers), so it needs
 * no source filter: UCP matches on the whole tag. */
static void ucx_trecv(int src, void *buf, size_t len, uint64_t tag, void *cookie)
{
    check_tag(tag);
    struct uop *o = ucx_uop_new(U_TRECV, src, 0);
    o->cookie = cookie;
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_DATATYPE,
        .cb.recv = trecv_cb,
        .user_data = o,
        .datatype = ucp_dt_make_contig(1),
    };
    ucx_started(o, ucp_tag_recv_nbx(U.worker, buf, len, tag, ~(uint64_t)0, &p), "ucp_tag_recv_nbx");
}

/* ---- opening: context, worker, address exchange --------------------------- */


/* Every rank's worker address (network transports only: node peers never
 * come here) through the boot key-value store: smap.ucx.<rank> holds its
 * length, smap.ucx<i>.<rank> its parts (an IB address outgrows one PMI
 * value).  The putting rank is each key's last part: under PMIx, boot
 * asks that rank (boot/pmix_client.c). */
static int exchange_addresses(char *err, size_t errlen)
{
    ucp_worker_attr_t wa = {
        .field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS | UCP_WORKER_ATTR_FIELD_ADDRESS_FLAGS,
        .address_flags = UCP_WORKER_ADDRESS_FLAG_NET_ONLY,
    };
    ucs_status_t st = ucp_worker_query(U.worker, &wa);
    if (st != UCS_OK) {
        snprintf(err, errlen, "ucp_worker_query (address): %s", ucs_status_string(st));
        return -1;
    }
    const unsigned char *me = (const unsigned char *)wa.address;
    size_t alen = wa.address_length;
    char key[64], val[2 * KV_PART + 1];
    int rank = smap_lib->job->rank, n = smap_lib->job->size, bad = 0;
    snprintf(key, sizeof key, "smap.ucx.%d", rank);
    snprintf(val, sizeof val, "%zu", alen);
    bad |= smap_boot_put(key, val);
    for (size_t off = 0, i = 0; off < alen; off += KV_PART, i++) {
        snprintf(key, sizeof key, "smap.ucx%zu.%d", i, rank);
        smap_net_hex(val, me + off, alen - off < KV_PART ? alen - off : KV_PART);
        bad |= smap_boot_put(key, val);
    }
    ucp_worker_release_address(U.worker, wa.address);
    if (bad || smap_boot_fence()) {
        snprintf(err, errlen, "could not exchange the UCX worker addresses through PMI");
        return -1;
    }
    for (int r = 0; r < n; r++) {
        if (r == rank)
            continue;
        snprintf(key, sizeof key, "smap.ucx.%d", r);
        size_t len = 0;
        if (smap_boot_get(key, val, sizeof val) != 0 || sscanf(val, "%zu", &len) != 1 || !len ||
            len > ((size_t)1 << 20) || !(U.addr[r] = malloc(len))) {
            snprintf(err, errlen, "rank %d's UCX worker address is missing or malformed", r);
            return -1;
        }
        for (size_t off = 0, i = 0; off < len; off += KV_PART, i++) {
            size_t part = len - off < KV_PART ? len - off : KV_PART;
            snprintf(key, sizeof key, "smap.ucx%zu.%d", i, r);
            if (smap_boot_get(key, val, sizeof val) != 0 ||
                smap_net_unhex((unsigned char *)U.addr[r] + off, part, val) != part) {
                snprintf(err, errlen, "rank %d's UCX worker address is missing or malformed", r);
                return -1;
            }
        }
    }
    return 0;
}

/* Eager limit and chunk: the tunables (SMAP_NET_EAGER_LIMIT, 64K by
 * default: the posted ring then holds 4 MiB per rank; SMAP_NET_CHUNK). */
/* Whether UCX can only move data through sockets here: UCX_TLS names
 * software transports alone (tcp and the node-local ones), or leaves the
 * choice to UCX on a machine without an RDMA device (/sys/class/
 * infiniband empty).  There UCX serves a ucp_get in the data's owner's
 * progress, and p2p's pipelined tagged sends moved large messages faster
 * than one get (loopback, 3 interleaved reps, 256 KiB-4 MiB one-way:
 * get 0.4-1.3 / 1.8-4.3 / 5.3-11.4 ms, pipelined 0.3-0.7 / 0.9-2.1 /
 * 3.3-7.9 ms at 256K / 1M / 4M). */
static int sockets_only(void)
{
    const char *tls = getenv("UCX_TLS");
    if (tls && *tls && *tls != '^' && strcmp(tls, "all") != 0) {
        static const char *const soft[] = { "tcp", "self", "sm", "shm", "posix", "sysv",
                                            "cma", "knem", "xpmem" };
        for (const char *p = tls; *p;) {
            size_t n = strcspn(p, ",");
            int ok = 0;
            for (size_t i = 0; i < sizeof soft / sizeof soft[0] && !ok; i++)
                ok = strlen(soft[i]) == n && !strncmp(p, soft[i], n);
            if (!ok)
                return 0;
            p += n;
            p += *p == ',';
        }
        return 1;
    }
    DIR *d = opendir("/sys/class/infiniband");
    int any = 0;
    struct dirent *e;
    while (d && !any && (e = readdir(d)) != NULL)
        any = e->d_name[0] != '.';
    if (d)
        closedir(d);
    return !any;
}

/* UCX's tcp segments over sockets alone (eager_messages). */
#define TCP_SEG "256K"

/* Sets UCP's setting `name` to `v` unless the user set it (`var` in the
 * environment). */
static void ucx_default(ucp_config_t *cfg, const char *name, const char *var, const char *v)
{
    const char *env = getenv(var);
    if (env && *env)
        return;
    if (ucp_config_modify(cfg, name, v) != UCS_OK)
        smap_log(SMAP_LOG_INFO, "inter-node transport (UCX): could not set %s=%s", var, v);
}

/* Over sockets alone UCX's own rendezvous (from UCX_RNDV_THRESH, chosen
 * by UCX) made a 64 KiB message, one of our eager ones, cost 90-107 us
 * one-way between 2 emulated hosts against 36-47 us sent eager (3
 * interleaved reps, load 7): there the threshold is set just above our
 * largest message and our largest tagged transfer (SMAP_NET_CHUNK), as
 * tune_rxm keeps messages rxm-eager in the libfabric engine.  A chunk is
 * sent once the receiver posted its receive (CTS), so UCP's rendezvous
 * under it only added a round trip (RTS, RTR) to ours: eager chunks read
 * 128 KiB-2 MiB 0.67-0.94x the one-way time, 4 MiB 1.15x, bandwidth
 * 0.81-1.09x (10 paired launches, 5 each way; issue 38, README.md).  A
 * value the user set wins. */
static void eager_messages(ucp_config_t *cfg)
{
    if (!sockets_only())
        return;
    size_t chunk = smap_lib->net->chunk;
    char v[32];
    snprintf(v, sizeof v, "%zu", (U.msg_cap > chunk ? U.msg_cap : chunk) + 1);
    ucx_default(cfg, "RNDV_THRESH", "UCX_RNDV_THRESH", v);
    /* UCX's tcp sends an eager message in segments of TCP_TX_SEG_SIZE
     * (8 KiB by default: a 512 KiB chunk was 64 sends, each one system
     * call and one fragment to match) and receives into TCP_RX_SEG_SIZE
     * (64 KiB).  256 KiB against those, 6 paired launches, 3 each way
     * (issue 38): bw 64 KiB-2 MiB 0.56-0.87x the time per message,
     * latency 128 KiB-4 MiB 0.62-0.95x; against MPICH/UCX (its UCX
     * rendezvous), 1-4 MiB 0.51-0.65x (README.md).  Through the
     * environment (read by ucp_init; a value the user set stays):
     * ucp_config_modify takes a transport's field (TX_SEG_SIZE) too, but
     * that way LeakSanitizer's tracer crashed at exit in the ASan build
     * (net_ucx_rma_2x2_am, every run; no ASan report; not through the
     * environment). */
    setenv("UCX_TCP_TX_SEG_SIZE", TCP_SEG, 0);
    setenv("UCX_TCP_RX_SEG_SIZE", TCP_SEG, 0);
}

/* Bundles (net.h) over sockets alone, or when SMAP_NET_COALESCE is set:
 * records of at most SMAP_NET_COALESCE bytes and the header, and at most
 * half a bundle.  Over UCX's RDMA transports small messages cost no system
 * call each, and UCX has its own ways. */
static void coalescing(struct smap_net *net)
{
    const char *env = getenv("SMAP_NET_COALESCE");
    size_t want = smap_lib->tun->net_coalesce;
    size_t co = ((env && *env) || sockets_only()) && want ? want + SMAP_NET_HDR_MAX : 0;
    size_t co_max = U.msg_cap / 2 - SMAP_NET_FRAME - 8;
    if (co > co_max)
        co = co_max;
    net->coalesce = co > SMAP_NET_HDR_MAX ? co - SMAP_NET_HDR_MAX : 0;
    U.coalesce = net->coalesce ? net->coalesce + SMAP_NET_HDR_MAX : 0;
}

static void sizes(struct smap_net *net)
{
    const struct smap_tunables *t = smap_lib->tun;
    net->eager_max = t->net_eager_limit;
    net->room = net->eager_max > SMAP_NET_ROOM_MIN ? net->eager_max : SMAP_NET_ROOM_MIN;
    net->chunk = t->net_chunk ? t->net_chunk : 1;
    /* rendezvous by ucp_get where UCX reads by RDMA; over sockets alone
     * pipelined tagged sends, unless SMAP_NET_RMA was set */
    const char *want = getenv("SMAP_NET_RMA");
    net->rma = t->net_rma && ((want && *want) || !sockets_only());
    net->rma_rw = t->rma_net_rma;
    /* data moves only inside ucp_worker_progress (no progress thread) */
    net->manual_progress = 1;
    net->ordered = 1;   /* the ring's order (top of this file) */
    U.msg_cap = SMAP_NET_HDR_MAX + net->room;
    coalescing(net);
}

static int ucx_open(const struct smap_net_upcalls *up, char *err, size_t errlen)
{
    struct smap_net *net = smap_lib->net;
    int n = smap_lib->job->size;
    if (net->open_local) {
        snprintf(err, errlen, "the UCX engine does not reach processes of other jobs (dynamic "
                              "processes): SMAP_NET_ENGINE=ofi does");
        return -1;
    }
    memset(&U, 0, sizeof U);
    U.efd = -1;
    U.up = *up;
    sizes(net);
    unsigned major, minor, release;
    ucp_get_version(&major, &minor, &release);
    snprintf(net->provider, sizeof net->provider, "ucx %u.%u.%u", major, minor, release);

    ucp_config_t *cfg;
    ucs_status_t st = ucp_config_read(NULL, NULL, &cfg);
    if (st != UCS_OK) {
        snprintf(err, errlen, "ucp_config_read: %s (check the UCX_* variables)",
                 ucs_status_string(st));
        return -1;
    }
    eager_messages(cfg);
    int wake = smap_lib->tun->net_sleep_max > 0;
    ucp_params_t cp = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS,
        .features = UCP_FEATURE_TAG | (wake ? UCP_FEATURE_WAKEUP : 0) |
                    (net->rma || net->rma_rw ? UCP_FEATURE_RMA : 0),
        .estimated_num_eps = (size_t)n,
    };
    st = ucp_init(&cp, cfg, &U.ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK) {
        U.ctx = NULL;
        snprintf(err, errlen, "ucp_init: %s (no usable UCX transport? UCX_TLS, UCX_NET_DEVICES)",
                 ucs_status_string(st));
        return -1;
    }
    /* one thread at a time: p2p calls in under smap_p2p_lk */
    ucp_worker_params_t wp = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_SINGLE,
    };
    if ((st = ucp_worker_create(U.ctx, &wp, &U.worker)) != UCS_OK) {
        U.worker = NULL;
        snprintf(err, errlen, "ucp_worker_create: %s", ucs_status_string(st));
        return -1;
    }
    if (wake && ucp_worker_get_efd(U.worker, &U.efd) != UCS_OK)
        U.efd = -1;
    U.addr = calloc((size_t)n, sizeof *U.addr);
    U.ep = calloc((size_t)n, sizeof *U.ep);
    U.ep_err = calloc((size_t)n, sizeof *U.ep_err);
    U.peer_errors = strcmp(smap_lib->tun->net_ucx_errors, "peer") == 0;
    U.stage = calloc((size_t)n, sizeof *U.stage);
    U.dirty = calloc((size_t)n, sizeof *U.dirty);
    U.sending = calloc((size_t)n, sizeof *U.sending);
    U.lone = calloc((size_t)n, sizeof *U.lone);
    U.round = 1;   /* (lone[] starts at 0: no lone send yet) */
    if (!U.addr || !U.ep || !U.ep_err || !U.stage || !U.dirty || !U.sending || !U.lone) {
        snprintf(err, errlen, "out of memory for %d peers", n);
        return -1;
    }
    U.nposted = 0;
    U.repost = U.head = 0;
    repost();
    ucx_post_kreq();
    if (exchange_addresses(err, errlen))
        return -1;
    smap_log(SMAP_LOG_INFO,
             "inter-node transport: %s (transports: UCX_TLS=%s), eager %zu bytes, coalescing "
             "%zu, chunk %zu, %s, %s, waits %s, endpoint errors: %s",
             net->provider, getenv("UCX_TLS") ? getenv("UCX_TLS") : "(UCX's choice)",
             net->eager_max, net->coalesce, net->chunk,
             net->rma ? "rendezvous by ucp_get" : "rendezvous by pipelined tagged sends",
             net->rma_rw ? "one-sided by ucp_put/ucp_get" : "one-sided by messages",
             U.efd >= 0 ? "sleep on the worker's fd" : "nap",
             U.peer_errors ? "peer (noted)" : "none (the launcher's)");
    return 0;
}

/* Waits for a request of UCP's own (cancel, endpoint close). */
void ucx_wait_req(ucs_status_ptr_t r)
{
    if (r == NULL || UCS_PTR_IS_ERR(r))
        return;
    while (ucp_request_check_status(r) == UCS_INPROGRESS)
        ucp_worker_progress(U.worker);
    ucp_request_free(r);
}

static void ucx_close(void)
{
    U.closing = 1;
    if (U.worker) {
        flush_all();
        while (U.done_head || U.inflight || U.bcur)
            ucx_progress();
        ucx_drop_unread_keys();
        /* the ring's receives: cancelled, then their callbacks come */
        for (int i = 0; i < NRECV; i++) {
            struct rslot *s = &U.ring[i];
            if (s->req && !s->done)
                ucp_request_cancel(U.worker, s->req);
        }
        ucx_rma_close();
        for (int i = 0; i < NRECV; i++) {
            struct rslot *s = &U.ring[i];
            if (!s->req)
                continue;
            while (!s->done)
                ucp_worker_progress(U.worker);
            ucp_request_free(s->req);
            s->req = NULL;
            buf_put(s->buf);
        }
        /* Forced: a flushing close waits for the peer, which may be gone
         * past the job's last barrier; everything was drained before.
         * UCP forces only endpoints with error handling: without, the
         * worker's destruction below releases them. */
        ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                  .flags = UCP_EP_CLOSE_FLAG_FORCE };
        for (int r = 0; U.peer_errors && U.ep && r < smap_lib->job->size; r++)
            if (U.ep[r])
                ucx_wait_req(ucp_ep_close_nbx(U.ep[r], &p));
        ucp_worker_destroy(U.worker);
    }
    if (U.ctx)
        ucp_cleanup(U.ctx);
    for (int r = 0; U.addr && r < smap_lib->job->size; r++)
        free(U.addr[r]);
    free(U.addr);
    free(U.ep);
    free(U.ep_err);
    free(U.stage);
    free(U.dirty);
    free(U.sending);
    free(U.lone);
    free(U.bundle_spare);
    while (U.spare) {
        unsigned char *b = buf_get();
        free(b);
    }
    memset(&U, 0, sizeof U);
    U.efd = -1;
}

static const struct smap_net_ops ucx_ops = {
    .name = "ucx",
    .open = ucx_open,
    .close = ucx_close,
    .progress = ucx_progress,
    .busy = ucx_busy,
    .drain = ucx_drain,
    .trywait = ucx_trywait,
    .send_msg = ucx_send_msg,
    .send_lazy = ucx_send_lazy,
    .send_msgv = ucx_send_msgv,
    .tsend = ucx_tsend,
    .trecv = ucx_trecv,
    .read = ucx_read,
    .expose = ucx_expose,
    .unexpose = ucx_unexpose,
    .expose_to = ucx_expose_to,
    .rma_xfer = ucx_rma_xfer,
    .expose_rw = ucx_expose_rw,
};

/* The plugin's one export (net/engine.h). */
SMAP_NET_ENGINE_EXPORT const struct smap_net_ops *
smap_net_engine_entry(const struct smap_net_lib *lib, char *err, size_t errlen)
{
    if (smap_net_engine_accept(lib, err, errlen) != 0)
        return NULL;
    return &ucx_ops;
}
