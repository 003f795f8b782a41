/* MPI point-to-point semantics over the intra-node transport (DESIGN.md
 * D5): requests, matching by (context, source, tag) with wildcards, the
 * posted-receive and unexpected-message queues, probe/mprobe, cancel of
 * receives, and the progress engine.  The caller (src/mpi, src/binding)
 * has checked every argument and translated ranks: `rank` is the peer's
 * rank in the communicator (what matching compares), `lr` its local rank
 * on this node (which queue carries the data).
 *
 * Protocols: a message of at most SMAP_EAGER_LIMIT packed bytes travels
 * inside one cell and the send completes at once (unless synchronous).  A
 * larger one sends a descriptor of the sender's buffer; the receiver, when
 * it finds the match, copies it in one go (smap_copy_from: direct, else
 * CMA) and raises the sender's completion word.  When the copy engine
 * cannot reach the buffer, or the send datatype is not one dense block,
 * the receiver asks for the data to be streamed through queue cells
 * (pipelined bounce), packed by the sender and unpacked by the receiver
 * with the datatype engine. */
#ifndef SMAP_P2P_P2P_H
#define SMAP_P2P_P2P_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/lock.h"
#include "base/wait.h"
#include "dtype/dtype.h"
#include "dtype/engine.h"
#include "smap/smap.h"

/* DETACHABLE: a blocking standard send (see smap_p2p_send_detach).
 * TO_HUB / FROM_HUB: standard sends between a node peer and a hub that
 * moves many large blocks at once (a hierarchical Gatherv's leader, a
 * Scatterv's): the node peer copies the whole message, never the hub, so
 * the copies run on the peers' cores side by side instead of half of
 * each on the hub's (src/coll/hier/gatherv.c). */
enum smap_p2p_mode {
    SMAP_P2P_STANDARD = 0, SMAP_P2P_SYNC = 1, SMAP_P2P_READY = 2, SMAP_P2P_DETACHABLE = 3,
    SMAP_P2P_TO_HUB = 4, SMAP_P2P_FROM_HUB = 5
};
enum smap_preq_kind { SMAP_PREQ_SEND = 1, SMAP_PREQ_RECV = 2 };

/* One point-to-point operation.  Embedded first in MPI_Request objects. */
struct smap_preq {
    struct smap_preq *next;   /* in exactly one list while in flight */
    int kind;
    /* Completed (data moved, or cancelled).  Atomic because, under
     * MPI_THREAD_MULTIPLE, the thread that completes an operation (in its
     * progress) is not always the one waiting for it: set with release
     * once every other field is final (smap_preq_complete), read with
     * acquire (smap_preq_done); whoever set it touches the request no more. */
    _Atomic int done;
    int err;                  /* MPI error class once done: MPI_SUCCESS or MPI_ERR_TRUNCATE */
    /* the user buffer */
    void *buf;
    MPI_Count count;
    smap_dtype_t *dt;
    char *block;              /* start of the dense data, or NULL (non-contiguous) */
    size_t bytes;             /* packed size: count * size */
    /* addressing */
    int ctx, rank, tag, lr, me;
    /* send state */
    int mode, streaming;
    int movable;              /* blocking standard send small enough to detach:
                               * 1, then 2 once its descriptor is out */
    int owned;                /* a detached copy: the library frees it */
    uint32_t word;
    size_t off;               /* bytes streamed so far */
    /* receive results */
    int src, rtag, cancelled;
    size_t got, total, roff;
    /* a remote peer's operation (remote.c): transfers still outstanding,
     * the peer's request, a packing buffer, the exposed send buffer */
    size_t net_left;
    uint64_t net_peer;        /* receive: the sender's request; send: its sequence number */
    void *net_tmp, *net_mr;
    int net_cancel;           /* send: 0, 1 cancel asked, 2 asked and transfer over */
};

static inline int smap_preq_done(struct smap_preq *r)
{
    return atomic_load_explicit(&r->done, memory_order_acquire);
}

static inline void smap_preq_complete(struct smap_preq *r)
{
    atomic_store_explicit(&r->done, 1, memory_order_release);
}

/* Not complete yet (a request being set up, not visible to others). */
static inline void smap_preq_reset(struct smap_preq *r)
{
    atomic_store_explicit(&r->done, 0, memory_order_relaxed);
}

/* The lock of the point-to-point state under MPI_THREAD_MULTIPLE (see the
 * thread model in README.md).  Every function of this header takes it
 * itself; callers that keep state of their own next to point-to-point
 * (buffered sends, the request cache, collective schedules) may take it
 * around theirs: it is recursive. */
extern struct smap_lock smap_p2p_lk;
static inline void smap_p2p_lock(void)
{
    smap_mt_lock(&smap_p2p_lk);
}

static inline void smap_p2p_unlock(void)
{
    smap_mt_unlock(&smap_p2p_lk);
}

/* An unexpected message (or one taken by MPI_Mprobe). */
struct smap_p2p_msg {
    struct smap_p2p_msg *next;
    int ctx, src, tag, lr, kind, flags;
    int pooled;               /* from the small-message pool (recv.c) */
    uint32_t word;
    size_t len;               /* message bytes */
    uint64_t addr;            /* rendezvous: the sender's buffer */
    /* lr < 0: from a remote peer (remote.c), job rank `world`, its request
     * `sid`, the key of its exposed buffer */
    int world;
    uint64_t sid, key;
    unsigned char data[];     /* eager: the payload */
};

/* What MPI_T's performance variables report (src/tool/pvar.c).  Each
 * field is bumped by one plain add on a path that already does far more
 * work; under MPI_THREAD_MULTIPLE every writer holds smap_p2p_lk, and so
 * does the reader. */
struct smap_p2p_stats {
    uint64_t sent, sent_bytes;         /* messages handed to a queue */
    uint64_t recvd, recvd_bytes;       /* messages matched to a receive */
    uint64_t unexpected;               /* arrivals that found no posted receive */
    uint64_t rndv[3];                  /* rendezvous copies by level: direct, cma, streamed */
};
extern struct smap_p2p_stats smap_p2p_stats;
/* Lengths of the posted-receive and unexpected-message queues, counted now
 * (a walk: tools read them rarely, the hot paths keep no count). */
void smap_p2p_queue_lengths(uint64_t *posted, uint64_t *unexpected);
/* A consistent copy of smap_p2p_stats. */
void smap_p2p_stats_snapshot(struct smap_p2p_stats *out);
/* Applies SMAP_EAGER_LIMIT and SMAP_SPLIT_MIN as they are now in smap_tun
 * (MPI_T wrote them); they only steer this rank's own choices. */
void smap_p2p_tunables_changed(void);

/* How to reach job rank `world_rank` (its "route"): its local rank (>= 0)
 * when it shares this node, SMAP_P2P_REMOTE(world_rank) (<= -2) when it
 * lives on another node (through src/net), SMAP_P2P_NO_ROUTE when it
 * cannot be reached (not a rank of the job).  Every `lr` argument below
 * takes a route. */
#define SMAP_P2P_NO_ROUTE (-1)
#define SMAP_P2P_REMOTE(world) (-2 - (world))
#define SMAP_P2P_REMOTE_RANK(lr) (-2 - (lr))
extern int *smap_p2p_lr_of;        /* NULL until the first operation */
extern int smap_p2p_nranks;
void smap_p2p_init(void);
static inline int smap_p2p_local_rank(int world_rank)
{
    if (SMAP_UNLIKELY(!smap_p2p_lr_of))
        smap_p2p_init();
    return (unsigned)world_rank < (unsigned)smap_p2p_nranks ? smap_p2p_lr_of[world_rank]
                                                            : SMAP_P2P_NO_ROUTE;
}

/* The inter-node side (remote.c): opened by MPI_Init when the job spans
 * more than one node (collective: addresses are exchanged), closed by
 * MPI_Finalize after the last barrier; drain waits for the transport's own
 * sends first.  A one-node job opens nothing and pays one predicted branch
 * in progress.  Returns 0, or -1 with a message. */
int smap_p2p_remote_open(char *err, size_t errlen);
/* Peers of other jobs (src/spawn, DESIGN D17), always through src/net.
 * open_local: makes sure the transport is open, opening it for this
 * process alone in a one-node job (0, or -1 with a message); name: this
 * process's transport address (0, or -1); add_foreign: n processes of
 * another job, with addresses of alen bytes each, become ranks
 * first..first+n-1 here (first >= smap_p2p_nranks, gaps unreachable),
 * and know us as rank me_there. */
int smap_p2p_remote_open_local(char *err, size_t errlen);
int smap_p2p_remote_name(void *buf, size_t *len);
int smap_p2p_add_foreign(int first, int n, int me_there, const void *addrs, size_t alen,
                         char *err, size_t errlen);
void smap_p2p_remote_drain(void);
void smap_p2p_remote_close(void);
/* Processes of other jobs on this node (foreign.c, DESIGN D17): src/spawn
 * attaches them at spare node-peer indices and then, once both groups
 * agreed, routes their world ranks there (shm queues, single copy) instead
 * of through src/net.
 * node_attach: the process of record r becomes reachable at our index idx
 * (it knows us at its index `theirs`); a process of our own job (r is one
 * of our node ranks: connect/accept within one job) keeps its queue pair
 * and needs no mapping.  Its queue is polled from now on (nothing arrives
 * before the route is agreed).  Returns the index to route to (>= 0), or
 * -1 with a message.
 * node_route: job rank `world` (a foreign rank) goes through index lr.
 * node_detach: undoes node_attach (index idx stays used); world's route
 * becomes src/net's again when the transport is open.
 * node_quiesce: waits until no send to index lr waits for a queue cell. */
/* Closes a transport that smap_p2p_remote_open_local opened when no peer
 * of another job is routed through it any more (remote.c). */
void smap_p2p_remote_release_local(void);
int smap_p2p_node_attach(int idx, int theirs, const struct smap_node_rec *r, char *err,
                         size_t errlen);
void smap_p2p_node_route(int world, int lr);
void smap_p2p_node_detach(int lr);
void smap_p2p_node_quiesce(int lr);

/* One-sided traffic between nodes (src/rma/remote.c) rides on remote.c's
 * transport messages under a kind of its own, so it never meets MPI
 * matching (no context, no tag, no sequence number).  incoming is called
 * from progress (smap_p2p_lock held) with the sender's job rank and the
 * message as sent (the buffer is the transport's: copy what must stay);
 * send copies at once; room is how many bytes (hdr + data) one message
 * carries.  Only while smap_p2p_remote_open has succeeded. */
extern void (*smap_p2p_rma_incoming)(int world, const void *msg, size_t len);
void smap_p2p_rma_send(int world, const void *hdr, size_t hlen, const void *data, size_t dlen);
size_t smap_p2p_rma_room(void);

/* Starts a send or a receive.  r is filled in; it completes in progress
 * (r->done).  rank MPI_ANY_SOURCE: lr is ignored.  Returns MPI_SUCCESS or
 * an MPI error class (transport not available). */
int smap_p2p_isend(struct smap_preq *r, const void *buf, MPI_Count count, smap_dtype_t *dt,
                   int rank, int lr, int me, int tag, int ctx, int mode);
int smap_p2p_irecv(struct smap_preq *r, void *buf, MPI_Count count, smap_dtype_t *dt,
                   int rank, int tag, int ctx);
/* A blocking receive of at most `cap` contiguous bytes into `block` from
 * rank `rank` (local rank lr; no wildcard source) while nothing else is in
 * flight here: waits on lr's queue alone, while it spins, and takes an
 * eager message straight into the buffer -- no posted request, no general
 * progress round per poll (ping-pong latency).  Returns 1 with r complete
 * (status fields set), or 0 having consumed nothing: anything else
 * happening, a message that does not match, or the spin phase over: then
 * post the receive with smap_p2p_irecv and wait as usual. */
int smap_p2p_recv_direct(struct smap_preq *r, void *block, size_t cap, int rank, int lr, int tag,
                         int ctx);
/* A blocking standard (or ready) send of `bytes` contiguous bytes at
 * `block`, done at once when it is small enough to travel eagerly and a
 * cell is free (nothing queued to that peer before it), or, to a peer on
 * another node, small enough for a copied message: returns 1 then,
 * with the message on its way and no request used.  Returns 0 otherwise,
 * having done nothing: use smap_p2p_isend. */
int smap_p2p_send_eager(const void *block, size_t bytes, int lr, int me, int tag, int ctx);
/* A blocking standard send of at most SMAP_P2P_DETACH_MAX contiguous bytes
 * whose receiver has not matched it for a while: copies the data into a
 * library-owned request, unless the receiver claimed it first.  Returns 1
 * when r (and the user's buffer) are free: the send completes like an
 * eager one.  So that programs which, as with other MPIs' eager protocol,
 * exchange a few KiB with head-to-head blocking sends do not deadlock,
 * while matched sends keep the single-copy rendezvous. */
#define SMAP_P2P_DETACH_MAX 8192
int smap_p2p_send_detach(struct smap_preq *r);
/* Progresses until every detached send has completed (MPI_Finalize). */
void smap_p2p_drain(void);

/* A request whose peer is MPI_PROC_NULL: complete, empty status. */
void smap_p2p_null(struct smap_preq *r, int kind);

/* One round of progress: consume incoming cells, inject queued sends,
 * check completion words, push stream fragments. */
void smap_p2p_progress(void);
/* Called at the end of every progress round while set: the non-blocking
 * collectives' schedules (src/coll/sched) advance from the same calls that
 * move point-to-point, so an application that only tests still completes
 * them.  NULL while no schedule is active.  Under MPI_THREAD_MULTIPLE it
 * runs with smap_p2p_lock held (one thread at a time; it may start sends
 * and receives: the lock is recursive). */
extern void (*smap_p2p_progress_hook)(void);
/* The same for one-sided communication (src/rma): serves requests of
 * origins that cannot reach this rank's window memory themselves.  NULL
 * while no such window exists. */
extern void (*smap_p2p_progress_rma)(void);

/* Matching an unexpected message without receiving it.  Returns the
 * message or NULL; remove: take it out of the queue (MPI_Mprobe).  A message
 * left in the queue may be received by another thread as soon as the lock
 * is dropped: single-threaded callers, or callers holding smap_p2p_lock,
 * only.  Others use smap_p2p_iprobe. */
struct smap_p2p_msg *smap_p2p_probe(int ctx, int rank, int tag, int remove);
/* One progress round, then smap_p2p_probe, under the lock; the matched
 * message's source, tag and length go to *src, *tag, *len (read before the
 * lock is dropped).  Returns 0 when nothing matched, else 1 with *taken the
 * message when remove (the caller owns it then), NULL otherwise. */
int smap_p2p_iprobe(int ctx, int rank, int tag, int remove, int *src, int *mtag, size_t *len,
                    struct smap_p2p_msg **taken);
/* Receives a message taken by smap_p2p_probe(..., 1). */
void smap_p2p_mrecv(struct smap_preq *r, void *buf, MPI_Count count, smap_dtype_t *dt,
                    struct smap_p2p_msg *m);
/* Cancels a receive that has not matched yet: 1 when cancelled. */
int smap_p2p_cancel_recv(struct smap_preq *r);
/* Asks to cancel a send to a peer on another node (MPI_Cancel; the
 * request may be complete already: an eager send is, until waited for).
 * 1 when asked: the request is (again) not complete until the receiver
 * has answered, and then MPI_Test_cancelled tells.  0 when it cannot be
 * (a node peer's send, already matched, or a cancel already asked). */
int smap_p2p_cancel_send(struct smap_preq *r);

/* ---- blocking waits (inline: the blocking send/receive fast path) ---- */

/* Blocks until r is complete (progressing).  No lock is held while it
 * waits: progress takes and drops it once per poll. */
static inline void smap_p2p_wait(struct smap_preq *r)
{
    if (smap_preq_done(r))
        return;
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    for (;;) {
        smap_p2p_progress();
        if (smap_preq_done(r))
            return;
        smap_wait_step(&w);
    }
}

/* Blocks until the send r is complete, or detached: a blocking standard
 * send that its receiver has not matched by the time we start yielding
 * gives its data to a library-owned copy and returns (no deadlock when two
 * ranks send to each other first; smap_p2p_send_detach). */
static inline void smap_p2p_wait_send(struct smap_preq *r)
{
    if (smap_preq_done(r))
        return;
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    for (;;) {
        smap_p2p_progress();
        if (smap_preq_done(r))
            return;
        /* (whether r may detach is read under the lock, in the call) */
        if (smap_wait_step(&w) && smap_p2p_send_detach(r))
            return;
    }
}

/* A blocking send of any mode but buffered (the caller resolved dest to
 * lr): a small contiguous message of a predefined type goes into a cell
 * at once, anything else lives on this stack frame until it completes
 * (a standard send may detach: smap_p2p_wait_send). */
static inline void smap_p2p_send(const void *buf, MPI_Count count, smap_dtype_t *t, int rank,
                                 int lr, int me, int tag, int ctx, int mode)
{
    if (SMAP_LIKELY(mode != SMAP_P2P_SYNC && (t->flags & SMAP_DT_PREDEF) &&
                    smap_dtype_is_contiguous(t)) &&
        smap_p2p_send_eager(buf, (size_t)(count * smap_dtype_size(t)), lr, me, tag, ctx))
        return;
    struct smap_preq p;
    smap_p2p_isend(&p, buf, count, t, rank, lr, me, tag, ctx,
                   mode == SMAP_P2P_STANDARD ? SMAP_P2P_DETACHABLE : mode);
    smap_p2p_wait_send(&p);
}

#endif
