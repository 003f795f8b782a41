/* Persistent point-to-point requests (MPI 5.0 §3.9) and partitioned ones
 * (§4.2) as the entry points make them: MPI_Send_init and friends check
 * their arguments (p2p_args.c) and record them in an inactive request;
 * MPI_Psend_init / MPI_Precv_init hand theirs to partitioned.c's protocol.
 * MPI_Start begins one operation (smap_req_start, request.c). */
#include "base/compiler.h"
#include "base/why.h"
#include "mpi/comm.h"
#include "mpi/info.h"
#include "mpi/p2p_args.h"
#include "mpi/request.h"

/* A new request on c holding a reference on t. */
static struct MPI_ABI_Request *new_req(struct MPI_ABI_Comm *c, smap_dtype_t *t)
{
    struct MPI_ABI_Request *r = smap_req_new(c->handle);   /* the handle: a predefined one holds no reference */
    if (r) {
        if (!(t->flags & SMAP_DT_PREDEF))
            smap_dtype_retain(t);
        r->p.dt = t;
    }
    return r;
}

int smap_persist_init(struct MPI_ABI_Comm *c, const void *buf, MPI_Count count,
                      MPI_Datatype datatype, int peer, int tag, int mode, int recv,
                      MPI_Request *req)
{
    smap_dtype_t *t;
    int lr, rc = smap_p2p_args(c, buf, count, datatype, peer, tag, recv, &t);
    if (!rc)
        rc = smap_p2p_route(c, peer, 0, &lr);
    if (rc)
        return rc;
    struct MPI_ABI_Request *r = new_req(c, t);
    if (!r)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for a request");
    r->persist = recv ? SMAP_REQ_PRECV : SMAP_REQ_PSEND;
    smap_req_set_active(r, 0);
    r->proc_null = peer == MPI_PROC_NULL;
    r->pbuf = buf;
    r->pcount = count;
    r->prank = peer;
    r->plr = lr;
    r->pme = c->rank;
    r->ptag = tag;
    r->pctx = c->ctx;
    r->pmode = mode;
    r->p.kind = recv ? SMAP_PREQ_RECV : SMAP_PREQ_SEND;
    *req = (MPI_Request)r;
    return MPI_SUCCESS;
}

int smap_part_init_checked(struct MPI_ABI_Comm *c, const void *buf, int partitions,
                           MPI_Count count, MPI_Datatype datatype, int peer, int tag,
                           MPI_Info info, int send, MPI_Request *req)
{
    if (partitions < 0)
        return smap_failf(MPI_ERR_ARG, "partitions %d is negative", partitions);
    MPI_Count total;
    if (count < 0 || smap_mul_overflow_i64(count, (MPI_Count)partitions, &total))
        return smap_failf(MPI_ERR_COUNT, "count %lld is negative or overflows", (long long)count);
    smap_dtype_t *t;
    int rc = smap_p2p_args(c, buf, total, datatype, peer, tag, !send, &t);
    if (rc)
        return rc;
    if (!send && (peer == MPI_ANY_SOURCE || tag == MPI_ANY_TAG))
        return smap_fail(peer == MPI_ANY_SOURCE ? MPI_ERR_RANK : MPI_ERR_TAG,
                         "a partitioned receive takes no MPI_ANY_SOURCE or MPI_ANY_TAG");
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_fail(MPI_ERR_INFO, "info is not a valid info object");
    int lr;
    if ((rc = smap_p2p_route(c, peer, 1, &lr)))
        return rc;
    struct MPI_ABI_Request *r = new_req(c, t);
    if (!r)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for a request");
    rc = smap_part_init(r, send, buf, partitions, count, peer, lr, c->rank, tag, c->ctx);
    if (rc != MPI_SUCCESS) {
        smap_req_free(r);
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for a request");
    }
    *req = (MPI_Request)r;
    return MPI_SUCCESS;
}
