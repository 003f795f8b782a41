/* The inter-node transport over libfabric (DESIGN.md D9): one reliable
 * datagram endpoint per rank, an address vector in table form whose index
 * is the job rank, one completion queue read by the progress loop.
 *
 * Messages (FI_MSG) land in a ring of receive buffers posted at open and
 * reposted as soon as the upcall has looked at them; data transfers
 * (FI_TAGGED) go straight between user buffers; reads (FI_RMA) fetch from
 * buffers registered by the peer.  The provider is whatever fi_getinfo
 * picks (provider.c): FI_PROVIDER when set, else "net" (libfabric's native RDM over
 * TCP sockets), else "tcp;ofi_rxm"; its memory-registration
 * rules (FI_MR_LOCAL, FI_MR_VIRT_ADDR, FI_MR_PROV_KEY, FI_MR_ENDPOINT) are
 * followed, so a fast provider needs no change here.
 *
 * Built as the plugin libsmartmap_net_ofi.so (net/engine.h), which alone
 * links libfabric: the library's state (smap_lib->net, ->job, ->tun) and
 * services (log, boot key-value store: net/plugin/lib.c) come through the
 * table the library hands to the entry point at the end of this file. */
#include "net/engine.h"
#include "net/frame.h"

#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "net/ofi/provider.h"

/* Message buffers posted at once.  Not fewer: with fewer posted buffers
 * than a window of small sends (bench/bw: 64), rxm now and then holds the
 * surplus as unexpected messages and the rate drops 6x (seen with 32). */
#define NRECV 64
#define HDR_MAX SMAP_NET_HDR_MAX
#define CQ_BATCH 16
/* Every transport message is a sequence of frames (net/frame.h).  One
 * frame is one message; a bundle packs several (coalescing, F.coalesce). */
#define FRAME SMAP_NET_FRAME
/* Largest message on the wire besides the payload: frame and header. */
#define WIRE_HDR (FRAME + HDR_MAX)
/* Messages one bundle carries at most (their cookies sit in the op). */
#define BUNDLE_MAX 64
/* send_msgv payloads from this size on skip the bundle when their peer has
 * nothing staged or in flight (p2p sends from the user's buffer from 4 KiB
 * on: below, a copy costs less than a completion). */
#define LONE_MIN ((size_t)4096)

enum op_kind {
    OP_RECV_MSG, OP_SEND_MSG, OP_SENDV, OP_TSEND, OP_TRECV, OP_READ, OP_INJECT, OP_WRITE, OP_BUNDLE
};

/* One operation handed to libfabric.  The fi_context2 comes first: the
 * completion names it (FI_CONTEXT / FI_CONTEXT2 mode). */
struct op {
    struct fi_context2 fctx;
    struct op *next;          /* in the backlog while it waits to be posted */
    enum op_kind kind;
    int peer;
    int ncookies;             /* OP_BUNDLE: messages in it */
    void *buf;
    size_t len;
    size_t hlen;              /* OP_SENDV: header bytes in data[], then len bytes at buf */
    uint64_t tag, raddr, key;
    void *cookie;
    void (*fn)(void *);       /* src/rma's transfers: run instead of the done upcall */
    struct fid_mr *mr;        /* local registration (FI_MR_LOCAL), or NULL */
    void **cookies;           /* OP_BUNDLE: the done cookies of its messages */
    unsigned char data[];     /* 8-aligned: records (frames) start on 8 bytes */     /* OP_SEND_MSG / OP_RECV_MSG: the message */
};

_Static_assert(offsetof(struct op, data) % 8 == 0, "records need 8-byte alignment");

static struct {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_ep *ep;
    struct fid_av *av;
    struct fid_cq *cq;
    fi_addr_t *addr;          /* by job rank (then the peers of other jobs: add_peers) */
    int npeers;               /* entries of addr, stage, injected, sending, dirty */
    struct smap_net_upcalls up;
    uint64_t mr_mode;
    uint64_t next_key;
    size_t inject_max;
    size_t iov_limit;
    struct op *backlog, *backlog_tail;
    struct op *recvs[NRECV];
    int nrecv;                /* how many of recvs are used */
    long inflight;            /* posted operations not completed yet */
    struct op **stage;        /* by job rank: the bundle being filled (OP_BUNDLE), or NULL */
    int *dirty;               /* the ranks whose stage holds messages */
    unsigned char *injected;  /* by job rank: injected to since our last completion-bearing send */
    int *sending;             /* by job rank: message sends posted or queued, not completed */
    int ndirty;
    struct op *spare;         /* a sent bundle kept for the next (no malloc, no fresh pages) */
    size_t coalesce;          /* largest record (header and payload) staged; 0: off */
    size_t msg_cap;           /* bytes of a transport message: a posted receive buffer */
    int in_progress;          /* inside ofi_progress: messages sent now are staged (ofi_send_msg) */
    int wait_fd;              /* the CQ's wait object (FI_WAIT_FD), or -1 */
    int wait_stale;           /* trywaits in a row that found the fd readable, idle */
} F;

static SMAP_COLD _Noreturn void fail(const char *what, ssize_t rc)
{
    smap_fatal("inter-node transport (libfabric %s): %s failed: %s", smap_lib->net->provider, what,
               fi_strerror((int)-rc));
}

/* A local registration when the provider wants one for buffers it touches. */
static void *local_desc(struct op *o, void *buf, size_t len, uint64_t access)
{
    if (!(F.mr_mode & FI_MR_LOCAL) || !len)
        return NULL;
    int rc = fi_mr_reg(F.domain, buf, len, access, 0, F.next_key++, 0, &o->mr, NULL);
    if (rc)
        fail("fi_mr_reg (local buffer)", rc);
    if (F.mr_mode & FI_MR_ENDPOINT) {
        if ((rc = fi_mr_bind(o->mr, &F.ep->fid, 0)) || (rc = fi_mr_enable(o->mr)))
            fail("binding a local registration", rc);
    }
    return fi_mr_desc(o->mr);
}

/* Posts o: 0, or -FI_EAGAIN when the provider has no room now. */
static ssize_t post(struct op *o)
{
    void *desc;
    ssize_t rc;
    switch (o->kind) {
    case OP_RECV_MSG:
        desc = o->mr ? fi_mr_desc(o->mr) : local_desc(o, o->data, o->len, FI_RECV);
        rc = fi_recv(F.ep, o->data, o->len, desc, FI_ADDR_UNSPEC, o);
        break;
    case OP_SEND_MSG:
    case OP_BUNDLE:
        desc = o->mr ? fi_mr_desc(o->mr) : local_desc(o, o->data, o->len, FI_SEND);
        rc = fi_send(F.ep, o->data, o->len, desc, F.addr[o->peer], o);
        break;
    case OP_SENDV: {
        /* no local registration here: ofi_send_msgv copies when the
         * provider wants them (FI_MR_LOCAL) */
        struct iovec iov[2] = { { o->data, o->hlen }, { o->buf, o->len } };
        rc = fi_sendv(F.ep, iov, NULL, 2, F.addr[o->peer], o);
        break;
    }
    case OP_TSEND:
        desc = o->mr ? fi_mr_desc(o->mr) : local_desc(o, o->buf, o->len, FI_SEND);
        rc = fi_tsend(F.ep, o->buf, o->len, desc, F.addr[o->peer], o->tag, o);
        break;
    case OP_TRECV:
        desc = o->mr ? fi_mr_desc(o->mr) : local_desc(o, o->buf, o->len, FI_RECV);
        rc = fi_trecv(F.ep, o->buf, o->len, desc, F.addr[o->peer], o->tag, 0, o);
        break;
    case OP_READ:
        desc = o->mr ? fi_mr_desc(o->mr) : local_desc(o, o->buf, o->len, FI_READ);
        rc = fi_read(F.ep, o->buf, o->len, desc, F.addr[o->peer], o->raddr, o->key, o);
        break;
    case OP_WRITE: {
        /* delivery complete: the completion says the data is in the
         * target's memory (one-sided flush = remote completion); tcp
         * acknowledges such writes once it has placed them */
        desc = o->mr ? fi_mr_desc(o->mr) : local_desc(o, o->buf, o->len, FI_WRITE);
        struct iovec iov = { o->buf, o->len };
        struct fi_rma_iov riov = { o->raddr, o->len, o->key };
        struct fi_msg_rma m = { .msg_iov = &iov, .desc = &desc, .iov_count = 1,
                                .addr = F.addr[o->peer], .rma_iov = &riov,
                                .rma_iov_count = 1, .context = o };
        rc = fi_writemsg(F.ep, &m, FI_DELIVERY_COMPLETE | FI_COMPLETION);
        break;
    }
    default:
        rc = -FI_EINVAL;
    }
    if (rc == 0)
        F.inflight++;
    else if (rc != -FI_EAGAIN)
        fail("posting an operation", rc);
    return rc;
}

static void flush_peer(int peer);

/* What an op is, for the one message a failed one gets. */
static const char *op_name(enum op_kind k)
{
    switch (k) {
    case OP_RECV_MSG: return "a message receive";
    case OP_SEND_MSG: case OP_SENDV: case OP_INJECT: return "a message send";
    case OP_BUNDLE: return "a bundle of messages";
    case OP_TSEND: return "a tagged send";
    case OP_TRECV: return "a tagged receive";
    case OP_READ: return "an RDMA read";
    case OP_WRITE: return "an RDMA write";
    }
    return "an operation";
}

/* A message send to a peer (counted in F.sending until it completes). */
static inline int is_msg_send(const struct op *o)
{
    return o->peer >= 0 &&
           (o->kind == OP_SEND_MSG || o->kind == OP_SENDV || o->kind == OP_BUNDLE);
}

/* Posts o now, or queues it behind those already waiting (order kept).
 * Messages staged for o's peer go first: a bundle never overtakes, nor
 * is overtaken by, other traffic to its peer. */
static void submit(struct op *o)
{
    /* A read carries nothing of ours to the peer but its request: the
     * staged messages (the READING of this very rendezvous, FINs) may
     * follow it, so that a round's worth of them leaves as one bundle. */
    if (o->peer >= 0 && F.stage && F.stage[o->peer] && o->kind != OP_BUNDLE &&
        o->kind != OP_READ)
        flush_peer(o->peer);
    /* A message send queues behind every earlier one to that peer: its
     * completion covers the injected ones before it (ofi_drain). */
    if (o->peer >= 0 && F.injected && (o->kind == OP_SEND_MSG || o->kind == OP_BUNDLE))
        F.injected[o->peer] = 0;
    if (is_msg_send(o))
        F.sending[o->peer]++;
    o->next = NULL;
    if (!F.backlog && post(o) == 0)
        return;
    if (F.backlog_tail)
        F.backlog_tail->next = o;
    else
        F.backlog = o;
    F.backlog_tail = o;
}

static int drain_backlog(void)
{
    int n = 0;
    struct op *o;
    while ((o = F.backlog) != NULL && post(o) == 0) {
        F.backlog = o->next;
        if (!F.backlog)
            F.backlog_tail = NULL;
        n++;
    }
    return n;
}

static struct op *op_new(enum op_kind kind, int peer, size_t extra)
{
    struct op *o = malloc(sizeof *o + extra);
    if (!o)
        smap_fatal("inter-node transport: out of memory for an operation of %zu bytes", extra);
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->peer = peer;
    return o;
}

static void op_free(struct op *o)
{
    if (o->mr)
        fi_close(&o->mr->fid);
    free(o);
}

/* o's caller learns it is done (the done upcall, or src/rma's function). */
static void done_upcall(struct op *o)
{
    void *cookie = o->cookie;
    void (*fn)(void *) = o->fn;
    op_free(o);
    if (fn)
        fn(cookie);
    else
        F.up.done(cookie);
}

/* Hands every record of a received transport message to p2p. */
static void deliver_frames(const unsigned char *p, size_t n)
{
    size_t off = 0;
    while (off < n) {
        uint32_t rlen;
        size_t next = smap_net_frame_next(p, n, off, &rlen);
        /* The sender's rank travels in the caller's header: p2p reads it.
         * An empty record is a drain sentinel (ofi_drain): nothing to hand. */
        if (rlen)
            F.up.incoming(-1, p + off + FRAME, rlen);
        off = next;
    }
}

static void completed(struct op *o)
{
    F.inflight--;
    if (is_msg_send(o))
        F.sending[o->peer]--;
    switch (o->kind) {
    case OP_RECV_MSG: {
        deliver_frames(o->data, o->len);
        o->len = F.msg_cap;
        if (post(o) != 0)
            submit(o);
        break;
    }
    case OP_BUNDLE: {
        /* the copies are on their way: their senders may go on */
        int n = o->ncookies;
        void *c[BUNDLE_MAX];
        memcpy(c, o->cookies, (size_t)n * sizeof *c);
        if (!F.spare && !o->mr)
            F.spare = o;
        else
            op_free(o);
        for (int i = 0; i < n; i++)
            if (c[i])   /* NULL: a plain message (ofi_send_msg in progress) */
                F.up.done(c[i]);
        break;
    }
    case OP_SEND_MSG:
        if (!o->cookie) {
            op_free(o);
            break;
        }
        /* a copied send_msgv, whose caller waits for done */
        done_upcall(o);
        break;
    default:
        done_upcall(o);
    }
}

/* Posts the bundle staged for `peer`. */
static void flush_peer(int peer)
{
    struct op *o = F.stage[peer];
    F.stage[peer] = NULL;
    for (int i = 0; i < F.ndirty; i++)
        if (F.dirty[i] == peer) {
            F.dirty[i] = F.dirty[--F.ndirty];
            break;
        }
    submit(o);
}

static int flush_all(void)
{
    int n = F.ndirty;
    while (F.ndirty)
        flush_peer(F.dirty[F.ndirty - 1]);
    return n;
}

/* Copies one message into `dst`'s bundle (coalescing): the bundle goes out
 * at the next progress round, when full, or before any other operation to
 * `dst`, and done(cookie) follows its completion.  A stream of small sends
 * then costs one socket write, one receive and one completion per bundle
 * instead of per message (bench/bw between emulated hosts). */
static void stage_msg(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen,
                      void *cookie)
{
    size_t span = smap_net_frame_span(hlen + dlen);
    struct op *o = F.stage[dst];
    if (o && (o->len + span > F.msg_cap || o->ncookies == BUNDLE_MAX)) {
        flush_peer(dst);
        o = NULL;
    }
    if (!o) {
        size_t cap = (F.msg_cap + 7) & ~(size_t)7;
        if ((o = F.spare) != NULL) {
            F.spare = NULL;
            o->peer = dst;
            o->len = 0;
            o->ncookies = 0;
        } else {
            o = op_new(OP_BUNDLE, dst, cap + BUNDLE_MAX * sizeof(void *));
        }
        o->cookies = (void **)(void *)(o->data + cap);
        F.stage[dst] = o;
        F.dirty[F.ndirty++] = dst;
    }
    o->len += smap_net_frame_record(o->data + o->len, hdr, hlen, data, dlen);
    o->cookies[o->ncookies++] = cookie;
}

static int ofi_progress(void)
{
    struct fi_cq_tagged_entry e[CQ_BATCH];
    int n = 0;
    if (F.ndirty)
        flush_all();
    F.in_progress = 1;
    for (;;) {
        ssize_t k = fi_cq_read(F.cq, e, CQ_BATCH);
        if (k == -FI_EAGAIN)
            break;
        if (k == -FI_EAVAIL) {
            struct fi_cq_err_entry ee;
            memset(&ee, 0, sizeof ee);
            fi_cq_readerr(F.cq, &ee, 0);
            const struct op *bad = ee.op_context;
            smap_fatal("inter-node transport (libfabric %s): %s %s rank %d failed: %s (%s)",
                       smap_lib->net->provider, bad ? op_name(bad->kind) : "an operation",
                       bad && bad->kind == OP_RECV_MSG ? "from" : "with",
                       bad ? bad->peer : -1, fi_strerror(ee.err),
                       fi_cq_strerror(F.cq, ee.prov_errno, ee.err_data, NULL, 0));
        }
        if (k < 0)
            fail("fi_cq_read", k);
        for (ssize_t i = 0; i < k; i++) {
            struct op *o = e[i].op_context;
            if (o->kind == OP_RECV_MSG)
                o->len = e[i].len;
            completed(o);
        }
        n += (int)k;
        F.wait_stale = 0;
        if (k < CQ_BATCH)
            break;
    }
    F.in_progress = 0;
    /* what the upcalls answered (READING, FIN, ACK...) leaves now */
    if (F.ndirty)
        flush_all();
    if (F.backlog)
        n += drain_backlog();
    return n;
}

/* Sleeping is allowed only when fi_trywait says no completion is hidden
 * in the provider (software providers progress inside fi_cq_read and
 * fi_trywait: an fd poll alone could miss data already on a socket). */
static int ofi_trywait(void)
{
    if (F.ndirty) {
        flush_all();
        return -1;
    }
    if (F.wait_fd < 0)
        return -2;
    struct fid *fids[1] = { &F.cq->fid };
    int rc = fi_trywait(F.fabric, fids, 1);
    if (rc == -FI_EAGAIN)
        return -1;
    if (rc != FI_SUCCESS)
        return -2;
    /* Some providers never reset their CQ's signal (net in libfabric
     * 1.17: fi_trywait says "nothing pending" while the fd stays readable
     * for good), so a poll on it returns at once and the rank spins at a
     * third of a core.  A readable fd right after a successful trywait,
     * twice in a row with no completion in between, marks it stale: the
     * wait then naps its bounded sleep instead (as without a wait object).
     * A completion that really arrived in between costs one more round. */
    struct pollfd p = { .fd = F.wait_fd, .events = POLLIN };
    if (poll(&p, 1, 0) == 0) {
        F.wait_stale = 0;
        return F.wait_fd;
    }
    return ++F.wait_stale >= 2 ? -2 : -1;
}

static int ofi_busy(void)
{
    return F.backlog != NULL || F.inflight > F.nrecv || F.ndirty > 0;
}

/* MPI_Finalize's drain: an injected message has no completion, and one
 * queued in the provider behind a partly written send leaves only at a
 * later progress call of ours, which a rank in the launcher's barrier
 * never makes.  One empty record (a sentinel, skipped by the receiver) to
 * each peer injected to since our last completion-bearing send: the
 * provider writes a peer's messages in order (FI_ORDER_SAS, no send
 * staging: no_send_staging, provider.c), so the sentinel's completion, which busy()
 * then waits for, means the injected ones before it are in the kernel. */
static void ofi_drain(void)
{
    /* peers of other jobs were drained at their MPI_Comm_disconnect and
     * may be gone now */
    for (int peer = 0; peer < smap_lib->job->size; peer++) {
        if (!F.injected[peer])
            continue;
        struct op *o = op_new(OP_SEND_MSG, peer, FRAME);
        smap_net_frame_put(o->data, 0);
        o->len = FRAME;
        submit(o);
    }
}

/* Small messages are injected: no completion, no buffer kept.  Returns 1
 * when sent; 0 when too large, or behind queued operations, or the
 * provider is out of room (the caller then posts it as an operation). */
static int try_inject(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen)
{
    size_t len = FRAME + hlen + dlen;
    unsigned char tmp[256];
    if (len > F.inject_max || len > sizeof tmp || F.backlog)
        return 0;
    (void)smap_net_frame_record(tmp, hdr, hlen, data, dlen);
    ssize_t rc = fi_inject(F.ep, tmp, len, F.addr[dst]);
    if (rc == 0) {
        F.injected[dst] = 1;
        return 1;
    }
    if (rc != -FI_EAGAIN)
        fail("fi_inject", rc);
    return 0;
}

static void ofi_send_msg(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen)
{
    size_t len = FRAME + hlen + dlen;
    /* Sent from an upcall (the answers of p2p's protocols to what this
     * round delivered: READING and the read of each matched rendezvous,
     * FINs of completed reads, ACKs): staged, the round's messages to a
     * peer leave as one bundle when the round ends (ofi_progress), one
     * socket write instead of one each; a window of 64 rendezvous
     * receives sent 3 small writes per message (READING, read request,
     * FIN). */
    if (F.in_progress && hlen + dlen <= F.coalesce) {
        stage_msg(dst, hdr, hlen, data, dlen, NULL);
        return;
    }
    if (F.stage[dst])
        flush_peer(dst);
    if (try_inject(dst, hdr, hlen, data, dlen))
        return;
    struct op *o = op_new(OP_SEND_MSG, dst, len);
    (void)smap_net_frame_record(o->data, hdr, hlen, data, dlen);
    o->len = len;
    submit(o);
}

/* RTS and READING of a rendezvous: the peer answers them through
 * transfers that move only while we poll (manual progress), so waiting in
 * the bundle until our next progress round delays nothing, and a window
 * of rendezvous sends (or of receives matching queued RTSs) then costs
 * one socket write instead of one per message.  Under automatic progress
 * (or coalescing off) it leaves at once. */
static void ofi_send_lazy(int dst, const void *hdr, size_t hlen)
{
    if (smap_lib->net->manual_progress && hlen <= F.coalesce) {
        stage_msg(dst, hdr, hlen, NULL, 0, NULL);
        return;
    }
    ofi_send_msg(dst, hdr, hlen, NULL, 0);
}

/* A message whose payload is sent from the caller's buffer, which stays
 * the caller's until done(cookie): no copy of it.  Providers that want
 * local registrations (FI_MR_LOCAL) or take one iovec get a copy, done
 * likewise at its completion. */
static int ofi_send_msgv(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen,
                         void *cookie, int flags)
{
    struct op *o;
    /* A blocking send's small message to an idle peer is injected: it
     * would leave alone anyway (its wait flushes the bundle at once), and
     * so it does without the bundle's copy, the progress round and the
     * completion (a ping-pong's reply, 0-72 B over net).  A window of
     * nonblocking sends is bundled as below: one write for all. */
    if ((flags & SMAP_NET_NOW) && !F.in_progress && !F.stage[dst] && !F.sending[dst] &&
        try_inject(dst, hdr, hlen, data, dlen))
        return 1;
    /* A message of LONE_MIN bytes or more with nothing staged or in flight
     * to its peer (a ping-pong's, a window's first) leaves at once from
     * the caller's buffer: a bundle alone would only add the copy (16 KiB
     * ping-pong over net 0.5-1 us more); the rest of a window (the first
     * send not completed yet) is staged behind it. */
    if (hlen + dlen <= F.coalesce &&
        (dlen < LONE_MIN || F.stage[dst] || F.sending[dst] > 0)) {
        stage_msg(dst, hdr, hlen, data, dlen, cookie);
        return 0;
    }
    if ((F.mr_mode & FI_MR_LOCAL) || F.iov_limit < 2) {
        o = op_new(OP_SEND_MSG, dst, FRAME + hlen + dlen);
        (void)smap_net_frame_record(o->data, hdr, hlen, data, dlen);
        o->len = FRAME + hlen + dlen;
    } else {
        o = op_new(OP_SENDV, dst, FRAME + hlen);
        smap_net_frame_put(o->data, hlen + dlen);
        memcpy(o->data + FRAME, hdr, hlen);
        o->hlen = FRAME + hlen;
        o->buf = (void *)(uintptr_t)data;
        o->len = dlen;
    }
    o->cookie = cookie;
    submit(o);
    return 0;
}

static void ofi_tsend(int dst, const void *buf, size_t len, uint64_t tag, void *cookie)
{
    struct op *o = op_new(OP_TSEND, dst, 0);
    o->buf = (void *)(uintptr_t)buf;
    o->len = len;
    o->tag = tag;
    o->cookie = cookie;
    submit(o);
}

static void ofi_trecv(int src, void *buf, size_t len, uint64_t tag, void *cookie)
{
    struct op *o = op_new(OP_TRECV, src, 0);
    o->buf = buf;
    o->len = len;
    o->tag = tag;
    o->cookie = cookie;
    submit(o);
}

static void ofi_read(int src, void *buf, size_t len, uint64_t raddr, uint64_t key, void *cookie)
{
    struct op *o = op_new(OP_READ, src, 0);
    o->buf = buf;
    o->len = len;
    o->raddr = raddr;
    o->key = key;
    o->cookie = cookie;
    submit(o);
}

static void ofi_rma_xfer(int write, int peer, void *buf, size_t len, uint64_t raddr,
                         uint64_t key, void (*fn)(void *), void *cookie)
{
    struct op *o = op_new(write ? OP_WRITE : OP_READ, peer, 0);
    o->buf = buf;
    o->len = len;
    o->raddr = raddr;
    o->key = key;
    o->fn = fn;
    o->cookie = cookie;
    submit(o);
}

static void mr_expose(const void *buf, size_t len, uint64_t access, uint64_t *raddr,
                      uint64_t *key, void **handle)
{
    struct fid_mr *mr;
    int rc = fi_mr_reg(F.domain, buf, len, access, 0, F.next_key++, 0, &mr, NULL);
    if (rc)
        fail("fi_mr_reg (exposing a send buffer)", rc);
    if (F.mr_mode & FI_MR_ENDPOINT) {
        if ((rc = fi_mr_bind(mr, &F.ep->fid, 0)) || (rc = fi_mr_enable(mr)))
            fail("binding a registration to the endpoint", rc);
    }
    *key = fi_mr_key(mr);
    if (*key == FI_KEY_NOTAVAIL)
        fail("fi_mr_key", -FI_ENOSYS);
    *raddr = (F.mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : 0;
    *handle = mr;
}

static void ofi_expose(const void *buf, size_t len, uint64_t *raddr, uint64_t *key, void **handle)
{
    mr_expose(buf, len, FI_REMOTE_READ, raddr, key, handle);
}

static void ofi_expose_rw(void *buf, size_t len, uint64_t *raddr, uint64_t *key, void **handle)
{
    mr_expose(buf, len, FI_REMOTE_READ | FI_REMOTE_WRITE, raddr, key, handle);
}

static void ofi_unexpose(void *handle)
{
    fi_close(&((struct fid_mr *)handle)->fid);
}

/* ---- opening: endpoint, address exchange (the provider: provider.c) ---- */



#define ADDR_MAX 256

/* The per-peer arrays for n peers (new entries unreachable, empty). */
static int grow_peers(int n)
{
    if (n <= F.npeers)
        return 0;
    fi_addr_t *a = realloc(F.addr, (size_t)n * sizeof *a);
    if (a)
        F.addr = a;
    struct op **st = realloc(F.stage, (size_t)n * sizeof *st);
    if (st)
        F.stage = st;
    int *d = realloc(F.dirty, (size_t)n * sizeof *d);
    if (d)
        F.dirty = d;
    unsigned char *inj = realloc(F.injected, (size_t)n);
    if (inj)
        F.injected = inj;
    int *sd = realloc(F.sending, (size_t)n * sizeof *sd);
    if (sd)
        F.sending = sd;
    if (!a || !st || !d || !inj || !sd)
        return -1;
    for (int i = F.npeers; i < n; i++) {
        F.addr[i] = FI_ADDR_NOTAVAIL;
        F.stage[i] = NULL;
        F.injected[i] = 0;
        F.sending[i] = 0;
    }
    F.npeers = n;
    return 0;
}

static int ofi_getname(void *buf, size_t *len)
{
    int rc = fi_getname(&F.ep->fid, buf, len);
    if (rc)
        smap_log(SMAP_LOG_ERROR, "fi_getname: %s (%zu bytes)", fi_strerror(-rc), *len);
    return rc == 0 ? 0 : -1;
}

/* Peers of another job (src/spawn): their addresses join the AV. */
static int ofi_add_peers(int first, int n, const void *addrs, size_t alen, char *err,
                         size_t errlen)
{
    (void)alen;   /* the provider knows its address format */
    if (first < F.npeers || grow_peers(first + n) != 0) {
        snprintf(err, errlen, "no room for %d more peers at %d", n, first);
        return -1;
    }
    int k = fi_av_insert(F.av, addrs, (size_t)n, F.addr + first, 0, NULL);
    if (k != n) {
        snprintf(err, errlen, "fi_av_insert took %d of %d addresses of the other job", k, n);
        return -1;
    }
    return 0;
}

static int exchange_addresses(char *err, size_t errlen)
{
    unsigned char me[ADDR_MAX];
    size_t alen = sizeof me;
    int rc = fi_getname(&F.ep->fid, me, &alen);
    if (rc) {
        snprintf(err, errlen, "fi_getname: %s", fi_strerror(-rc));
        return -1;
    }
    char key[48], val[2 * ADDR_MAX + 1];
    smap_net_hex(val, me, alen);
    snprintf(key, sizeof key, "smap.net.%d", smap_lib->job->rank);
    if (smap_boot_put(key, val) || smap_boot_fence()) {
        snprintf(err, errlen, "could not exchange the endpoint addresses through PMI");
        return -1;
    }
    int n = smap_lib->job->size;
    unsigned char *all = calloc((size_t)n, alen);
    if (!all || !F.addr) {
        free(all);
        snprintf(err, errlen, "out of memory for %d endpoint addresses", n);
        return -1;
    }
    for (int r = 0; r < n; r++) {
        snprintf(key, sizeof key, "smap.net.%d", r);
        if (r == smap_lib->job->rank) {
            memcpy(all + (size_t)r * alen, me, alen);
            continue;
        }
        if (smap_boot_get(key, val, sizeof val) != 0 ||
            smap_net_unhex(all + (size_t)r * alen, alen, val) != alen) {
            snprintf(err, errlen, "rank %d's endpoint address is missing or malformed", r);
            free(all);
            return -1;
        }
    }
    int k = fi_av_insert(F.av, all, (size_t)n, F.addr, 0, NULL);
    free(all);
    if (k != n) {
        snprintf(err, errlen, "fi_av_insert took %d of %d addresses", k, n);
        return -1;
    }
    return 0;
}

#define TRY(call, what)                                                             \
    do {                                                                            \
        int rc_ = (call);                                                           \
        if (rc_) {                                                                  \
            snprintf(err, errlen, "%s: %s (provider %s)", what, fi_strerror(-rc_),  \
                     smap_lib->net->provider);                                     \
            return -1;                                                              \
        }                                                                           \
    } while (0)

/* A completion queue with a file descriptor to sleep on (DESIGN D7): a
 * blocked rank of an oversubscribed node then sleeps until the network
 * has something for it.  Providers without one get a CQ without a wait
 * object (F.cq stays NULL here) and waits nap instead. */
static void open_cq(void)
{
    struct fi_cq_attr cq = { .format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_FD };
    if (!smap_lib->tun->net_sleep_max || fi_cq_open(F.domain, &cq, &F.cq, NULL) != 0) {
        F.cq = NULL;
        return;
    }
    int fd = -1;
    if (fi_control(&F.cq->fid, FI_GETWAIT, &fd) != 0 || fd < 0) {
        fi_close(&F.cq->fid);
        F.cq = NULL;
        return;
    }
    F.wait_fd = fd;
}

static int ofi_open(const struct smap_net_upcalls *up, char *err, size_t errlen)
{
    struct smap_net *net = smap_lib->net;
    int nranks = smap_lib->job->size;
    memset(&F, 0, sizeof F);
    F.wait_fd = -1;
    F.up = *up;
    smap_ofi_prepare_env(WIRE_HDR);
    /* writes and reads for one-sided windows (SMAP_RMA_NET_RMA), reads for
     * the rendezvous (SMAP_NET_RMA), else messages alone; libfabric
     * initialises at the first fi_getinfo, without its kallsyms probe where
     * no RDMA device can use the answer (net/kallsyms.c) */
    int top = smap_lib->tun->rma_net_rma ? 2 : smap_lib->tun->net_rma ? 1 : 0, level;
    int skipping = smap_lib->kallsyms_skip(1);
    struct fi_info *info = smap_ofi_choose(top, &level, err, errlen);
    int refused = smap_lib->kallsyms_skip(0);
    if (skipping)
        smap_log(SMAP_LOG_INFO, "libfabric initialised without reading /proc/kallsyms (%d "
                 "opens refused: no device in %s; SMAP_NET_OFI_SKIP_KALLSYMS=0 lets it read)",
                 refused, SMAP_NET_IB_SYSFS);
    if (!info)
        return -1;
    net->rma = level >= 1 && smap_lib->tun->net_rma;
    net->rma_rw = level == 2;
    F.info = info;
    snprintf(net->provider, sizeof net->provider, "%s", info->fabric_attr->prov_name);
    size_t eager = smap_ofi_eager_wanted(net->provider);
    F.mr_mode = info->domain_attr->mr_mode;
    F.next_key = 1;
    F.inject_max = info->tx_attr->inject_size;
    F.iov_limit = info->tx_attr->iov_limit;
    net->manual_progress = info->domain_attr->data_progress != FI_PROGRESS_AUTO;
    net->ordered = (info->tx_attr->msg_order & FI_ORDER_SAS) != 0;
    size_t max_msg = info->ep_attr->max_msg_size;
    if (eager + WIRE_HDR > max_msg)
        eager = max_msg > WIRE_HDR ? max_msg - WIRE_HDR : 0;
    net->eager_max = eager;
    /* Control traffic (one-sided requests, src/rma) needs room even when
     * the eager limit is tiny: receive buffers hold at least this much. */
    size_t room = eager > SMAP_NET_ROOM_MIN ? eager : SMAP_NET_ROOM_MIN;
    if (room + WIRE_HDR > max_msg)
        room = max_msg > WIRE_HDR ? max_msg - WIRE_HDR : 0;
    net->room = room;
    F.msg_cap = WIRE_HDR + room;
    /* coalescing: records of at most half a bundle (two fit at least) */
    size_t co = smap_ofi_coalesce_wanted(net->provider), co_max = F.msg_cap / 2 - FRAME - 8;
    if (co > co_max)
        co = co_max;
    net->coalesce = co > HDR_MAX ? co - HDR_MAX : 0;
    F.coalesce = net->coalesce ? net->coalesce + HDR_MAX : 0;
    if (grow_peers(nranks) != 0) {
        snprintf(err, errlen, "out of memory for %d peers' bundles", nranks);
        return -1;
    }
    size_t chunk = smap_ofi_chunk_wanted(net->provider);
    if (!chunk)
        chunk = 1;
    net->chunk = chunk < max_msg ? chunk : max_msg;

    TRY(fi_fabric(info->fabric_attr, &F.fabric, NULL), "fi_fabric");
    TRY(fi_domain(F.fabric, info, &F.domain, NULL), "fi_domain");
    open_cq();
    if (!F.cq) {
        struct fi_cq_attr cq = { .format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_NONE };
        TRY(fi_cq_open(F.domain, &cq, &F.cq, NULL), "fi_cq_open");
    }
    struct fi_av_attr av = { .type = FI_AV_TABLE, .count = (size_t)nranks };
    TRY(fi_av_open(F.domain, &av, &F.av, NULL), "fi_av_open");
    TRY(fi_endpoint(F.domain, info, &F.ep, NULL), "fi_endpoint");
    TRY(fi_ep_bind(F.ep, &F.av->fid, 0), "fi_ep_bind (address vector)");
    TRY(fi_ep_bind(F.ep, &F.cq->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind (completion queue)");
    TRY(fi_enable(F.ep), "fi_enable");
    F.nrecv = NRECV;
    for (int i = 0; i < F.nrecv; i++) {
        struct op *o = op_new(OP_RECV_MSG, -1, F.msg_cap);
        o->len = F.msg_cap;
        F.recvs[i] = o;
        if (post(o) != 0) {
            snprintf(err, errlen, "cannot post the receive buffers (provider %s)",
                     net->provider);
            return -1;
        }
    }
    if (!net->open_local && exchange_addresses(err, errlen))
        return -1;
    smap_log(SMAP_LOG_INFO,
             "inter-node transport: libfabric %s, eager %zu bytes, coalescing %zu, chunk %zu, "
             "%s progress%s, %s, %s, waits %s",
             net->provider, net->eager_max, net->coalesce, net->chunk,
             net->manual_progress ? "manual" : "auto", net->ordered ? ", ordered" : "",
             net->rma ? "rendezvous by RDMA read" : "rendezvous by pipelined sends",
             net->rma_rw ? "one-sided by RDMA write/read" : "one-sided by messages",
             F.wait_fd >= 0 ? "sleep on the CQ's fd" : "nap");
    return 0;
}

static void ofi_close(void)
{
    /* Outstanding message sends complete locally (they are eager). */
    while (F.ndirty || F.backlog || F.inflight > F.nrecv)
        ofi_progress();
    if (F.ep)
        fi_close(&F.ep->fid);
    /* Closing the endpoint flushed the posted receives. */
    for (int i = 0; i < F.nrecv; i++)
        if (F.recvs[i])
            op_free(F.recvs[i]);
    if (F.spare)
        op_free(F.spare);
    if (F.av)
        fi_close(&F.av->fid);
    if (F.cq)
        fi_close(&F.cq->fid);
    if (F.domain)
        fi_close(&F.domain->fid);
    if (F.fabric)
        fi_close(&F.fabric->fid);
    fi_freeinfo(F.info);
    free(F.addr);
    free(F.stage);
    free(F.dirty);
    free(F.injected);
    free(F.sending);
    memset(&F, 0, sizeof F);
    F.wait_fd = -1;
}

static const struct smap_net_ops ofi_ops = {
    .name = "ofi",
    .open = ofi_open,
    .close = ofi_close,
    .progress = ofi_progress,
    .busy = ofi_busy,
    .drain = ofi_drain,
    .trywait = ofi_trywait,
    .send_msg = ofi_send_msg,
    .send_lazy = ofi_send_lazy,
    .send_msgv = ofi_send_msgv,
    .tsend = ofi_tsend,
    .trecv = ofi_trecv,
    .read = ofi_read,
    .expose = ofi_expose,
    .unexpose = ofi_unexpose,
    .rma_xfer = ofi_rma_xfer,
    .expose_rw = ofi_expose_rw,
    .getname = ofi_getname,
    .add_peers = ofi_add_peers,
};

/* The plugin's one export (net/engine.h). */
SMAP_NET_ENGINE_EXPORT const struct smap_net_ops *
smap_net_engine_entry(const struct smap_net_lib *lib, char *err, size_t errlen)
{
    if (smap_net_engine_accept(lib, err, errlen) != 0)
        return NULL;
    return &ofi_ops;
}
