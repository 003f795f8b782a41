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

/* A peer's endpoint failed: its rank died, its host went away, or it
 * closed its endpoints (MPI_Finalize, forced: a peer past the job's last
 * barrier may still be polling here).  Only noted: what was under way
 * with that peer fails with the status (reap says so), and so does any
 * later use of the endpoint (ep_of); a rank that died stops the job
 * through the launcher anyway. */
static void ep_error(void *arg, ucp_ep_h ep, ucs_status_t st)
{
    (void)ep;
    int rank = (int)(intptr_t)arg;
    U.ep_err[rank] = st;
    if (!U.closing)
        smap_log(SMAP_LOG_INFO, "inter-node transport (UCX): the connection to rank %d "
                                "failed: %s", rank, ucs_status_string(st));
}

SMAP_HOT ucp_ep_h ucx_ep_of(int rank)
{
    if (SMAP_UNLIKELY(U.ep_err[rank] != UCS_OK))
        smap_fatal("inter-node transport (UCX): the connection to rank %d failed: %s (that "
                   "rank or its host is gone)", rank, ucs_status_string(U.ep_err[rank]));
    if (U.ep[rank])
        return U.ep[rank];
    ucp_ep_params_t p = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER,
        .address = U.addr[rank],
        .err_mode = UCP_ERR_HANDLING_MODE_PEER,
        .err_handler = { .cb = ep_error, .arg = (void *)(intptr_t)rank },
    };
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

/* Hands on what completed: messages in the ring's order, then the other
 * operations.  Upcalls may send (staying out of UCP's callbacks). */
SMAP_HOT static int reap(void)
{
    int n = 0;
    if (U.kreq.done) {
        ucx_key_request();
        n++;
    }
    while (U.nposted && U.ring[U.head].done) {
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
        s->req = NULL;
        s->done = 0;
        U.nposted--;
        U.head = (U.head + 1) % NRECV;
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
    int n = (int)ucp_worker_progress(U.worker);
    return reap() + (n > 0);
}

static int ucx_busy(void)
{
    return U.inflight > 0 || U.done_head != NULL;
}

/* MPI_Finalize's drain: a send UCP completed at once may still sit in a
 * transport's buffer (tcp: a socket that was full), leaving only at later
 * progress calls of ours; the flush completes once every operation of the
 * worker has left (busy() waits for it). */
static void ucx_drain(void)
{
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
    if (U.done_head || (U.nposted && U.ring[U.head].done) || U.kreq.done)
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

/* A copied message: the caller's buffers are free on return. */
SMAP_HOT static void ucx_send_msg(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen)
{
    size_t len = hlen + dlen;
    check_len(hlen, dlen);
    if (len <= SEND_NOW_MAX && send_now(dst, hdr, hlen, data, dlen))
        return;
    struct uop *o = ucx_uop_new(U_SEND, dst, len);
    memcpy(o->data, hdr, hlen);
    if (dlen)
        memcpy(o->data + hlen, data, dlen);
    ucx_send_uop(o, dst, o->data, len, ucp_dt_make_contig(1), msg_tag());
}

/* UCP sends each message at once (no bundles here): a lazy one too. */
static void ucx_send_lazy(int dst, const void *hdr, size_t hlen)
{
    ucx_send_msg(dst, hdr, hlen, NULL, 0);
}

/* The payload leaves from the caller's buffer (an iovec with the copied
 * header), done(cookie) once UCP is through with it; 1 when UCP completed
 * it at once (then no upcall). */
static int ucx_send_msgv(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen,
                         void *cookie, int flags)
{
    (void)flags;
    check_len(hlen, dlen);
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

static void sizes(struct smap_net *net)
{
    const struct smap_tunables *t = smap_lib->tun;
    net->eager_max = t->net_eager_limit;
    net->room = net->eager_max > SMAP_NET_ROOM_MIN ? net->eager_max : SMAP_NET_ROOM_MIN;
    net->chunk = t->net_chunk ? t->net_chunk : 1;
    net->coalesce = 0;
    /* rendezvous by ucp_get where UCX reads by RDMA; over sockets alone
     * pipelined tagged sends, unless SMAP_NET_RMA was set */
    const char *want = getenv("SMAP_NET_RMA");
    net->rma = t->net_rma && ((want && *want) || !sockets_only());
    net->rma_rw = t->rma_net_rma;
    /* data moves only inside ucp_worker_progress (no progress thread) */
    net->manual_progress = 1;
    net->ordered = 1;   /* the ring's order (top of this file) */
    U.msg_cap = SMAP_NET_HDR_MAX + net->room;
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
    if (!U.addr || !U.ep || !U.ep_err) {
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
             "inter-node transport: %s (transports: UCX_TLS=%s), eager %zu bytes, chunk %zu, "
             "%s, %s, waits %s",
             net->provider, getenv("UCX_TLS") ? getenv("UCX_TLS") : "(UCX's choice)",
             net->eager_max, net->chunk,
             net->rma ? "rendezvous by ucp_get" : "rendezvous by pipelined tagged sends",
             net->rma_rw ? "one-sided by ucp_put/ucp_get" : "one-sided by messages",
             U.efd >= 0 ? "sleep on the worker's fd" : "nap");
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
        while (U.done_head || U.inflight)
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
         * past the job's last barrier; everything was drained before. */
        ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                  .flags = UCP_EP_CLOSE_FLAG_FORCE };
        for (int r = 0; U.ep && r < smap_lib->job->size; r++)
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
