/* What the UCX engine's two files share (src/net/ucx: ucx.c, the messaging
 * engine; rma.c, the one-sided part): the tags' layout, the operation
 * record UCP owes a completion, the key exchange's records, the engine's
 * state, and the functions each file offers the other.  The plugin is
 * built with hidden visibility: none of this leaves it. */
#ifndef SMAP_NET_UCX_INTERNAL_H
#define SMAP_NET_UCX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <ucp/api/ucp.h>

#include "base/compiler.h"
#include "net/engine.h"

/* Message receives posted at once (as the libfabric engine: a window of
 * 64 small sends finds a posted buffer each). */
#define NRECV 64
#define MSG_BIT ((uint64_t)1 << 63)
/* In a message's tag too: the message is a bundle of framed records
 * (net/frame.h), several small messages to one peer sent as one. */
#define BUNDLE_TAG ((uint64_t)1 << 32)
/* Messages one bundle carries at most (their cookies sit in the uop). */
#define BUNDLE_MAX 64
/* The key exchange's tags: a request is KEY_BIT alone (payload: the
 * requester's rank and the key id), a reply KEY_BIT | REP_BIT | the
 * owner's rank << 40 | the key id (payload: the packed rkey, empty when
 * the owner has no such exposure).  Key ids count below 2^39; KEY_PUSHED
 * marks one whose rkey the owner sent with the exposure (expose_to, p2p's
 * rendezvous): its reader posts the reply's receive and asks nothing. */
#define KEY_BIT ((uint64_t)1 << 62)
#define REP_BIT ((uint64_t)1 << 61)
#define KEY_ID_MAX ((uint64_t)1 << 39)
#define KEY_PUSHED ((uint64_t)1 << 39)
/* Largest packed rkey a reply may carry (a few transports' worth). */
#define RKEY_MAX 4096
/* Cached rkeys kept beyond those in use (a rendezvous's is used once; a
 * window's again and again): past it, the unused are dropped. */
#define RKEY_CACHE 1024

enum uop_kind { U_SEND, U_TSEND, U_TRECV, U_FLUSH, U_GET, U_PUT, U_RFLUSH, U_KEYREP, U_BUNDLE };

struct rkey_ent;

/* One operation UCP owes a completion: the callbacks put it on the
 * completion list, reap() hands it on. */
struct uop {
    struct uop *next;         /* on the completion list */
    enum uop_kind kind;
    int peer;
    ucs_status_t status;
    void *req;                /* UCP's request, freed once reaped */
    void *cookie;             /* the done upcall's, or NULL (a copied message) */
    void (*fn)(void *);       /* rma_xfer's completion function (instead of done) */
    struct rkey_ent *ent;     /* the rkey a transfer uses (U_GET, U_PUT), or a reply's */
    ucp_dt_iov_t iov[2];      /* send_msgv: header (in data[]) and the caller's payload */
    int counted;              /* a message send counted in U.sending[peer] */
    int ncookies;             /* U_BUNDLE: messages in it, their done cookies at `cookies` */
    void **cookies;
    size_t len;               /* U_BUNDLE: bytes of records in data[] */
    unsigned char data[];     /* a copied message */
};

/* A buffer this rank exposed (handle of expose/expose_rw). */
struct xreg {
    struct xreg *next;
    uint64_t key;             /* its key id */
    ucp_mem_h memh;           /* NULL for an empty buffer */
    void *blob;               /* packed rkey (ucp_rkey_pack) */
    size_t bloblen;
};

/* A transfer waiting for its rkey to arrive. */
struct pend {
    struct pend *next;
    int write;
    void *buf;
    size_t len;
    uint64_t raddr;
    void (*fn)(void *);       /* NULL: the done upcall with cookie (a read) */
    void *cookie;
};

/* A peer's rkey: being fetched (rkey NULL, transfers waiting) or ready. */
struct rkey_ent {
    struct rkey_ent *next;    /* in its hash bucket */
    int peer;
    uint64_t key;
    ucp_rkey_h rkey;
    long users;               /* transfers under way with it */
    struct pend *wait_head, *wait_tail;
    unsigned char *reply;     /* the reply's buffer while fetching */
};
#define RKEY_BUCKETS 256

/* A received bundle being handed on, record by record: nested deliveries
 * (an upcall that progresses) go on with its next record, and its buffer
 * is freed once every record went out and no upcall reads one. */
struct bcur {
    unsigned char *buf;
    size_t len, off;          /* off: the next record's frame */
    int src;
    int refs;                 /* upcalls reading a record of it now */
};

/* A posted message receive of the ring. */
struct rslot {
    void *req;
    int done;                 /* completed, not delivered yet */
    ucs_status_t status;
    size_t len;
    uint64_t tag;
    unsigned char *buf;
};

struct ucx_state {
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_address_t **addr;     /* by job rank: the peers' worker addresses */
    ucp_ep_h *ep;             /* by job rank, made at first use */
    ucs_status_t *ep_err;     /* by job rank: why its endpoint failed (UCS_OK: it did not) */
    int peer_errors;          /* endpoints in UCP_ERR_HANDLING_MODE_PEER (SMAP_NET_UCX_ERRORS) */
    struct smap_net_upcalls up;
    struct rslot ring[NRECV];
    unsigned char *spare;     /* message buffers not posted, linked through their first bytes */
    int head;                 /* the ring's oldest posted receive */
    int nposted;              /* receives posted (NRECV but for the delivered ones) */
    int repost;               /* the oldest delivered slot (repost() posts it again) */
    size_t msg_cap;           /* bytes of a message: header and room */
    struct uop *done_head, *done_tail;
    /* coalescing (net.h's bundles) */
    size_t coalesce;          /* largest record (header and payload) staged; 0: off */
    struct uop **stage;       /* by job rank: the bundle being filled, or NULL */
    int *dirty, ndirty;       /* the ranks whose stage holds messages */
    int *sending;             /* by job rank: message sends started, not completed */
    unsigned *lone;           /* by job rank: the round its last lone send_msgv left in */
    unsigned round;           /* progress rounds so far */
    struct uop *bundle_spare; /* a sent bundle kept for the next (no malloc) */
    int in_progress;          /* upcalls of a progress round are running (nesting count) */
    struct bcur *bcur;        /* the received bundle being handed on, or NULL */
    long inflight;            /* uops not reaped yet (busy) */
    int efd;                  /* the worker's event fd, or -1 (no sleeping) */
    int closing;              /* endpoint errors from now on are the peers' goodbyes */
    /* the key exchange (rma.c) */
    struct xreg *xregs;       /* this rank's exposures */
    uint64_t next_key;
    struct rkey_ent *rkeys[RKEY_BUCKETS];
    long nrkeys;
    long ngets, nputs, nfetched, npushed;   /* for the closing report (SMAP_VERBOSE=2) */
    struct {                  /* the posted receive of key requests */
        void *req;
        int done;
        ucs_status_t status;
        uint64_t msg[2];      /* requester's rank, key id */
    } kreq;
};
/* The engine's one state (ucx.c defines it; hidden in the plugin). */
extern struct ucx_state U;

/* ---- ucx.c's services to rma.c ---- */
SMAP_COLD _Noreturn void ucx_fail(const char *what, ucs_status_t st);
void ucx_push_done(struct uop *o, ucs_status_t st);
void ucx_flush_cb(void *req, ucs_status_t st, void *user);
ucp_ep_h ucx_ep_of(int rank);
void ucx_started(struct uop *o, ucs_status_ptr_t r, const char *what);
struct uop *ucx_uop_new(enum uop_kind kind, int peer, size_t extra);
void ucx_send_uop(struct uop *o, int dst, const void *buf, size_t count, ucp_datatype_t dt,
                  uint64_t tag);
void ucx_wait_req(ucs_status_ptr_t r);

/* ---- rma.c: exposed buffers, the key exchange, reads and writes ---- */
void ucx_expose(const void *buf, size_t len, uint64_t *raddr, uint64_t *key, void **handle);
void ucx_expose_to(int dst, const void *buf, size_t len, uint64_t *raddr, uint64_t *key,
                   void **handle);
void ucx_expose_rw(void *buf, size_t len, uint64_t *raddr, uint64_t *key, void **handle);
void ucx_unexpose(void *handle);
void ucx_read(int src, void *buf, size_t len, uint64_t raddr, uint64_t key, void *cookie);
void ucx_rma_xfer(int write, int peer, void *buf, size_t len, uint64_t raddr, uint64_t key,
                  void (*fn)(void *), void *cookie);
/* Posts the receive of the next key request (at open, and after each). */
void ucx_post_kreq(void);
/* A key request arrived (U.kreq.done): answer it; a key reply (U_KEYREP)
 * completed: unpack it and start the transfers that waited. */
void ucx_key_request(void);
void ucx_key_reply(struct uop *o);
/* At close: pushed keys no read took, then everything of rma.c's. */
void ucx_drop_unread_keys(void);
void ucx_rma_close(void);

#endif
