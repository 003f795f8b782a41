/* The arguments of point-to-point calls that are not the measured fast
 * paths (p2p_args.c): persistent and partitioned requests. */
#ifndef SMAP_MPI_P2P_ARGS_H
#define SMAP_MPI_P2P_ARGS_H

#include <mpi.h>

#include "dtype/dtype.h"

struct MPI_ABI_Comm;

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
