/* Inside src/rma: the control block every rank keeps per window, the
 * arena it and Win_allocate memory come from, and the waiting helper. */
#ifndef SMAP_RMA_INTERNAL_H
#define SMAP_RMA_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "p2p/p2p.h"
#include "rma/rma.h"

/* Attach table of a dynamic window: an array sorted by base, in the
 * owner's one-sided region (peers read it through their view of it),
 * doubled when full: no fixed limit (linked-list codes attach thousands
 * of regions).  Its first capacity: */
#define SMAP_RMA_DYN_FIRST 64

struct smap_rma_dyn {
    uint64_t base, size;
    uint32_t direct;   /* peers may load/store it (exposed, SMAP_COPY=direct) */
    uint32_t cma;      /* else peers may reach it with CMA */
};

/* Lock word: bit 63 exclusive holder, bits 32..62 exclusive waiters (new
 * shared lockers back off while one waits, so writers do not starve),
 * bits 0..31 shared holders. */
#define SMAP_RMA_EXCL ((uint64_t)1 << 63)
#define SMAP_RMA_WAIT1 ((uint64_t)1 << 32)
#define SMAP_RMA_WAITERS (((uint64_t)0x7fffffff) << 32)
#define SMAP_RMA_SHARED ((uint64_t)0xffffffff)

/* The mailbox of a control block: origins that cannot reach the window's
 * memory post one request at a time (lock), the owner serves it from its
 * progress (am.c) and answers in place. */
#define SMAP_RMA_AM_BYTES ((size_t)32 << 10)
enum { SMAP_AM_FREE = 0, SMAP_AM_REQ = 1, SMAP_AM_DONE = 2 };
enum { SMAP_AM_PUT, SMAP_AM_GET, SMAP_AM_ACC, SMAP_AM_GACC, SMAP_AM_CAS };
struct smap_rma_am {
    _Alignas(64) _Atomic uint32_t lock;   /* held by the origin using the mailbox */
    _Atomic uint32_t state;
    uint32_t kind;
    int32_t rc;
    uint64_t addr, len;                   /* in the owner's address space */
    uint64_t op, type;                    /* predefined handles: equal in every process */
    _Alignas(64) unsigned char data[SMAP_RMA_AM_BYTES];
};

/* A rank's control block of one window, in its one-sided region (always
 * mapped by node peers).  Peers write lock, acc_lock and the PSCW counters
 * and read everything.  `fence` only ever grows, even across windows that
 * reuse the block (arena.c keeps control blocks apart from window memory
 * and never clears that word), so that a peer still waiting in the last
 * barrier of a freed window never sees it go back. */
struct smap_rma_cb {
    _Alignas(64) _Atomic uint64_t fence;
    _Alignas(64) _Atomic uint64_t lock;
    /* 1 from MPI_Win_post to the end of the exposure epoch: a lock granted
     * meanwhile is MPI_ERR_RMA_CONFLICT (MPI 5.0 12.5.3); on the lock's
     * line, so a lock reads it for free */
    _Atomic uint32_t exposed;
    _Alignas(64) _Atomic uint32_t acc_lock;
    _Alignas(64) _Atomic uint64_t dyn_gen;   /* odd while the table changes */
    uint32_t ndyn, dyn_cap;                  /* regions attached, table capacity */
    uint64_t dyn_tab;                        /* the table, at this address in the owner */
    struct smap_rma_am am;
    /* post[n] (indexed by the poster's rank), then done[n] (by the
     * completer's rank): how many times each did so; then one cache line
     * per origin rank: its busy flag (node.c: inside element atomics) */
    _Alignas(64) _Atomic uint64_t ctr[];
};

/* Bytes of a control block for a window of n ranks. */
#define SMAP_RMA_BUSY_STRIDE 8   /* uint64_t words: one cache line per origin */
static inline size_t smap_rma_cb_bytes(int n)
{
    size_t words = 2 * (size_t)n + 7 + (size_t)SMAP_RMA_BUSY_STRIDE * (size_t)n;
    return sizeof(struct smap_rma_cb) + words * sizeof(uint64_t);
}
/* Origin `from`'s busy flag in a control block of a window of n ranks
 * (cache-line aligned: ctr is, and the flags start on the next line
 * boundary past the counters). */
static inline _Atomic uint64_t *smap_rma_busy_flag(struct smap_rma_cb *cb, int n, int from)
{
    size_t first = (2 * (size_t)n + 7) & ~(size_t)7;
    return &cb->ctr[first + (size_t)SMAP_RMA_BUSY_STRIDE * (size_t)from];
}

static inline _Atomic uint64_t *smap_rma_post_ctr(struct smap_rma_cb *cb, int from)
{
    return &cb->ctr[from];
}
static inline _Atomic uint64_t *smap_rma_done_ctr(struct smap_rma_cb *cb, int n, int from)
{
    return &cb->ctr[n + from];
}

/* ---- arena.c: the one-sided region ---- */
/* Window memory: page aligned when len >= a page.  NULL when the region is
 * full or absent. */
void *smap_rma_arena_alloc(size_t len);
void smap_rma_arena_free(void *p, size_t len);
/* Control blocks of len bytes: reused ones keep their `fence` word, the
 * rest is zeroed. */
struct smap_rma_cb *smap_rma_cb_alloc(size_t len);
void smap_rma_cb_free(struct smap_rma_cb *cb, size_t len);
/* Whether [p, p+len) lies in our one-sided region. */
int smap_rma_in_arena(const void *p, size_t len);

/* ---- waiting (sync.c) ---- */
/* Waits until *word >= value (acquire), with the D7 policy: spin, then
 * yield, driving point-to-point progress now and then; MPI_ERR_OTHER when
 * a node peer died. */
int smap_rma_wait_ge(_Atomic uint64_t *word, uint64_t value);
/* Backing off in a loop that retries an atomic operation. */
struct smap_rma_backoff {
    unsigned polls, bound, yields;
};
void smap_rma_backoff_init(struct smap_rma_backoff *b);
int smap_rma_backoff(struct smap_rma_backoff *b);   /* MPI_ERR_OTHER: peer died */

/* The accumulate lock of a target's control block: 0 free, PLAIN held by
 * a locked accumulate of elements no origin combines with atomics, DRAIN
 * held by a bulk accumulate that also excludes the element atomics (it
 * waited until no origin's busy flag is set; see node.c). */
#define SMAP_RMA_ACC_PLAIN 1u
#define SMAP_RMA_ACC_DRAIN 2u
int smap_rma_acc_lock(struct smap_rma_cb *cb);
/* Takes it as DRAIN on a window of n ranks: returns once no busy flag of
 * that control block is set. */
int smap_rma_acc_lock_drain(struct smap_rma_cb *cb, int n);
void smap_rma_acc_unlock(struct smap_rma_cb *cb);

/* A barrier over the window's group through the fence words. */
int smap_rma_barrier(struct MPI_ABI_Win *w);

/* ---- am.c: requests served by the target ---- */
/* Runs one request on target `target`'s memory through its mailbox:
 * `in` (inlen bytes) goes with it, the answer (outlen bytes) comes back
 * into `out`.  Waits, serving our own mailboxes meanwhile. */
int smap_rma_am_call(struct MPI_ABI_Win *w, int target, int kind, uintptr_t addr, size_t len,
                     MPI_Op op, MPI_Datatype type, const void *in, size_t inlen, void *out,
                     size_t outlen);
/* Serves the pending requests of every live window of ours (progress). */
void smap_rma_am_serve(void);
/* Live windows whose mailboxes may receive requests. */
void smap_rma_am_register(struct MPI_ABI_Win *w);
void smap_rma_am_unregister(struct MPI_ABI_Win *w);

/* Sets or clears the progress hook (smap_p2p_progress_rma): needed while
 * a served window or a window with remote targets lives. */
void smap_rma_hook_refresh(void);

/* ---- remote.c: targets on other nodes ---- */
extern const struct smap_rma_ops smap_rma_net_ops;
extern _Atomic int smap_rma_net_live;     /* windows with remote targets */
extern _Atomic int smap_rma_net_queued;   /* requests from other nodes not served yet */
/* Windows with remote targets: registered before the creation exchange
 * (requests may come as soon as a peer knows our control block). */
int smap_rma_net_register(struct MPI_ABI_Win *w);
void smap_rma_net_unregister(struct MPI_ABI_Win *w);
/* Registers our window memory for RDMA from other nodes (fixed-layout
 * windows, when the transport offers it and SMAP_RMA_NET_RMA): 1 with
 * (*rbase, *rkey) to publish, else 0.  Released by net_unregister. */
int smap_rma_net_expose(struct MPI_ABI_Win *w, uint64_t *rbase, uint64_t *rkey);
/* smap_rma_am_call for a remote target. */
int smap_rma_net_call(struct MPI_ABI_Win *w, int target, int kind, uintptr_t addr, size_t len,
                      MPI_Op op, MPI_Datatype type, const void *in, size_t inlen, void *out,
                      size_t outlen);
/* What an operation or flush does while the progress hook is set: serve
 * our mailboxes and, with peers on other nodes, poll the transport (their
 * requests arrive there; a program spinning on one-sided calls alone must
 * still serve them). */
static inline void smap_rma_poll(void)
{
    if (atomic_load_explicit(&smap_rma_net_live, memory_order_relaxed))
        smap_p2p_progress();
    else
        smap_rma_am_serve();
}
/* Moves (count, tt) at taddr of a remote target, block by block of that
 * layout, many blocks a message: put (in: packed origin stream), get (out),
 * accumulate (in, NULL for MPI_NO_OP; et: the element type), get_accumulate
 * (in and out). */
#define SMAP_RMA_NET_MAXSEG 64
int smap_rma_net_xfer(struct MPI_ABI_Win *w, int target, int kind, MPI_Op op, smap_dtype_t *et,
                      uintptr_t taddr, MPI_Count count, smap_dtype_t *tt, const char *in,
                      char *out);
/* Dynamic windows between nodes by RDMA (remote.c).  An origin caches the
 * keys of the target's regions it fetched (N_KEY round trip); the target
 * registers a region on the first request for it, and on detach sends
 * N_INVAL to every rank it gave a key, then deregisters. */
#define SMAP_RMA_DKEYS 16
struct smap_rma_dkey {
    uint64_t base, size;   /* the region, in the target's address space */
    uint64_t rbase, rkey;  /* its registration (rdma), else messages */
    int rdma;
};
/* Our own attached region holding all of [addr, addr+len): 1 with *d, else
 * 0 (the owner's view: no concurrent change). */
int smap_rma_dyn_own(struct MPI_ABI_Win *w, uintptr_t addr, size_t len, struct smap_rma_dyn *d);
/* Regions of a dynamic window registered for RDMA at once (remote.c);
 * origins reach the others by messages. */
#define SMAP_RMA_DYN_MR 64
struct smap_rma_dyn_mr {
    uint64_t base, size, rbase, rkey;
    void *mr;              /* NULL: slot free */
};
/* Our region at base is being detached: tell the origins, deregister. */
void smap_rma_net_detach(struct MPI_ABI_Win *w, uintptr_t base);
/* Serves the queued requests from other nodes (from smap_rma_am_serve). */
void smap_rma_net_serve(void);
/* One-way synchronisation messages to a remote rank of the window. */
enum { SMAP_RMA_NET_POST, SMAP_RMA_NET_DONE, SMAP_RMA_NET_FENCE };
void smap_rma_net_signal(struct MPI_ABI_Win *w, int target, int kind, uint64_t value);
/* Waits until every put to every remote target is acknowledged. */
int smap_rma_net_flush_all(struct MPI_ABI_Win *w);

/* The node backend (node.c). */
extern const struct smap_rma_ops smap_rma_node_ops;
/* Calls fn for every dense block of (count, t) at addr, in type-map order,
 * with the block's offset in the packed stream. */
typedef int smap_rma_block_fn(void *ctx, uintptr_t addr, size_t len, size_t off);
int smap_rma_each_block(uintptr_t addr, MPI_Count count, smap_dtype_t *t, smap_rma_block_fn *fn,
                        void *ctx);

/* Resolves (target, addr, len) for a dynamic window: the path to use and,
 * for DIRECT, the local address.  The range may span adjacent attached
 * regions (as MPICH allows); MPI_ERR_RMA_RANGE when some of it is not
 * attached. */
int smap_rma_dyn_resolve(struct MPI_ABI_Win *w, int target, uintptr_t addr, size_t len,
                         int *path, char **local, int *atomics);

#endif
