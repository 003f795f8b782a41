/* The receive entry points: MPI_Recv / MPI_Irecv, the combined
 * send-receive calls, probe and matched probe/receive, with their
 * large-count twins. */
#include <stdlib.h>

#include "binding/p2p_common.h"

/* Checks a receive's source; *lr is not needed (matching uses the rank). */
SMAP_HOT static int recv_common(const char *func, void *buf, MPI_Count count, MPI_Datatype datatype,
                       int source, int tag, MPI_Comm comm, MPI_Status *status, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *t;
    P2P_CHECK_BUF(func, comm, c, buf, count, datatype, t);
    P2P_CHECK_SOURCE(func, comm, c, source, tag);
    int lr = -1;
    if (SMAP_UNLIKELY(source >= 0 && (lr = p2p_peer_lr(c, source)) == SMAP_P2P_NO_ROUTE))
        return p2p_offnode_error(func, comm, source);
    if (!req) {
        if (SMAP_UNLIKELY(source == MPI_PROC_NULL)) {
            if (status != MPI_STATUS_IGNORE)
                smap_status_fill(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
            return MPI_SUCCESS;
        }
        struct smap_preq p;
        /* From one peer into one block: its queue alone while it spins. */
        if (!(lr >= 0 && (t->flags & SMAP_DT_PREDEF) && smap_dtype_is_contiguous(t) &&
              smap_p2p_recv_direct(&p, buf, (size_t)(count * smap_dtype_size(t)), source, lr,
                                   tag, c->ctx))) {
            smap_p2p_irecv(&p, buf, count, t, source, tag, c->ctx);
            smap_p2p_wait(&p);
        }
        smap_preq_status(&p, status);
        if (SMAP_UNLIKELY(p.err != MPI_SUCCESS))
            return p2p_request_error(func, comm, p.err);
        return MPI_SUCCESS;
    }
    struct MPI_ABI_Request *r = p2p_new_req(comm, t);
    if (SMAP_UNLIKELY(!r))
        return p2p_nomem(func, comm);
    if (source == MPI_PROC_NULL)
        smap_p2p_null(&r->p, SMAP_PREQ_RECV);
    else
        smap_p2p_irecv(&r->p, buf, count, t, source, tag, c->ctx);
    *req = (MPI_Request)r;
    return MPI_SUCCESS;
}

SMAP_HOT int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    return recv_common("MPI_Recv", buf, count, datatype, source, tag, comm, status, NULL);
}

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Status *status)
{
    return recv_common("MPI_Recv_c", buf, count, datatype, source, tag, comm, status, NULL);
}

SMAP_HOT int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Irecv", comm, request);
    return recv_common("MPI_Irecv", buf, count, datatype, source, tag, comm, MPI_STATUS_IGNORE,
                       request);
}

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Irecv_c", comm, request);
    return recv_common("MPI_Irecv_c", buf, count, datatype, source, tag, comm, MPI_STATUS_IGNORE,
                       request);
}

/* ---- send-receive ---- */

/* Both halves started nonblocking; the receive is posted first so that a
 * send to ourselves finds it. */
static int sendrecv_common(const char *func, const void *sendbuf, MPI_Count sendcount,
                           MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                           MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                           MPI_Comm comm, MPI_Status *status, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *st, *rt;
    P2P_CHECK_BUF(func, comm, c, sendbuf, sendcount, sendtype, st);
    P2P_CHECK_BUF(func, comm, c, recvbuf, recvcount, recvtype, rt);
    P2P_CHECK_DEST(func, comm, c, dest, sendtag);
    P2P_CHECK_SOURCE(func, comm, c, source, recvtag);
    int lr = 0;
    if (dest != MPI_PROC_NULL && (lr = p2p_peer_lr(c, dest)) == SMAP_P2P_NO_ROUTE)
        return p2p_offnode_error(func, comm, dest);
    if (source >= 0 && p2p_peer_lr(c, source) == SMAP_P2P_NO_ROUTE)
        return p2p_offnode_error(func, comm, source);
    struct smap_preq sp, rp, *s = &sp;
    struct MPI_ABI_Request *r = NULL;
    if (req) {
        r = p2p_new_req(comm, rt);
        s = r ? malloc(sizeof *s) : NULL;
        if (!s) {
            if (r)
                smap_req_free(r);
            return p2p_nomem(func, comm);
        }
        r->extra = s;
    }
    struct smap_preq *rq = r ? &r->p : &rp;
    if (source == MPI_PROC_NULL)
        smap_p2p_null(rq, SMAP_PREQ_RECV);
    else
        smap_p2p_irecv(rq, recvbuf, recvcount, rt, source, recvtag, c->ctx);
    if (dest == MPI_PROC_NULL)
        smap_p2p_null(s, SMAP_PREQ_SEND);
    else
        smap_p2p_isend(s, sendbuf, sendcount, st, dest, lr, c->rank, sendtag, c->ctx,
                       SMAP_P2P_STANDARD);
    if (req) {
        /* The send half keeps its datatype alive through the request. */
        smap_dtype_retain(st);
        r->udt = st;
        *req = (MPI_Request)r;
        return MPI_SUCCESS;
    }
    smap_p2p_wait(&rp);
    smap_p2p_wait(&sp);
    smap_preq_status(&rp, status);
    if (rp.err != MPI_SUCCESS)
        return p2p_request_error(func, comm, rp.err);
    return MPI_SUCCESS;
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_common("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                           recvcount, recvtype, source, recvtag, comm, status, NULL);
}

int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_common("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                           recvcount, recvtype, source, recvtag, comm, status, NULL);
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                   int recvtag, MPI_Comm comm, MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Isendrecv", comm, request);
    return sendrecv_common("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                           recvcount, recvtype, source, recvtag, comm, MPI_STATUS_IGNORE, request);
}

int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Isendrecv_c", comm, request);
    return sendrecv_common("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag,
                           recvbuf, recvcount, recvtype, source, recvtag, comm, MPI_STATUS_IGNORE,
                           request);
}

/* The message is received as packed bytes into a temporary buffer while
 * the send reads the user's buffer, then unpacked over it. */
static int replace_common(const char *func, void *buf, MPI_Count count, MPI_Datatype datatype,
                          int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                          MPI_Status *status, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *t;
    P2P_CHECK_BUF(func, comm, c, buf, count, datatype, t);
    size_t bytes = (size_t)(count * smap_dtype_size(t));
    void *tmp = malloc(bytes ? bytes : 1);
    if (!tmp)
        return p2p_nomem(func, comm);
    MPI_Request inner = MPI_REQUEST_NULL;
    MPI_Status local;
    smap_status_set_empty(&local);
    int rc = sendrecv_common(func, buf, count, datatype, dest, sendtag, tmp, (MPI_Count)bytes,
                             MPI_BYTE, source, recvtag, comm, &local, req ? &inner : NULL);
    if (req) {
        if (rc != MPI_SUCCESS) {
            free(tmp);
            return rc;
        }
        struct MPI_ABI_Request *r = (struct MPI_ABI_Request *)inner;
        r->tmp = tmp;
        r->ubuf = buf;
        r->ucount = count;
        /* udt already holds the send type (t): the same type unpacks. */
        *req = inner;
        return MPI_SUCCESS;
    }
    MPI_Count got = smap_status_bytes(&local);
    if (got)
        smap_dtype_unpack(tmp, got, buf, count, t, 0);
    free(tmp);
    if (status != MPI_STATUS_IGNORE)
        *status = local;
    return rc;
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return replace_common("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, source,
                          recvtag, comm, status, NULL);
}

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return replace_common("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag, source,
                          recvtag, comm, status, NULL);
}

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Isendrecv_replace", comm, request);
    return replace_common("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag, source,
                          recvtag, comm, MPI_STATUS_IGNORE, request);
}

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Isendrecv_replace_c", comm, request);
    return replace_common("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag, source,
                          recvtag, comm, MPI_STATUS_IGNORE, request);
}
