/* Handles <-> integers for MPI_<Kind>_c2f / _f2c / _toint / _fromint (MPI
 * 5.0 sections 19.3.4, 20.3.5), whose generated entry points call these.
 *
 * With the standard ABI, MPI_Fint is int and c2f/toint (f2c/fromint)
 * agree: a predefined handle is its ABI value; a user object gets an
 * integer from the table in handles.c the first time it is converted.  An
 * invalid handle converts to the kind's null handle (integer or handle):
 * these functions have no error code to return.  Kinds whose objects are
 * not checked here (file, message, request, session, win) accept any
 * plausible pointer; their owners call smap_handle_forget when an object is
 * freed. */
#include <mpi.h>
#include <stdint.h>

#include "dtype/dtype.h"
#include "mpi/comm.h"
#include "mpi/errhandler.h"
#include "mpi/group.h"
#include "mpi/handles.h"
#include "mpi/info.h"
#include "mpi/op.h"

/* Each kind's null handle, in the order of enum smap_handle_kind. */
static void *const null_handle[SMAP_HK_N] = {
    [SMAP_HK_COMM] = (void *)MPI_COMM_NULL,
    [SMAP_HK_ERRHANDLER] = (void *)MPI_ERRHANDLER_NULL,
    [SMAP_HK_FILE] = (void *)MPI_FILE_NULL,
    [SMAP_HK_GROUP] = (void *)MPI_GROUP_NULL,
    [SMAP_HK_INFO] = (void *)MPI_INFO_NULL,
    [SMAP_HK_MESSAGE] = (void *)MPI_MESSAGE_NULL,
    [SMAP_HK_OP] = (void *)MPI_OP_NULL,
    [SMAP_HK_REQUEST] = (void *)MPI_REQUEST_NULL,
    [SMAP_HK_SESSION] = (void *)MPI_SESSION_NULL,
    [SMAP_HK_TYPE] = (void *)MPI_DATATYPE_NULL,
    [SMAP_HK_WIN] = (void *)MPI_WIN_NULL,
};

/* Whether h is a predefined handle or a live object of kind k. */
static int kind_valid(int k, void *h)
{
    if (h == null_handle[k])
        return 1;
    switch (k) {
    case SMAP_HK_COMM: return smap_comm_get(h) != NULL;
    case SMAP_HK_ERRHANDLER: return smap_errhandler_valid(h);
    case SMAP_HK_GROUP: return smap_group_get(h) != NULL;
    case SMAP_HK_INFO: return smap_info_get(h) != NULL;
    case SMAP_HK_OP: return smap_op_get(h) != NULL;
    case SMAP_HK_TYPE: return smap_dtype_get(h) != NULL;
    case SMAP_HK_MESSAGE:
        if ((MPI_Message)h == MPI_MESSAGE_NO_PROC)
            return 1;
        break;
    default: break;
    }
    return smap_plausible_object(h, sizeof(void *));
}

int smap_handle_toint(int k, void *h)
{
    int null_int = (int)(uintptr_t)null_handle[k];
    if (!kind_valid(k, h))
        return null_int;
    if ((uintptr_t)h < SMAP_HANDLE_INT_BASE)
        return (int)(uintptr_t)h;
    int i = smap_handle_register(k, h);
    return i < 0 ? null_int : i;
}

void *smap_handle_fromint(int k, int i)
{
    void *h;
    if (i < 0)
        return null_handle[k];
    if (i < SMAP_HANDLE_INT_BASE)
        h = (void *)(uintptr_t)i;
    else if (!(h = smap_handle_lookup(k, i)))
        return null_handle[k];
    return kind_valid(k, h) ? h : null_handle[k];
}
