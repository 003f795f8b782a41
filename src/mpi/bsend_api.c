/* The buffers of buffered sends as the entry points ask for them (MPI 5.0
 * §3.6.1, MPI 4.1's communicator and session buffers): attach, detach
 * (the int forms' size clamped), flush.  The owner is a communicator c, a
 * session s, or neither (the process's buffer).  Each returns MPI_SUCCESS
 * or a class with smap_why() saying why; the pools are bsend.c's. */
#include <limits.h>

#include "base/why.h"
#include "mpi/comm.h"
#include "mpi/request.h"
#include "mpi/session.h"

int smap_buffer_attach_to(struct MPI_ABI_Comm *c, struct MPI_ABI_Session *s, void *buffer,
                          MPI_Count size)
{
    if (size < 0)
        return smap_failf(MPI_ERR_ARG, "size %lld is negative", (long long)size);
    if (!buffer && size > 0)
        return smap_fail(MPI_ERR_BUFFER, "buffer is NULL");
    const char *why = "";
    int rc = c   ? smap_comm_buffer_attach(c, buffer, size, &why)
             : s ? smap_session_buffer_attach(s, buffer, size, &why)
                 : smap_buffer_attach(buffer, size, &why);
    return rc == MPI_SUCCESS ? rc : smap_fail(rc, why);
}

int smap_buffer_detach_from(struct MPI_ABI_Comm *c, struct MPI_ABI_Session *s,
                            void *buffer_addr, MPI_Count *size)
{
    if (!buffer_addr)
        return smap_fail(MPI_ERR_ARG, "buffer_addr is NULL");
    const char *why = "";
    void *addr;
    int rc = c   ? smap_comm_buffer_detach(c, &addr, size, &why)
             : s ? smap_session_buffer_detach(s, &addr, size, &why)
                 : smap_buffer_detach(&addr, size, &why);
    if (rc != MPI_SUCCESS)
        return smap_fail(rc, why);
    *(void **)buffer_addr = addr;
    return MPI_SUCCESS;
}

/* The int forms: a size past INT_MAX reads as INT_MAX (the _c forms give
 * it whole). */
int smap_buffer_detach_int(struct MPI_ABI_Comm *c, struct MPI_ABI_Session *s,
                           void *buffer_addr, int *size)
{
    MPI_Count n;
    int rc = smap_buffer_detach_from(c, s, buffer_addr, &n);
    if (rc == MPI_SUCCESS)
        *size = n > INT_MAX ? INT_MAX : (int)n;
    return rc;
}

int smap_buffer_iflush_of(struct MPI_ABI_Comm *c, struct MPI_ABI_Session *s, MPI_Request *req)
{
    int rc = s ? smap_session_buffer_iflush(s, req) : smap_buffer_iflush(c, req);
    return rc == MPI_SUCCESS ? rc : smap_fail(rc, "out of memory for a request");
}
