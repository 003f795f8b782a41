/* The inter-node transport (DESIGN.md D9): moves bytes between ranks on
 * different nodes, nothing more.  Matching, ordering rules and protocols
 * belong to src/p2p, which keeps one matching engine for node peers and
 * remote peers; this layer offers it
 *   - messages: a small header plus at most `eager_max` payload bytes,
 *     copied at once (the caller's buffers are free on return) and
 *     delivered to the receiver's `incoming` upcall in its progress;
 *     or (send_msgv) sent from the caller's payload buffer, which stays
 *     the caller's until the `done` upcall, or, at most `coalesce`
 *     bytes, copied into the peer's bundle: several messages in one
 *     transport message, sent at the next progress round (or when full,
 *     or before any other traffic to that peer), `done` once sent;
 *   - tagged data transfers (send/receive of one chunk straight between
 *     user buffers, matched by a 64-bit tag chosen by the receiver);
 *   - one-sided reads of a buffer the peer exposed (when `rma`);
 *   - one-sided writes and reads of memory a peer registered for both
 *     (when `rma_rw`: src/rma's windows, through net/rma.c), each with
 *     its own completion function; a write completes when its data is in
 *     the target's memory (delivery complete), not merely sent.
 * Every operation is accepted: when the provider is out of resources it
 * waits in a FIFO inside the transport and is posted by a later progress
 * round, in order.  Completions of data transfers and reads reach the
 * `done` upcall with the caller's cookie.
 *
 * Behind one function table (struct smap_net_ops), each engine a plugin
 * loaded when the job spans nodes (net/engine.h): libfabric (net/ofi/)
 * and UCX (net/ucx/).
 * Ranks are job (world) ranks.  Not thread-safe by itself: p2p calls it
 * under smap_p2p_lk.  Opened only when the job spans more than one node
 * (smap_net.ops is NULL otherwise and nothing here is ever called). */
#ifndef SMAP_NET_NET_H
#define SMAP_NET_NET_H

#include <stddef.h>
#include <stdint.h>

/* The largest header a message may carry (on top of eager_max payload). */
#define SMAP_NET_HDR_MAX 64
/* Messages may always carry this much payload, whatever eager_max is
 * (room for control traffic: one-sided requests). */
#define SMAP_NET_ROOM_MIN ((size_t)2048)
/* send_msgv: the caller waits for this message alone (a blocking send),
 * so a small one may leave at once instead of with the next bundle. */
#define SMAP_NET_NOW 1

struct smap_net_upcalls {
    /* A message from job rank `src` (header and payload as sent, `len`
     * bytes in all).  The buffer is the transport's: copy what must stay. */
    void (*incoming)(int src, const void *msg, size_t len);
    /* A data transfer or read started with `cookie` has completed. */
    void (*done)(void *cookie);
};

struct smap_net_ops {
    const char *name;
    int (*open)(const struct smap_net_upcalls *up, char *err, size_t errlen);
    void (*close)(void);
    /* Reads completions, delivers messages, posts waiting operations.
     * Returns how many events it handled (0: nothing happened). */
    int (*progress)(void);
    /* Operations the transport still owes a completion (close waits). */
    int (*busy)(void);
    /* Before waiting for busy() to clear at MPI_Finalize: makes sure what
     * was sent without a completion (injected) is covered by one. */
    void (*drain)(void);
    /* Before sleeping (DESIGN D7): a file descriptor that becomes readable
     * when a completion may be ready (poll it outside the p2p lock), -1
     * when events are already waiting (progress instead of sleeping),
     * -2 when the provider offers no wait object. */
    int (*trywait)(void);
    /* Sent from an upcall (inside progress), a message may wait until
     * that progress round ends: what one round answers to a peer leaves
     * together. */
    void (*send_msg)(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen);
    /* A header-only message that may wait for the end of the next
     * progress round, for messages whose peer needs our polls anyway
     * (manual progress): a rendezvous's RTS and READING.  Order with
     * every other message to dst is kept. */
    void (*send_lazy)(int dst, const void *hdr, size_t hlen);
    /* A message like send_msg, but only the header is copied: `data`
     * stays the caller's until done(cookie).  flags: SMAP_NET_NOW.
     * Returns 1 when the message was sent (data copied) at once: no
     * done(cookie) then. */
    int (*send_msgv)(int dst, const void *hdr, size_t hlen, const void *data, size_t dlen,
                     void *cookie, int flags);
    void (*tsend)(int dst, const void *buf, size_t len, uint64_t tag, void *cookie);
    void (*trecv)(int src, void *buf, size_t len, uint64_t tag, void *cookie);
    void (*read)(int src, void *buf, size_t len, uint64_t raddr, uint64_t key, void *cookie);
    /* Makes [buf, buf+len) readable by peers: *raddr and *key name it in
     * their reads; *handle releases it (unexpose). */
    void (*expose)(const void *buf, size_t len, uint64_t *raddr, uint64_t *key, void **handle);
    void (*unexpose)(void *handle);
    /* expose for reads by rank dst alone (p2p's rendezvous): an engine
     * whose key must travel (UCX) sends it to dst now, ahead of the
     * caller's RTS, saving the reader a round trip.  NULL: expose. */
    void (*expose_to)(int dst, const void *buf, size_t len, uint64_t *raddr, uint64_t *key,
                      void **handle);
    /* One-sided transfers for src/rma (use net/rma.c's functions, which
     * split at `chunk`): write (delivery complete) or read len bytes
     * between buf and (raddr, key) of rank `peer`; fn(cookie) runs in
     * progress when it has completed. */
    void (*rma_xfer)(int write, int peer, void *buf, size_t len, uint64_t raddr, uint64_t key,
                     void (*fn)(void *), void *cookie);
    /* Makes [buf, buf+len) readable and writable by peers (as expose). */
    void (*expose_rw)(void *buf, size_t len, uint64_t *raddr, uint64_t *key, void **handle);
    /* Dynamic processes (src/spawn, DESIGN D17); NULL when the engine has
     * none.  getname: this endpoint's address into buf (*len: in, its
     * room; out, the bytes), 0 or -1.  add_peers: n peers of another job,
     * addresses of alen bytes each, become ranks first..first+n-1 (first
     * at least every rank known so far); 0, or -1 with a message. */
    int (*getname)(void *buf, size_t *len);
    int (*add_peers)(int first, int n, const void *addrs, size_t alen, char *err, size_t errlen);
};

struct smap_net {
    const struct smap_net_ops *ops;   /* NULL: no remote peers, nothing opened */
    size_t eager_max;    /* largest payload of an eager message (provider-dependent) */
    size_t room;         /* largest payload any message may carry (>= eager_max) */
    size_t chunk;        /* largest single data transfer or read */
    size_t coalesce;     /* send_msgv of at most this many payload bytes is copied into
                          * the peer's bundle (0: never; ofi.c) */
    int rma;             /* reads of exposed buffers are offered */
    int rma_rw;          /* one-sided writes and reads of windows are offered (net/rma.c) */
    int manual_progress; /* data moves only while this rank polls (software providers) */
    int ordered;         /* messages between two ranks arrive in the order sent (FI_ORDER_SAS) */
    char provider[64];   /* what fi_getinfo picked, for diagnostics */
    int open_local;      /* in: open without the job-wide address exchange (a one-node job
                          * reaching processes of another job: src/spawn); peers come
                          * through add_peers */
};

extern struct smap_net smap_net;

/* Opens the transport (collective over the job: the endpoints' addresses
 * are exchanged through the boot key-value store).  0, or -1 with a
 * message. */
int smap_net_open(const struct smap_net_upcalls *up, char *err, size_t errlen);
/* Waits for the transport's own operations, then closes it (after the
 * job's last barrier: peers may still read exposed buffers before). */
void smap_net_close(void);

/* Opens the transport for peers of other jobs only (no collective
 * exchange): a one-node job's first connection (src/spawn).  0, or -1. */
int smap_net_open_local(const struct smap_net_upcalls *up, char *err, size_t errlen);

static inline int smap_net_progress(void)
{
    return smap_net.ops->progress();
}

static inline int smap_net_trywait(void)
{
    return smap_net.ops->trywait();
}

static inline void smap_net_send_msg(int dst, const void *hdr, size_t hlen, const void *data,
                                     size_t dlen)
{
    smap_net.ops->send_msg(dst, hdr, hlen, data, dlen);
}

static inline void smap_net_send_lazy(int dst, const void *hdr, size_t hlen)
{
    smap_net.ops->send_lazy(dst, hdr, hlen);
}

static inline int smap_net_send_msgv(int dst, const void *hdr, size_t hlen, const void *data,
                                     size_t dlen, void *cookie, int flags)
{
    return smap_net.ops->send_msgv(dst, hdr, hlen, data, dlen, cookie, flags);
}

static inline void smap_net_tsend(int dst, const void *buf, size_t len, uint64_t tag,
                                  void *cookie)
{
    smap_net.ops->tsend(dst, buf, len, tag, cookie);
}

static inline void smap_net_trecv(int src, void *buf, size_t len, uint64_t tag, void *cookie)
{
    smap_net.ops->trecv(src, buf, len, tag, cookie);
}

static inline void smap_net_read(int src, void *buf, size_t len, uint64_t raddr, uint64_t key,
                                 void *cookie)
{
    smap_net.ops->read(src, buf, len, raddr, key, cookie);
}

static inline void smap_net_expose(const void *buf, size_t len, uint64_t *raddr, uint64_t *key,
                                   void **handle)
{
    smap_net.ops->expose(buf, len, raddr, key, handle);
}

static inline void smap_net_expose_to(int dst, const void *buf, size_t len, uint64_t *raddr,
                                      uint64_t *key, void **handle)
{
    if (smap_net.ops->expose_to)
        smap_net.ops->expose_to(dst, buf, len, raddr, key, handle);
    else
        smap_net.ops->expose(buf, len, raddr, key, handle);
}

static inline void smap_net_unexpose(void *handle)
{
    smap_net.ops->unexpose(handle);
}

/* ---- rma.c: one-sided transfers for src/rma (only when rma_rw) ---- */
/* Registers [buf, buf+len) for peers' writes and reads: 0 with (*raddr,
 * *key) naming it in their transfers and *handle releasing it, or -1
 * (not offered: the caller uses messages). */
int smap_net_rma_register(void *buf, size_t len, uint64_t *raddr, uint64_t *key, void **handle);
void smap_net_rma_unregister(void *handle);
/* Writes (write != 0) or reads len bytes of any size between buf and
 * (raddr, key) at job rank `peer`, in pieces of at most `chunk`; fn(cookie)
 * runs once, in progress, when all of it has completed (a write: in the
 * target's memory).  buf stays the caller's until then. */
void smap_net_rma(int write, int peer, void *buf, size_t len, uint64_t raddr, uint64_t key,
                  void (*fn)(void *), void *cookie);

#endif
