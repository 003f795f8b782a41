/* One-sided communication with targets on other nodes (DESIGN.md D12):
 * puts and gets of fixed-layout windows by RDMA write/read into the
 * target's registered window when the transport offers it (see "RDMA"
 * below), everything else as active messages served by the target's
 * progress, over src/p2p's transport messages (a message kind of their
 * own: they never meet MPI matching, whatever the communicator's contexts
 * and tags).
 *
 * The origin side is node.c's mailbox path: a remote target's path is
 * SMAP_RMA_AM, so the origin data is packed once there, and the blocks of
 * the target layout come here (smap_rma_net_xfer) instead of into a
 * mailbox: consecutive blocks share a message (at most 64 segments and
 * what the transport's room holds; accumulates in whole elements), and
 * compare-and-swap is one message (smap_rma_net_call).  Gets, accumulates
 * and compare-and-swap wait for their answers
 * (so accumulates from one origin stay in order, and results are there on
 * return); puts to windows with a fixed layout do not: each piece is
 * acknowledged and a flush (unlock, fence, complete) waits until every put
 * to that target is acknowledged, which is remote completion.  A put is
 * complete locally on return (the transport copies the message).
 *
 * The target queues requests as they arrive (the transport's upcall may
 * not block) and runs them from smap_rma_am_serve, reached from every
 * progress round (smap_p2p_progress_rma) and every one-sided wait, on its
 * own memory through node.c's functions with itself as target: an
 * accumulate takes exactly the path (C11 atomic per element, or the
 * accumulate lock) that node peers take on that memory, so element
 * atomicity and ordering hold between origins on every node, and a
 * dynamic window's range is checked against its attach table there.
 *
 * Synchronisation: a lock request tries the target's lock word (the same
 * word node peers take) and answers granted or busy; the origin retries,
 * an exclusive request having registered as a waiting writer on its first
 * try, as node_lock does.  Fence, post and complete send one message per
 * remote peer (FENCE n into the peer's net_fence array; POST and DONE add
 * to the same control-block counters node peers add to), after flushing
 * the puts they must follow.
 *
 * The three roles live in their own files: remote_target.c (the
 * transport's upcall, the windows whose requests we serve, serving them),
 * remote_origin.c (requests and their answers, locks, flushes) and
 * remote_rdma.c (RDMA into registered windows, dynamic windows' region
 * keys, the per-target ops table).  This header is the wire they share. */
#ifndef SMAP_RMA_REMOTE_H
#define SMAP_RMA_REMOTE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "rma/internal.h"

enum { N_LOCK = 8, N_UNLOCK, N_POST, N_DONE, N_FENCE, N_KEY, N_INVAL, N_REPLY = 16 };
enum { F_PUTACK = 1, F_EXCL = 2, F_FIRST = 4, F_GRANTED = 8 };

struct nmsg {
    uint32_t kind, flags;
    int32_t from;          /* the sender's rank in the window's group */
    int32_t rc;            /* reply: MPI error class */
    uint64_t win;          /* the target's control block address: names its window there */
    uint64_t cookie;       /* the origin's wait record, echoed by the reply */
    uint64_t addr, len;    /* CAS: target address, bytes; FENCE: the fence number;
                              data requests: len bytes in all, over nseg segments */
    uint64_t nseg;         /* data requests: (address, bytes) pairs before the data */
    uint64_t off;          /* where the answer goes in the origin's buffer */
    uint64_t op, type;     /* accumulates: predefined handles, equal in every process */
};

/* An origin waiting for the answers to its pieces. */
struct call {
    _Atomic long left;
    int rc, granted;
    char *out;
};

/* The bytes one element of basic type et covers in an accumulate's
 * segment: its size, or its true extent when it has a hole inside
 * (MPI_SHORT_INT: node.c sends such elements one by one, in their own
 * layout). */
static inline size_t elem_span(const smap_dtype_t *et)
{
    return et->true_extent > et->size ? (size_t)et->true_extent : (size_t)et->size;
}

/* ---- remote_origin.c, for the other roles ---- */
/* Sends request m (and dlen bytes of data) to target's window. */
void smap_rma_remote_send(struct MPI_ABI_Win *w, int target, struct nmsg *m, const void *data,
                          size_t dlen);
/* Waits until every answer of c came; MPI_SUCCESS or a failure class. */
int smap_rma_remote_wait(struct call *c);
/* The per-target operations of the message path (smap_rma_net_ops). */
int smap_rma_remote_flush(MPI_Win h, int target);
int smap_rma_remote_lock(MPI_Win h, int target, int type);
int smap_rma_remote_unlock(MPI_Win h, int target, int type);

#endif
