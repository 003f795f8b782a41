/* The arguments of a point-to-point call as an entry point received them,
 * for the calls that are not the measured fast paths (persistent and
 * partitioned requests; the blocking and non-blocking sends and receives
 * check the same rules inline, binding/p2p_common.h): count, datatype,
 * buffer, peer, tag, and the peer's route.  MPI_SUCCESS or a class with
 * smap_why() saying why. */
#include <limits.h>

#include "base/compiler.h"
#include "base/why.h"
#include "mpi/comm.h"
#include "mpi/group.h"
#include "mpi/p2p_args.h"
#include "p2p/p2p.h"

/* Which of the two rules smap_p2p_bad_buffer applies failed, said. */
static SMAP_COLD int buffer_error(const void *buf, MPI_Count count, const smap_dtype_t *t)
{
    if (buf || !(t->flags & SMAP_DT_PREDEF))
        return smap_failf(MPI_ERR_COUNT, "count %lld times the datatype size overflows",
                          (long long)count);
    return smap_failf(MPI_ERR_BUFFER, "buffer is NULL with count %lld", (long long)count);
}

static int peer_arg(const struct MPI_ABI_Comm *c, int peer, int tag, int recv)
{
    int n = smap_p2p_peers(c)->size;
    if (peer != MPI_PROC_NULL && !(recv && peer == MPI_ANY_SOURCE) && (unsigned)peer >= (unsigned)n)
        return smap_failf(MPI_ERR_RANK, "%s %d is not in [0, %d) nor MPI_PROC_NULL%s",
                          recv ? "source" : "destination", peer, n,
                          recv ? " nor MPI_ANY_SOURCE" : "");
    if (tag < 0 && !(recv && tag == MPI_ANY_TAG))
        return smap_failf(MPI_ERR_TAG, "tag %d is not in [0, MPI_TAG_UB=%d]%s", tag, INT_MAX,
                          recv ? " nor MPI_ANY_TAG" : "");
    return MPI_SUCCESS;
}

int smap_p2p_args(const struct MPI_ABI_Comm *c, const void *buf, MPI_Count count,
                  MPI_Datatype datatype, int peer, int tag, int recv, smap_dtype_t **t)
{
    if (SMAP_UNLIKELY(count < 0))
        return smap_failf(MPI_ERR_COUNT, "count %lld is negative", (long long)count);
    *t = smap_dtype_get(datatype);
    if (!*t)
        return smap_fail(MPI_ERR_TYPE, datatype == MPI_DATATYPE_NULL
                                           ? "datatype is MPI_DATATYPE_NULL"
                                           : "datatype is not a valid datatype");
    if (!smap_dtype_committed(*t))
        return smap_fail(MPI_ERR_TYPE, "datatype is not committed (MPI_Type_commit)");
    if (SMAP_UNLIKELY(smap_p2p_bad_buffer(buf, count, *t)))
        return buffer_error(buf, count, *t);
    return peer_arg(c, peer, tag, recv);
}

int smap_p2p_route(const struct MPI_ABI_Comm *c, int peer, int node_only, int *lr)
{
    *lr = 0;
    if (peer < 0)   /* MPI_PROC_NULL, MPI_ANY_SOURCE */
        return MPI_SUCCESS;
    *lr = smap_p2p_local_rank(smap_group_world_rank(smap_p2p_peers(c), peer));
    if (node_only ? *lr >= 0 : *lr != SMAP_P2P_NO_ROUTE)
        return MPI_SUCCESS;
    if (node_only)
        return smap_failf(MPI_ERR_UNSUPPORTED_OPERATION,
                          "rank %d is on another node: partitioned communication reaches "
                          "ranks of this node only", peer);
    return smap_failf(MPI_ERR_UNSUPPORTED_OPERATION,
                      "rank %d is on another node and no network engine reaches it (the job "
                      "runs without src/net)", peer);
}
