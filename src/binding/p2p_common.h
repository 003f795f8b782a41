/* Argument checks and request set-up shared by the point-to-point entry
 * points (p2p_send.c, p2p_recv.c, p2p_probe.c, request.c).  Errors go through the
 * communicator's handler. */
#ifndef SMAP_BINDING_P2P_COMMON_H
#define SMAP_BINDING_P2P_COMMON_H

#include <limits.h>
#include <mpi.h>

#include "binding/check.h"
#include "mpi/args.h"
#include "boot/boot.h"
#include "dtype/engine.h"
#include "mpi/group.h"
#include "mpi/p2p_args.h"
#include "mpi/request.h"
#include "p2p/p2p.h"
#include "smap/smap.h"

/* A non-blocking entry point's request pointer, checked before the shared
 * code, where a NULL request means the blocking form. */
#define P2P_CHECK_REQ(func, comm, request)                                                  \
    do {                                                                                   \
        SMAP_CHECK_RUNNING(func);                                                          \
        SMAP_CHECK_PTR(func, comm, request);                                               \
    } while (0)

/* Communicator, count, datatype and buffer of a send or receive. */
#define P2P_CHECK_BUF(func, comm, c, buf, count, datatype, t)                               \
    do {                                                                                    \
        SMAP_CHECK_RUNNING(func);                                                           \
        SMAP_CHECK_COMM(func, comm, c);                                                     \
        if (SMAP_UNLIKELY((count) < 0))                                                     \
            return smap_err_raise(comm, MPI_ERR_COUNT, func, "count %lld is negative",      \
                                  (long long)(count));                                      \
        SMAP_CHECK_DTYPE_COMMITTED(func, comm, datatype, t);                                \
        if (SMAP_UNLIKELY(smap_p2p_bad_buffer(buf, count, t)))                                   \
            return p2p_buffer_error(func, comm, buf, count, t);                             \
    } while (0)

static SMAP_COLD __attribute__((unused)) int p2p_buffer_error(const char *func, MPI_Comm comm, const void *buf,
                                      MPI_Count count, smap_dtype_t *t)
{
    if (buf || !(t->flags & SMAP_DT_PREDEF))
        return smap_err_raise(comm, MPI_ERR_COUNT, func,
                              "count %lld times the datatype size overflows", (long long)count);
    return smap_err_raise(comm, MPI_ERR_BUFFER, func, "buffer is NULL with count %lld",
                          (long long)count);
}

/* The node-local rank behind rank `rank` of c (a real rank), or an error:
 * through c's peer group, whose members are job ranks. */
static inline int p2p_peer_lr(struct MPI_ABI_Comm *c, int rank)
{
    return smap_p2p_local_rank(smap_group_world_rank(smap_p2p_peers(c), rank));
}

static SMAP_COLD __attribute__((unused)) int p2p_offnode_error(const char *func, MPI_Comm comm, int rank)
{
    return smap_err_raise(comm, MPI_ERR_UNSUPPORTED_OPERATION, func,
                          "rank %d is on another node and this build has no inter-node "
                          "transport yet (the libfabric network layer, src/net): only ranks "
                          "on the same node can communicate",
                          rank);
}

static SMAP_COLD __attribute__((unused)) int p2p_rank_error(const char *func, MPI_Comm comm, const char *what, int rank,
                                    int size)
{
    return smap_err_raise(comm, MPI_ERR_RANK, func, "%s %d is not in [0, %d) nor MPI_PROC_NULL%s",
                          what, rank, size,
                          what[0] == 's' ? " nor MPI_ANY_SOURCE" : "");
}

/* Destination of a send: MPI_PROC_NULL or a rank of c. */
#define P2P_CHECK_DEST(func, comm, c, dest, tag)                                            \
    do {                                                                                    \
        if (SMAP_UNLIKELY((dest) != MPI_PROC_NULL &&                                       \
                          ((unsigned)(dest) >= (unsigned)smap_p2p_peers(c)->size)))        \
            return p2p_rank_error(func, comm, "destination", dest, smap_p2p_peers(c)->size); \
        if (SMAP_UNLIKELY((tag) < 0))                                                       \
            return smap_err_raise(comm, MPI_ERR_TAG, func,                                  \
                                  "tag %d is not in [0, MPI_TAG_UB=%d]", tag, INT_MAX);     \
    } while (0)

/* Source of a receive: also MPI_ANY_SOURCE / MPI_ANY_TAG. */
#define P2P_CHECK_SOURCE(func, comm, c, source, tag)                                        \
    do {                                                                                    \
        if (SMAP_UNLIKELY((source) != MPI_PROC_NULL && (source) != MPI_ANY_SOURCE &&       \
                          (unsigned)(source) >= (unsigned)smap_p2p_peers(c)->size))        \
            return p2p_rank_error(func, comm, "source", source, smap_p2p_peers(c)->size);  \
        if (SMAP_UNLIKELY((tag) < 0 && (tag) != MPI_ANY_TAG))                              \
            return smap_err_raise(comm, MPI_ERR_TAG, func,                                  \
                                  "tag %d is not in [0, MPI_TAG_UB=%d] nor MPI_ANY_TAG", tag, \
                                  INT_MAX);                                                 \
    } while (0)

static SMAP_COLD __attribute__((unused)) int p2p_nomem(const char *func, MPI_Comm comm)
{
    return smap_err_raise(comm, MPI_ERR_NO_MEM, func, "%s", "out of memory for a request");
}

/* Raises a completed request's error (truncation) on its communicator. */
static SMAP_COLD __attribute__((unused)) int p2p_request_error(const char *func, MPI_Comm comm, int err)
{
    return smap_req_raise(func, comm, err);
}

/* The start of every nonblocking send/receive: a request with a reference
 * on the datatype. */
static inline struct MPI_ABI_Request *p2p_new_req(MPI_Comm comm, smap_dtype_t *t)
{
    struct MPI_ABI_Request *r = smap_req_new(comm);
    if (SMAP_LIKELY(r != NULL)) {
        if (!(t->flags & SMAP_DT_PREDEF))
            smap_dtype_retain(t);
        r->p.dt = t;
    }
    return r;
}

#endif
