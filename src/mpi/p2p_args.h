/* The arguments of point-to-point calls that are not the measured fast
 * paths (p2p_args.c): persistent and partitioned requests. */
#ifndef SMAP_MPI_P2P_ARGS_H
#define SMAP_MPI_P2P_ARGS_H

#include <mpi.h>

#include "base/compiler.h"
#include "dtype/dtype.h"
#include "dtype/engine.h"
#include "mpi/comm.h"

/* The group the peers of c's point-to-point belong to: c's group, or the
 * remote group of an intercommunicator (src/mpi/intercomm.h: ranks name
 * remote members there, while the source a receiver sees is the sender's
 * rank in its own group, c->rank, as MPI wants).  Inline: the send and
 * receive entry points (binding/p2p_common.h) use it on their fast path. */
static inline const struct MPI_ABI_Group *smap_p2p_peers(const struct MPI_ABI_Comm *c)
{
    return SMAP_UNLIKELY(c->remote_group != NULL) ? c->remote_group : c->group;
}

/* Whether buf/count/t is bad: NULL is MPI_BOTTOM, fine with a derived type
 * of absolute addresses, an error with a predefined one; counts whose byte
 * size overflows are bad too.  Inline for the same fast path. */
static inline int smap_p2p_bad_buffer(const void *buf, MPI_Count count, const smap_dtype_t *t)
{
    MPI_Count bytes;
    if (smap_mul_overflow_i64(count, smap_dtype_size(t), &bytes))
        return 1;
    return !buf && count > 0 && (t->flags & SMAP_DT_PREDEF) && smap_dtype_size(t) > 0;
}

/* count >= 0, a committed datatype (*t), the buffer, the peer (recv: also
 * MPI_ANY_SOURCE) and tag (recv: also MPI_ANY_TAG) of c. */
int smap_p2p_args(const struct MPI_ABI_Comm *c, const void *buf, MPI_Count count,
                  MPI_Datatype datatype, int peer, int tag, int recv, smap_dtype_t **t);
/* *lr: the route to peer (p2p.h: a node-local rank, or a remote one; 0
 * for MPI_PROC_NULL and MPI_ANY_SOURCE); MPI_ERR_UNSUPPORTED_OPERATION
 * when no transport reaches it, or (node_only: partitioned requests, whose
 * protocol has not been tried across nodes) when it is on another node. */
int smap_p2p_route(const struct MPI_ABI_Comm *c, int peer, int node_only, int *lr);

#endif
