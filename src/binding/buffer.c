/* MPI 4.1 buffers of buffered sends beyond MPI_Buffer_attach/detach
 * (p2p_send.c): a communicator's own buffer (MPI_Comm_attach_buffer,
 * MPI_Comm_detach_buffer) and the flushes (MPI_Buffer_flush/iflush,
 * MPI_Comm_flush_buffer/iflush_buffer) and a session's (the MPI_Session_*
 * twins: used by the communicators derived from the session that have no
 * buffer of their own).  The pools are src/mpi/bsend.c.  Errors on a
 * session go to its error handler (MPI_ERR_SESSION when it is none). */
#include "binding/p2p_common.h"
#include "binding/session_common.h"

/* The checks of every attach: NULL when the arguments are fine. */
static const char *attach_problem(void *buffer, MPI_Count size, int *cls)
{
    *cls = MPI_ERR_ARG;
    if (size < 0)
        return "size is negative";
    *cls = MPI_ERR_BUFFER;
    if (!buffer && size > 0)
        return "buffer is NULL";
    return NULL;
}

static int comm_attach(const char *F, MPI_Comm comm, void *buffer, MPI_Count size)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    int cls;
    const char *why = attach_problem(buffer, size, &cls);
    if (why)
        return smap_err_raise(comm, cls, F, "%s", why);
    int rc = smap_comm_buffer_attach(c, buffer, size, &why);
    return rc == MPI_SUCCESS ? rc : smap_err_raise(comm, rc, F, "%s", why);
}

int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    return comm_attach("MPI_Comm_attach_buffer", comm, buffer, size);
}

int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    return comm_attach("MPI_Comm_attach_buffer_c", comm, buffer, size);
}

/* The size of a detached buffer as an int (the _c forms give it whole). */
static int int_size(MPI_Count s)
{
    return s > INT_MAX ? INT_MAX : (int)s;
}

static int comm_detach(const char *F, MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, buffer_addr);
    const char *why = "";
    void *addr;
    int rc = smap_comm_buffer_detach(c, &addr, size, &why);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(comm, rc, F, "%s", why);
    *(void **)buffer_addr = addr;
    return MPI_SUCCESS;
}

int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    SMAP_CHECK_PTR("MPI_Comm_detach_buffer", comm, size);
    MPI_Count s;
    int rc = comm_detach("MPI_Comm_detach_buffer", comm, buffer_addr, &s);
    if (rc == MPI_SUCCESS)
        *size = int_size(s);
    return rc;
}

int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    SMAP_CHECK_PTR("MPI_Comm_detach_buffer_c", comm, size);
    return comm_detach("MPI_Comm_detach_buffer_c", comm, buffer_addr, size);
}

int PMPI_Buffer_flush(void)
{
    SMAP_CHECK_RUNNING("MPI_Buffer_flush");
    smap_buffer_flush(NULL);
    return MPI_SUCCESS;
}

int PMPI_Buffer_iflush(MPI_Request *request)
{
    static const char F[] = "MPI_Buffer_iflush";
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, request);
    int rc = smap_buffer_iflush(NULL, request);
    return rc == MPI_SUCCESS ? rc : p2p_nomem(F, MPI_COMM_NULL);
}

int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    static const char F[] = "MPI_Comm_flush_buffer";
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    smap_buffer_flush(c);
    return MPI_SUCCESS;
}

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    static const char F[] = "MPI_Comm_iflush_buffer";
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    SMAP_CHECK_PTR(F, comm, request);
    int rc = smap_buffer_iflush(c, request);
    return rc == MPI_SUCCESS ? rc : p2p_nomem(F, comm);
}

/* ---- a session's buffer ------------------------------------------------ */

static int session_attach(const char *F, MPI_Session session, void *buffer, MPI_Count size)
{
    struct MPI_ABI_Session *s;
    GET_SESSION(F, session, s);
    int cls;
    const char *why = attach_problem(buffer, size, &cls);
    if (why)
        return session_raise(s, cls, F, why);
    int rc = smap_session_buffer_attach(s, buffer, size, &why);
    return rc == MPI_SUCCESS ? rc : session_raise(s, rc, F, why);
}

int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    return session_attach("MPI_Session_attach_buffer", session, buffer, size);
}

int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    return session_attach("MPI_Session_attach_buffer_c", session, buffer, size);
}

/* size: NULL for the int form's check, done by the caller. */
static int session_detach(const char *F, MPI_Session session, void *buffer_addr, int *isize,
                          MPI_Count *size)
{
    struct MPI_ABI_Session *s;
    GET_SESSION(F, session, s);
    if (!buffer_addr || (!isize && !size))
        return session_raise(s, MPI_ERR_ARG, F, "buffer_addr or size is NULL");
    const char *why = "";
    void *addr;
    MPI_Count n;
    int rc = smap_session_buffer_detach(s, &addr, &n, &why);
    if (rc != MPI_SUCCESS)
        return session_raise(s, rc, F, why);
    *(void **)buffer_addr = addr;
    if (isize)
        *isize = int_size(n);
    else
        *size = n;
    return MPI_SUCCESS;
}

int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    return session_detach("MPI_Session_detach_buffer", session, buffer_addr, size, NULL);
}

int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    return session_detach("MPI_Session_detach_buffer_c", session, buffer_addr, NULL, size);
}

int PMPI_Session_flush_buffer(MPI_Session session)
{
    struct MPI_ABI_Session *s;
    GET_SESSION("MPI_Session_flush_buffer", session, s);
    smap_session_buffer_flush(s);
    return MPI_SUCCESS;
}

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    static const char F[] = "MPI_Session_iflush_buffer";
    struct MPI_ABI_Session *s;
    GET_SESSION(F, session, s);
    if (!request)
        return session_raise(s, MPI_ERR_ARG, F, "request is NULL");
    int rc = smap_session_buffer_iflush(s, request);
    return rc == MPI_SUCCESS ? rc : session_raise(s, rc, F, "out of memory");
}
