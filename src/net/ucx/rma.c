/* The UCX engine's one-sided part: exposed buffers, the key exchange,
 * reads and writes (net.h's read, expose, expose_to, expose_rw, unexpose,
 * rma_xfer), over ucp_get_nbx/ucp_put_nbx.
 *
 * Reads of exposed buffers (`rma`: p2p's rendezvous by read) and
 * one-sided windows (`rma_rw`) name a remote buffer by a 64-bit key, and
 * a UCP rkey is a packed blob of tens to hundreds of bytes, so the engine
 * has its own key exchange: expose maps the buffer (ucp_mem_map), packs
 * its rkey and names it by a key id of this rank; a reader's first
 * transfer with (rank, key id) asks that rank for the blob (a tagged
 * message under KEY_BIT, answered from the owner's progress: ucx.c's reap
 * calls ucx_key_request), unpacks it on its endpoint and keeps it in a
 * cache; transfers wait for it in order.  A write completes once a flush
 * of the endpoint after it has (remote completion, which MPI's flush
 * needs; ucp_put_nbx's own completion means only that the source buffer
 * may be reused). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "boot/boot.h"
#include "net/ucx/internal.h"

static void kreq_cb(void *req, ucs_status_t st, const ucp_tag_recv_info_t *info, void *user)
{
    (void)req;
    (void)info;
    (void)user;
    U.kreq.status = st;
    U.kreq.done = 1;
}

/* ---- exposed buffers, the key exchange, reads and writes ------------------ */

static SMAP_COLD _Noreturn void oom(const char *what)
{
    smap_fatal("inter-node transport (UCX): out of memory for %s", what);
}

/* Maps [buf, buf+len) for peers' access `prot` (UCP_MEM_MAP_PROT_*) and
 * packs its rkey for the key exchange. */
static void expose_prot(const void *buf, size_t len, unsigned prot, uint64_t *raddr,
                        uint64_t *key, void **handle)
{
    struct xreg *x = calloc(1, sizeof *x);
    if (!x)
        oom("an exposed buffer");
    if (len) {
        ucp_mem_map_params_t mp = {
            .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                          UCP_MEM_MAP_PARAM_FIELD_PROT,
            .address = (void *)(uintptr_t)buf,
            .length = len,
            .prot = prot,
        };
        ucs_status_t st = ucp_mem_map(U.ctx, &mp, &x->memh);
        if (st != UCS_OK)
            ucx_fail("ucp_mem_map (exposing a buffer)", st);
        if ((st = ucp_rkey_pack(U.ctx, x->memh, &x->blob, &x->bloblen)) != UCS_OK)
            ucx_fail("ucp_rkey_pack", st);
        if (x->bloblen > RKEY_MAX)
            smap_fatal("inter-node transport (UCX): a packed memory key of %zu bytes exceeds "
                       "the %d the key exchange carries", x->bloblen, RKEY_MAX);
    }
    if (++U.next_key >= KEY_ID_MAX)
        U.next_key = 1;   /* 2^40 exposures later: long unexposed */
    x->key = U.next_key;
    x->next = U.xregs;
    U.xregs = x;
    *raddr = (uint64_t)(uintptr_t)buf;
    *key = x->key;
    *handle = x;
}

/* p2p's rendezvous buffers: read by peers only (a send buffer may be
 * read-only memory, which a NIC cannot register for remote writes). */
void ucx_expose(const void *buf, size_t len, uint64_t *raddr, uint64_t *key,
                void **handle)
{
    expose_prot(buf, len, UCP_MEM_MAP_PROT_LOCAL_READ | UCP_MEM_MAP_PROT_REMOTE_READ, raddr,
                key, handle);
}

/* The rkey goes to dst at once, under the reply's tag: dst's first read
 * with the key finds it there (or on its way: UCP keeps it as unexpected)
 * instead of asking, one round trip less per rendezvous.  A read that
 * never comes (a cancelled send) leaves that message unexpected until
 * close drops it (drop_unread_keys). */
void ucx_expose_to(int dst, const void *buf, size_t len, uint64_t *raddr, uint64_t *key,
                   void **handle)
{
    ucx_expose(buf, len, raddr, key, handle);
    struct xreg *x = *handle;
    x->key |= KEY_PUSHED;
    *key = x->key;
    if (!len)   /* an empty read completes without its rkey */
        return;
    struct uop *o = ucx_uop_new(U_SEND, dst, x->bloblen);
    memcpy(o->data, x->blob, x->bloblen);
    uint64_t tag = KEY_BIT | REP_BIT | (uint64_t)(uint32_t)smap_lib->job->rank << 40 | x->key;
    ucx_send_uop(o, dst, o->data, x->bloblen, ucp_dt_make_contig(1), tag);
    U.npushed++;
}

/* Windows: read and written by peers. */
void ucx_expose_rw(void *buf, size_t len, uint64_t *raddr, uint64_t *key, void **handle)
{
    expose_prot(buf, len,
                UCP_MEM_MAP_PROT_LOCAL_READ | UCP_MEM_MAP_PROT_LOCAL_WRITE |
                    UCP_MEM_MAP_PROT_REMOTE_READ | UCP_MEM_MAP_PROT_REMOTE_WRITE,
                raddr, key, handle);
}

static void xreg_free(struct xreg *x)
{
    if (x->blob)
        ucp_rkey_buffer_release(x->blob);
    if (x->memh)
        ucp_mem_unmap(U.ctx, x->memh);
    free(x);
}

void ucx_unexpose(void *handle)
{
    struct xreg **pp = &U.xregs;
    while (*pp && *pp != handle)
        pp = &(*pp)->next;
    if (!*pp)
        smap_fatal("inter-node transport (UCX): unexposing a buffer that is not exposed");
    struct xreg *x = *pp;
    *pp = x->next;
    xreg_free(x);
}

/* Posts the receive of the next key request. */
void ucx_post_kreq(void)
{
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_DATATYPE |
                        UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = kreq_cb,
        .datatype = ucp_dt_make_contig(1),
    };
    U.kreq.done = 0;
    ucs_status_ptr_t r =
        ucp_tag_recv_nbx(U.worker, U.kreq.msg, sizeof U.kreq.msg, KEY_BIT, ~(uint64_t)0, &p);
    if (UCS_PTR_IS_ERR(r))
        ucx_fail("posting the key requests' receive", UCS_PTR_STATUS(r));
    U.kreq.req = r;
}

/* A peer asks for one of our keys: the packed rkey back (empty when the
 * key is not exposed: the reader says so), under its reply tag. */
void ucx_key_request(void)
{
    ucp_request_free(U.kreq.req);
    U.kreq.req = NULL;
    if (U.kreq.status != UCS_OK)
        smap_fatal("inter-node transport (UCX): receiving a key request failed: %s",
                   ucs_status_string(U.kreq.status));
    int from = (int)U.kreq.msg[0];
    uint64_t key = U.kreq.msg[1];
    ucx_post_kreq();
    if (from < 0 || from >= smap_lib->job->size || key >= KEY_ID_MAX)   /* never a pushed one */
        smap_fatal("inter-node transport (UCX): a malformed key request (rank %d, key %llu)",
                   from, (unsigned long long)key);
    struct xreg *x = U.xregs;
    while (x && x->key != key)
        x = x->next;
    size_t len = x ? x->bloblen : 0;
    struct uop *o = ucx_uop_new(U_SEND, from, len);
    if (len)
        memcpy(o->data, x->blob, len);
    uint64_t tag = KEY_BIT | REP_BIT | (uint64_t)(uint32_t)smap_lib->job->rank << 40 | key;
    ucx_send_uop(o, from, o->data, len, ucp_dt_make_contig(1), tag);
}

static unsigned bucket(int peer, uint64_t key)
{
    return (unsigned)((key * 0x9e3779b97f4a7c15ull + (uint64_t)peer) >> 56) % RKEY_BUCKETS;
}

/* Drops cached rkeys no transfer uses, once more than RKEY_CACHE are kept. */
static void rkey_trim(void)
{
    if (U.nrkeys <= RKEY_CACHE)
        return;
    for (int b = 0; b < RKEY_BUCKETS; b++)
        for (struct rkey_ent **pp = &U.rkeys[b]; *pp;) {
            struct rkey_ent *e = *pp;
            if (e->rkey && !e->users) {
                *pp = e->next;
                ucp_rkey_destroy(e->rkey);
                free(e);
                U.nrkeys--;
            } else {
                pp = &e->next;
            }
        }
}

static void issue(struct rkey_ent *e, const struct pend *t);

/* The reply to our key request came: unpack it on the peer's endpoint and
 * start the transfers that waited for it, in order. */
void ucx_key_reply(struct uop *o)
{
    struct rkey_ent *e = o->ent;
    if (!o->iov[0].length)
        smap_fatal("inter-node transport (UCX): rank %d has no exposed buffer with key %llu "
                   "(unexposed before a peer's transfer)", e->peer, (unsigned long long)e->key);
    ucs_status_t st = ucp_ep_rkey_unpack(ucx_ep_of(e->peer), e->reply, &e->rkey);
    if (st != UCS_OK)
        ucx_fail("ucp_ep_rkey_unpack", st);
    free(e->reply);
    e->reply = NULL;
    while (e->wait_head) {
        struct pend *t = e->wait_head;
        e->wait_head = t->next;
        issue(e, t);
        free(t);
    }
    e->wait_tail = NULL;
}

static void keyrep_cb(void *req, ucs_status_t st, const ucp_tag_recv_info_t *info, void *user)
{
    (void)req;
    struct uop *o = user;
    o->iov[0].length = st == UCS_OK ? info->length : 0;   /* the reply's length */
    ucx_push_done(o, st);
}

/* The cache entry of (peer, key), fetching it when new. */
static struct rkey_ent *rkey_of(int peer, uint64_t key)
{
    unsigned b = bucket(peer, key);
    for (struct rkey_ent *e = U.rkeys[b]; e; e = e->next)
        if (e->peer == peer && e->key == key)
            return e;
    rkey_trim();
    struct rkey_ent *e = calloc(1, sizeof *e);
    if (!e || !(e->reply = malloc(RKEY_MAX)))
        oom("a memory key");
    e->peer = peer;
    e->key = key;
    e->next = U.rkeys[b];
    U.rkeys[b] = e;
    U.nrkeys++;
    /* the reply's receive first, then the request */
    struct uop *o = ucx_uop_new(U_KEYREP, peer, 0);
    o->ent = e;
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = keyrep_cb,
        .user_data = o,
        .datatype = ucp_dt_make_contig(1),
    };
    uint64_t tag = KEY_BIT | REP_BIT | (uint64_t)(uint32_t)peer << 40 | key;
    ucx_started(o, ucp_tag_recv_nbx(U.worker, e->reply, RKEY_MAX, tag, ~(uint64_t)0, &p),
            "ucp_tag_recv_nbx (memory key)");
    if (key & KEY_PUSHED)   /* on its way (or here already) */
        return e;
    U.nfetched++;
    struct uop *q = ucx_uop_new(U_SEND, peer, 2 * sizeof(uint64_t));
    uint64_t msg[2] = { (uint64_t)smap_lib->job->rank, key };
    memcpy(q->data, msg, sizeof msg);
    ucx_send_uop(q, peer, q->data, sizeof msg, ucp_dt_make_contig(1), KEY_BIT);
    return e;
}

static void rma_cb(void *req, ucs_status_t st, void *user)
{
    (void)req;
    ucx_push_done(user, st);
}

/* Starts transfer t with e's rkey: a read (ucp_get_nbx), or a write
 * (ucp_put_nbx) followed by a flush of the endpoint, whose completion is
 * the write's (the data is in the target's memory). */
static void issue(struct rkey_ent *e, const struct pend *t)
{
    ucp_ep_h ep = ucx_ep_of(e->peer);
    struct uop *o = ucx_uop_new(t->write ? U_PUT : U_GET, e->peer, 0);
    o->ent = e;
    e->users++;
    ++*(t->write ? &U.nputs : &U.ngets);
    if (!t->write) {
        o->fn = t->fn;
        o->cookie = t->cookie;
    }
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = rma_cb,
        .user_data = o,
    };
    if (t->write)
        ucx_started(o, ucp_put_nbx(ep, t->buf, t->len, t->raddr, e->rkey, &p), "ucp_put_nbx");
    else
        ucx_started(o, ucp_get_nbx(ep, t->buf, t->len, t->raddr, e->rkey, &p), "ucp_get_nbx");
    if (!t->write)
        return;
    struct uop *f = ucx_uop_new(U_RFLUSH, e->peer, 0);
    f->fn = t->fn;
    f->cookie = t->cookie;
    ucp_request_param_t fp = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = ucx_flush_cb,
        .user_data = f,
    };
    ucx_started(f, ucp_ep_flush_nbx(ep, &fp), "ucp_ep_flush_nbx (a write's completion)");
}

/* A transfer with (peer, key): at once when its rkey is here, else after
 * it (in order with the others waiting for it). */
static void transfer(int write, int peer, void *buf, size_t len, uint64_t raddr, uint64_t key,
                     void (*fn)(void *), void *cookie)
{
    struct pend t = { .write = write, .buf = buf, .len = len, .raddr = raddr, .fn = fn,
                      .cookie = cookie };
    if (!len) {   /* nothing to move: completes in the next round */
        struct uop *o = ucx_uop_new(U_GET, peer, 0);
        o->fn = fn;
        o->cookie = cookie;
        ucx_started(o, NULL, "an empty transfer");
        return;
    }
    struct rkey_ent *e = rkey_of(peer, key);
    if (e->rkey) {
        issue(e, &t);
        return;
    }
    struct pend *w = malloc(sizeof *w);
    if (!w)
        oom("a transfer waiting for its memory key");
    *w = t;
    w->next = NULL;
    if (e->wait_tail)
        e->wait_tail->next = w;
    else
        e->wait_head = w;
    e->wait_tail = w;
}

/* p2p's rendezvous read: done(cookie) once the data is here. */
void ucx_read(int src, void *buf, size_t len, uint64_t raddr, uint64_t key, void *cookie)
{
    transfer(0, src, buf, len, raddr, key, NULL, cookie);
}

void ucx_rma_xfer(int write, int peer, void *buf, size_t len, uint64_t raddr,
                  uint64_t key, void (*fn)(void *), void *cookie)
{
    transfer(write, peer, buf, len, raddr, key, fn, cookie);
}

/* At close: the key requests' receive (cancelled), every cached rkey
 * (before the endpoints go), every exposure left. */
void ucx_rma_close(void)
{
    if (U.kreq.req) {
        if (!U.kreq.done)
            ucp_request_cancel(U.worker, U.kreq.req);
        while (!U.kreq.done)
            ucp_worker_progress(U.worker);
        ucp_request_free(U.kreq.req);
        U.kreq.req = NULL;
    }
    if (U.ngets || U.nputs || U.nfetched || U.npushed)
        smap_log(SMAP_LOG_INFO, "inter-node transport (UCX): %ld reads (ucp_get), %ld writes "
                                "(ucp_put), %ld memory keys fetched, %ld pushed", U.ngets,
                 U.nputs, U.nfetched, U.npushed);
    for (int b = 0; b < RKEY_BUCKETS; b++)
        while (U.rkeys[b]) {
            struct rkey_ent *e = U.rkeys[b];
            U.rkeys[b] = e->next;
            if (e->rkey)
                ucp_rkey_destroy(e->rkey);
            while (e->wait_head) {
                struct pend *t = e->wait_head;
                e->wait_head = t->next;
                free(t);
            }
            free(e->reply);
            free(e);
        }
    U.nrkeys = 0;
    while (U.xregs) {
        struct xreg *x = U.xregs;
        U.xregs = x->next;
        xreg_free(x);
    }
}

/* Pushed keys no read took (a cancelled rendezvous send): received and
 * dropped, else UCX warns at ucp_worker_destroy of unmatched messages. */
void ucx_drop_unread_keys(void)
{
    static unsigned char scratch[RKEY_MAX];
    ucp_tag_recv_info_t info;
    ucp_tag_message_h m;
    while ((m = ucp_tag_probe_nb(U.worker, KEY_BIT | REP_BIT, MSG_BIT | KEY_BIT | REP_BIT, 1,
                                 &info)) != NULL) {
        ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                                  .datatype = ucp_dt_make_contig(1) };
        ucx_wait_req(ucp_tag_msg_recv_nbx(U.worker, scratch, sizeof scratch, m, &p));
    }
}
