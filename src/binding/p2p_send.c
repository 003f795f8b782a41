/* The send entry points: standard, synchronous, ready and buffered modes,
 * blocking and nonblocking, with their large-count twins (the buffers of
 * buffered sends: gen/buffer.c). */
#include "binding/p2p_common.h"

/* Every send: req NULL for the blocking forms. */
SMAP_HOT static int send_common(const char *func, const void *buf, MPI_Count count, MPI_Datatype datatype,
                       int dest, int tag, MPI_Comm comm, int mode, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *t;
    P2P_CHECK_BUF(func, comm, c, buf, count, datatype, t);
    P2P_CHECK_DEST(func, comm, c, dest, tag);
    int lr = 0;
    if (SMAP_UNLIKELY(dest == MPI_PROC_NULL)) {
        if (!req)
            return MPI_SUCCESS;
    } else if (SMAP_UNLIKELY((lr = p2p_peer_lr(c, dest)) == SMAP_P2P_NO_ROUTE)) {
        return p2p_offnode_error(func, comm, dest);
    }
    if (!req) {
        smap_p2p_send(buf, count, t, dest, lr, c->rank, tag, c->ctx, mode);
        return MPI_SUCCESS;
    }
    struct MPI_ABI_Request *r = p2p_new_req(comm, t);
    if (SMAP_UNLIKELY(!r))
        return p2p_nomem(func, comm);
    if (dest == MPI_PROC_NULL)
        smap_p2p_null(&r->p, SMAP_PREQ_SEND);
    else
        smap_p2p_isend(&r->p, buf, count, t, dest, lr, c->rank, tag, c->ctx, mode);
    *req = (MPI_Request)r;
    return MPI_SUCCESS;
}

SMAP_HOT int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_common("MPI_Send", buf, count, datatype, dest, tag, comm, SMAP_P2P_STANDARD, NULL);
}

int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm)
{
    return send_common("MPI_Send_c", buf, count, datatype, dest, tag, comm, SMAP_P2P_STANDARD, NULL);
}

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_common("MPI_Ssend", buf, count, datatype, dest, tag, comm, SMAP_P2P_SYNC, NULL);
}

int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return send_common("MPI_Ssend_c", buf, count, datatype, dest, tag, comm, SMAP_P2P_SYNC, NULL);
}

/* Ready mode: the receive is posted already (the user's promise); the
 * standard protocol is correct for it. */
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_common("MPI_Rsend", buf, count, datatype, dest, tag, comm, SMAP_P2P_READY, NULL);
}

int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return send_common("MPI_Rsend_c", buf, count, datatype, dest, tag, comm, SMAP_P2P_READY, NULL);
}

SMAP_HOT int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Isend", comm, request);
    return send_common("MPI_Isend", buf, count, datatype, dest, tag, comm, SMAP_P2P_STANDARD,
                       request);
}

int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Isend_c", comm, request);
    return send_common("MPI_Isend_c", buf, count, datatype, dest, tag, comm, SMAP_P2P_STANDARD,
                       request);
}

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Issend", comm, request);
    return send_common("MPI_Issend", buf, count, datatype, dest, tag, comm, SMAP_P2P_SYNC, request);
}

int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Issend_c", comm, request);
    return send_common("MPI_Issend_c", buf, count, datatype, dest, tag, comm, SMAP_P2P_SYNC,
                       request);
}

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Irsend", comm, request);
    return send_common("MPI_Irsend", buf, count, datatype, dest, tag, comm, SMAP_P2P_READY, request);
}

int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Irsend_c", comm, request);
    return send_common("MPI_Irsend_c", buf, count, datatype, dest, tag, comm, SMAP_P2P_READY,
                       request);
}

/* ---- buffered mode ---- */

static int bsend_common(const char *func, const void *buf, MPI_Count count, MPI_Datatype datatype,
                        int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *t;
    P2P_CHECK_BUF(func, comm, c, buf, count, datatype, t);
    P2P_CHECK_DEST(func, comm, c, dest, tag);
    int lr = 0;
    if (dest != MPI_PROC_NULL && (lr = p2p_peer_lr(c, dest)) == SMAP_P2P_NO_ROUTE)
        return p2p_offnode_error(func, comm, dest);
    if (dest != MPI_PROC_NULL) {
        const char *why = "";
        int rc = smap_bsend(comm, buf, count, t, dest, lr, c->rank, tag, c->ctx, &why);
        if (rc != MPI_SUCCESS)
            return smap_err_raise(comm, rc, func, "%s", why);
    }
    if (req) {
        /* The data is in the attached buffer: the request is complete. */
        struct MPI_ABI_Request *r = p2p_new_req(comm, t);
        if (!r)
            return p2p_nomem(func, comm);
        smap_p2p_null(&r->p, SMAP_PREQ_SEND);
        *req = (MPI_Request)r;
    }
    return MPI_SUCCESS;
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return bsend_common("MPI_Bsend", buf, count, datatype, dest, tag, comm, NULL);
}

int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return bsend_common("MPI_Bsend_c", buf, count, datatype, dest, tag, comm, NULL);
}

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Ibsend", comm, request);
    return bsend_common("MPI_Ibsend", buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Ibsend_c", comm, request);
    return bsend_common("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm, request);
}
