/* Probing: MPI_Probe / MPI_Iprobe look at the unexpected queue without
 * receiving; MPI_Mprobe / MPI_Improbe take the matched message out of it so
 * that only MPI_Mrecv / MPI_Imrecv with the returned handle can receive
 * it.  A message handle is the unexpected entry itself. */
#include "binding/p2p_common.h"

static int probe_args(const char *func, int source, int tag, MPI_Comm comm,
                      struct MPI_ABI_Comm **c)
{
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_COMM(func, comm, *c);
    P2P_CHECK_SOURCE(func, comm, *c, source, tag);
    if (source >= 0 && p2p_peer_lr(*c, source) == SMAP_P2P_NO_ROUTE)
        return p2p_offnode_error(func, comm, source);
    return MPI_SUCCESS;
}

/* What a probe saw: the matched message's envelope (copied while the
 * message was still queued: another thread may receive it right after). */
struct seen {
    int src, tag;
    size_t len;
    struct smap_p2p_msg *taken;   /* remove: the message, now ours */
};

/* One attempt: progress, then look.  Returns whether a message matched. */
static int probe_once(struct MPI_ABI_Comm *c, int source, int tag, int remove, struct seen *s)
{
    return smap_p2p_iprobe(c->ctx, source, tag, remove, &s->src, &s->tag, &s->len,
                           remove ? &s->taken : NULL);
}

static int probe(const char *func, int source, int tag, MPI_Comm comm, int *flag,
                 MPI_Message *message, MPI_Status *status, int blocking)
{
    struct MPI_ABI_Comm *c = NULL;
    int rc = probe_args(func, source, tag, comm, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (flag)
        SMAP_CHECK_PTR(func, comm, flag);
    if (source == MPI_PROC_NULL) {
        if (flag)
            *flag = 1;
        if (message)
            *message = MPI_MESSAGE_NO_PROC;
        if (status != MPI_STATUS_IGNORE)
            smap_status_fill(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
        return MPI_SUCCESS;
    }
    int remove = message != NULL;
    struct seen s = { 0, 0, 0, NULL };
    int found = probe_once(c, source, tag, remove, &s);
    if (!found && blocking) {
        struct smap_waiter w;
        smap_wait_init(&w, smap_nlocal);
        while (!(found = probe_once(c, source, tag, remove, &s)))
            smap_wait_step(&w);
    }
    if (flag)
        *flag = found;
    if (!found) {
        if (message)
            *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    if (status != MPI_STATUS_IGNORE)
        smap_status_fill(status, s.src, s.tag, (MPI_Count)s.len);
    if (message)
        *message = (MPI_Message)(void *)s.taken;
    return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe("MPI_Probe", source, tag, comm, NULL, NULL, status, 1);
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    SMAP_CHECK_PTR("MPI_Iprobe", MPI_COMM_NULL, flag);
    return probe("MPI_Iprobe", source, tag, comm, flag, NULL, status, 0);
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    SMAP_CHECK_PTR("MPI_Mprobe", MPI_COMM_NULL, message);
    return probe("MPI_Mprobe", source, tag, comm, NULL, message, status, 1);
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    SMAP_CHECK_PTR("MPI_Improbe", MPI_COMM_NULL, flag);
    SMAP_CHECK_PTR("MPI_Improbe", MPI_COMM_NULL, message);
    return probe("MPI_Improbe", source, tag, comm, flag, message, status, 0);
}

/* The receive of a matched message; req NULL: blocking. */
static int mrecv(const char *func, void *buf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Message *message, MPI_Status *status, MPI_Request *req)
{
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, message);
    if (count < 0)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_COUNT, func, "count %lld is negative",
                              (long long)count);
    smap_dtype_t *t;
    SMAP_CHECK_DTYPE_COMMITTED(func, MPI_COMM_NULL, datatype, t);
    if (smap_p2p_bad_buffer(buf, count, t))
        return p2p_buffer_error(func, MPI_COMM_NULL, buf, count, t);
    MPI_Message h = *message;
    if (h == MPI_MESSAGE_NULL || (h != MPI_MESSAGE_NO_PROC && !smap_plausible_object(h, 8)))
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_REQUEST, func, "%s",
                              "message is not a handle returned by MPI_Mprobe/MPI_Improbe");
    *message = MPI_MESSAGE_NULL;
    /* The communicator of the probe (its handler reports truncation). */
    struct smap_p2p_msg *m = h == MPI_MESSAGE_NO_PROC ? NULL : (struct smap_p2p_msg *)(void *)h;
    MPI_Comm comm = m && m->ctx == 1 ? MPI_COMM_SELF : MPI_COMM_WORLD;
    if (!req) {
        if (!m) {
            if (status != MPI_STATUS_IGNORE)
                smap_status_fill(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
            return MPI_SUCCESS;
        }
        struct smap_preq p;
        smap_p2p_mrecv(&p, buf, count, t, m);
        smap_p2p_wait(&p);
        smap_preq_status(&p, status);
        return p.err == MPI_SUCCESS ? MPI_SUCCESS : p2p_request_error(func, comm, p.err);
    }
    struct MPI_ABI_Request *r = p2p_new_req(comm, t);
    if (!r)
        return p2p_nomem(func, comm);
    if (m)
        smap_p2p_mrecv(&r->p, buf, count, t, m);
    else
        smap_p2p_null(&r->p, SMAP_PREQ_RECV);
    *req = (MPI_Request)r;
    return MPI_SUCCESS;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    return mrecv("MPI_Mrecv", buf, count, datatype, message, status, NULL);
}

int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status)
{
    return mrecv("MPI_Mrecv_c", buf, count, datatype, message, status, NULL);
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Imrecv", MPI_COMM_NULL, request);
    return mrecv("MPI_Imrecv", buf, count, datatype, message, MPI_STATUS_IGNORE, request);
}

int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Request *request)
{
    P2P_CHECK_REQ("MPI_Imrecv_c", MPI_COMM_NULL, request);
    return mrecv("MPI_Imrecv", buf, count, datatype, message, MPI_STATUS_IGNORE, request);
}
