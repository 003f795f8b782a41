/* MPI 4.1 buffers of buffered sends beyond MPI_Buffer_attach/detach
 * (p2p_send.c): a communicator's own buffer (MPI_Comm_attach_buffer,
 * MPI_Comm_detach_buffer) and the flushes (MPI_Buffer_flush/iflush,
 * MPI_Comm_flush_buffer/iflush_buffer).  The pools are src/mpi/bsend.c.
 * The MPI_Session_* twins need sessions (not in this build yet). */
#include "binding/p2p_common.h"

static int comm_attach(const char *F, MPI_Comm comm, void *buffer, MPI_Count size)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_COMM(F, comm, c);
    if (size < 0)
        return smap_err_raise(comm, MPI_ERR_ARG, F, "size %lld is negative", (long long)size);
    if (!buffer && size > 0)
        return smap_err_raise(comm, MPI_ERR_BUFFER, F, "%s", "buffer is NULL");
    const char *why = "";
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
        *size = s > INT_MAX ? INT_MAX : (int)s;
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
