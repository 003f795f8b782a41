/* Persistent requests: MPI_Send_init and friends record their arguments;
 * MPI_Start / MPI_Startall (request.c) begin one operation with them. */
#include "binding/p2p_common.h"

static int init_common(const char *func, const void *buf, MPI_Count count, MPI_Datatype datatype,
                       int peer, int tag, MPI_Comm comm, int mode, int recv, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *t;
    P2P_CHECK_BUF(func, comm, c, buf, count, datatype, t);
    if (recv)
        P2P_CHECK_SOURCE(func, comm, c, peer, tag);
    else
        P2P_CHECK_DEST(func, comm, c, peer, tag);
    SMAP_CHECK_ARG(func, comm, req, "request");
    int lr = 0;
    if (peer >= 0 && (lr = p2p_peer_lr(c, peer)) == SMAP_P2P_NO_ROUTE)
        return p2p_offnode_error(func, comm, peer);
    struct MPI_ABI_Request *r = p2p_new_req(comm, t);
    if (!r)
        return p2p_nomem(func, comm);
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

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Send_init", buf, count, datatype, dest, tag, comm, SMAP_P2P_STANDARD, 0, request);
}

int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Send_init_c", buf, count, datatype, dest, tag, comm, SMAP_P2P_STANDARD, 0, request);
}

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Ssend_init", buf, count, datatype, dest, tag, comm, SMAP_P2P_SYNC, 0, request);
}

int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Ssend_init_c", buf, count, datatype, dest, tag, comm, SMAP_P2P_SYNC, 0, request);
}

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Rsend_init", buf, count, datatype, dest, tag, comm, SMAP_P2P_READY, 0, request);
}

int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Rsend_init_c", buf, count, datatype, dest, tag, comm, SMAP_P2P_READY, 0, request);
}

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Bsend_init", buf, count, datatype, dest, tag, comm, SMAP_REQ_BUFFERED, 0, request);
}

int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Bsend_init_c", buf, count, datatype, dest, tag, comm, SMAP_REQ_BUFFERED, 0, request);
}

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Recv_init", buf, count, datatype, source, tag, comm, 0, 1, request);
}

int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Recv_init_c", buf, count, datatype, source, tag, comm, 0, 1, request);
}
