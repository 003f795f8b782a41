/* Handle conversion: MPI_<Kind>_c2f / _f2c / _toint / _fromint for every
 * handle kind, and the status conversions (MPI 5.0 §19.3.4, §20.3.5).
 *
 * With the standard ABI, MPI_Fint is int and c2f/toint (f2c/fromint)
 * agree: a predefined handle is its ABI value; a user object gets an
 * integer from the table in src/mpi/handles.c the first time it is
 * converted.  An invalid handle converts to the kind's null handle
 * (integer or handle): these functions have no error code to return.
 * Kinds whose objects do not exist yet (file, message, request, session,
 * win) accept any plausible pointer; their owners should validate here
 * (kind_valid) and call smap_handle_forget when an object is freed. */
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "binding/check.h"
#include "dtype/dtype.h"
#include "mpi/comm.h"
#include "mpi/errhandler.h"
#include "mpi/group.h"
#include "mpi/handles.h"
#include "mpi/info.h"
#include "mpi/op.h"

/* Whether h is a predefined handle or a live object of kind k. */
static int kind_valid(int k, void *h)
{
    switch (k) {
    case SMAP_HK_COMM: return (MPI_Comm)h == MPI_COMM_NULL || smap_comm_get(h) != NULL;
    case SMAP_HK_ERRHANDLER:
        return (MPI_Errhandler)h == MPI_ERRHANDLER_NULL || smap_errhandler_valid(h);
    case SMAP_HK_GROUP: return (MPI_Group)h == MPI_GROUP_NULL || smap_group_get(h) != NULL;
    case SMAP_HK_INFO: return (MPI_Info)h == MPI_INFO_NULL || smap_info_get(h) != NULL;
    case SMAP_HK_OP: return (MPI_Op)h == MPI_OP_NULL || smap_op_get(h) != NULL;
    case SMAP_HK_TYPE: return (MPI_Datatype)h == MPI_DATATYPE_NULL || smap_dtype_get(h) != NULL;
    case SMAP_HK_MESSAGE:
        if ((MPI_Message)h == MPI_MESSAGE_NULL || (MPI_Message)h == MPI_MESSAGE_NO_PROC)
            return 1;
        break;
    case SMAP_HK_FILE: if ((MPI_File)h == MPI_FILE_NULL) return 1; break;
    case SMAP_HK_REQUEST: if ((MPI_Request)h == MPI_REQUEST_NULL) return 1; break;
    case SMAP_HK_SESSION: if ((MPI_Session)h == MPI_SESSION_NULL) return 1; break;
    case SMAP_HK_WIN: if ((MPI_Win)h == MPI_WIN_NULL) return 1; break;
    default: return 0;
    }
    return smap_plausible_object(h, sizeof(void *));
}

/* The integer of handle h of kind k (null_int when h is invalid). */
static int to_int(int k, void *h, int null_int)
{
    if (!kind_valid(k, h))
        return null_int;
    if ((uintptr_t)h < SMAP_HANDLE_INT_BASE)
        return (int)(uintptr_t)h;
    int i = smap_handle_register(k, h);
    return i < 0 ? null_int : i;
}

/* The handle integer i stands for (the null handle when none). */
static void *from_int(int k, int i, void *null_h)
{
    void *h;
    if (i < 0)
        return null_h;
    if (i < SMAP_HANDLE_INT_BASE)
        h = (void *)(uintptr_t)i;
    else if (!(h = smap_handle_lookup(k, i)))
        return null_h;
    return kind_valid(k, h) ? h : null_h;
}

/* ---- MPI_Comm ---- */
MPI_Fint PMPI_Comm_c2f(MPI_Comm comm)
{
    return to_int(SMAP_HK_COMM, (void *)comm, (int)(uintptr_t)MPI_COMM_NULL);
}

MPI_Comm PMPI_Comm_f2c(MPI_Fint comm)
{
    return (MPI_Comm)from_int(SMAP_HK_COMM, comm, (void *)MPI_COMM_NULL);
}

int PMPI_Comm_toint(MPI_Comm comm)
{
    return to_int(SMAP_HK_COMM, (void *)comm, (int)(uintptr_t)MPI_COMM_NULL);
}

MPI_Comm PMPI_Comm_fromint(int comm)
{
    return (MPI_Comm)from_int(SMAP_HK_COMM, comm, (void *)MPI_COMM_NULL);
}

/* ---- MPI_Errhandler ---- */
MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler errhandler)
{
    return to_int(SMAP_HK_ERRHANDLER, (void *)errhandler, (int)(uintptr_t)MPI_ERRHANDLER_NULL);
}

MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint errhandler)
{
    return (MPI_Errhandler)from_int(SMAP_HK_ERRHANDLER, errhandler, (void *)MPI_ERRHANDLER_NULL);
}

int PMPI_Errhandler_toint(MPI_Errhandler errhandler)
{
    return to_int(SMAP_HK_ERRHANDLER, (void *)errhandler, (int)(uintptr_t)MPI_ERRHANDLER_NULL);
}

MPI_Errhandler PMPI_Errhandler_fromint(int errhandler)
{
    return (MPI_Errhandler)from_int(SMAP_HK_ERRHANDLER, errhandler, (void *)MPI_ERRHANDLER_NULL);
}

/* ---- MPI_File ---- */
MPI_Fint PMPI_File_c2f(MPI_File file)
{
    return to_int(SMAP_HK_FILE, (void *)file, (int)(uintptr_t)MPI_FILE_NULL);
}

MPI_File PMPI_File_f2c(MPI_Fint file)
{
    return (MPI_File)from_int(SMAP_HK_FILE, file, (void *)MPI_FILE_NULL);
}

int PMPI_File_toint(MPI_File file)
{
    return to_int(SMAP_HK_FILE, (void *)file, (int)(uintptr_t)MPI_FILE_NULL);
}

MPI_File PMPI_File_fromint(int file)
{
    return (MPI_File)from_int(SMAP_HK_FILE, file, (void *)MPI_FILE_NULL);
}

/* ---- MPI_Group ---- */
MPI_Fint PMPI_Group_c2f(MPI_Group group)
{
    return to_int(SMAP_HK_GROUP, (void *)group, (int)(uintptr_t)MPI_GROUP_NULL);
}

MPI_Group PMPI_Group_f2c(MPI_Fint group)
{
    return (MPI_Group)from_int(SMAP_HK_GROUP, group, (void *)MPI_GROUP_NULL);
}

int PMPI_Group_toint(MPI_Group group)
{
    return to_int(SMAP_HK_GROUP, (void *)group, (int)(uintptr_t)MPI_GROUP_NULL);
}

MPI_Group PMPI_Group_fromint(int group)
{
    return (MPI_Group)from_int(SMAP_HK_GROUP, group, (void *)MPI_GROUP_NULL);
}

/* ---- MPI_Info ---- */
MPI_Fint PMPI_Info_c2f(MPI_Info info)
{
    return to_int(SMAP_HK_INFO, (void *)info, (int)(uintptr_t)MPI_INFO_NULL);
}

MPI_Info PMPI_Info_f2c(MPI_Fint info)
{
    return (MPI_Info)from_int(SMAP_HK_INFO, info, (void *)MPI_INFO_NULL);
}

int PMPI_Info_toint(MPI_Info info)
{
    return to_int(SMAP_HK_INFO, (void *)info, (int)(uintptr_t)MPI_INFO_NULL);
}

MPI_Info PMPI_Info_fromint(int info)
{
    return (MPI_Info)from_int(SMAP_HK_INFO, info, (void *)MPI_INFO_NULL);
}

/* ---- MPI_Message ---- */
MPI_Fint PMPI_Message_c2f(MPI_Message message)
{
    return to_int(SMAP_HK_MESSAGE, (void *)message, (int)(uintptr_t)MPI_MESSAGE_NULL);
}

MPI_Message PMPI_Message_f2c(MPI_Fint message)
{
    return (MPI_Message)from_int(SMAP_HK_MESSAGE, message, (void *)MPI_MESSAGE_NULL);
}

int PMPI_Message_toint(MPI_Message message)
{
    return to_int(SMAP_HK_MESSAGE, (void *)message, (int)(uintptr_t)MPI_MESSAGE_NULL);
}

MPI_Message PMPI_Message_fromint(int message)
{
    return (MPI_Message)from_int(SMAP_HK_MESSAGE, message, (void *)MPI_MESSAGE_NULL);
}

/* ---- MPI_Op ---- */
MPI_Fint PMPI_Op_c2f(MPI_Op op)
{
    return to_int(SMAP_HK_OP, (void *)op, (int)(uintptr_t)MPI_OP_NULL);
}

MPI_Op PMPI_Op_f2c(MPI_Fint op)
{
    return (MPI_Op)from_int(SMAP_HK_OP, op, (void *)MPI_OP_NULL);
}

int PMPI_Op_toint(MPI_Op op)
{
    return to_int(SMAP_HK_OP, (void *)op, (int)(uintptr_t)MPI_OP_NULL);
}

MPI_Op PMPI_Op_fromint(int op)
{
    return (MPI_Op)from_int(SMAP_HK_OP, op, (void *)MPI_OP_NULL);
}

/* ---- MPI_Request ---- */
MPI_Fint PMPI_Request_c2f(MPI_Request request)
{
    return to_int(SMAP_HK_REQUEST, (void *)request, (int)(uintptr_t)MPI_REQUEST_NULL);
}

MPI_Request PMPI_Request_f2c(MPI_Fint request)
{
    return (MPI_Request)from_int(SMAP_HK_REQUEST, request, (void *)MPI_REQUEST_NULL);
}

int PMPI_Request_toint(MPI_Request request)
{
    return to_int(SMAP_HK_REQUEST, (void *)request, (int)(uintptr_t)MPI_REQUEST_NULL);
}

MPI_Request PMPI_Request_fromint(int request)
{
    return (MPI_Request)from_int(SMAP_HK_REQUEST, request, (void *)MPI_REQUEST_NULL);
}

/* ---- MPI_Session ---- */
MPI_Fint PMPI_Session_c2f(MPI_Session session)
{
    return to_int(SMAP_HK_SESSION, (void *)session, (int)(uintptr_t)MPI_SESSION_NULL);
}

MPI_Session PMPI_Session_f2c(MPI_Fint session)
{
    return (MPI_Session)from_int(SMAP_HK_SESSION, session, (void *)MPI_SESSION_NULL);
}

int PMPI_Session_toint(MPI_Session session)
{
    return to_int(SMAP_HK_SESSION, (void *)session, (int)(uintptr_t)MPI_SESSION_NULL);
}

MPI_Session PMPI_Session_fromint(int session)
{
    return (MPI_Session)from_int(SMAP_HK_SESSION, session, (void *)MPI_SESSION_NULL);
}

/* ---- MPI_Datatype ---- */
MPI_Fint PMPI_Type_c2f(MPI_Datatype datatype)
{
    return to_int(SMAP_HK_TYPE, (void *)datatype, (int)(uintptr_t)MPI_DATATYPE_NULL);
}

MPI_Datatype PMPI_Type_f2c(MPI_Fint datatype)
{
    return (MPI_Datatype)from_int(SMAP_HK_TYPE, datatype, (void *)MPI_DATATYPE_NULL);
}

int PMPI_Type_toint(MPI_Datatype datatype)
{
    return to_int(SMAP_HK_TYPE, (void *)datatype, (int)(uintptr_t)MPI_DATATYPE_NULL);
}

MPI_Datatype PMPI_Type_fromint(int datatype)
{
    return (MPI_Datatype)from_int(SMAP_HK_TYPE, datatype, (void *)MPI_DATATYPE_NULL);
}

/* ---- MPI_Win ---- */
MPI_Fint PMPI_Win_c2f(MPI_Win win)
{
    return to_int(SMAP_HK_WIN, (void *)win, (int)(uintptr_t)MPI_WIN_NULL);
}

MPI_Win PMPI_Win_f2c(MPI_Fint win)
{
    return (MPI_Win)from_int(SMAP_HK_WIN, win, (void *)MPI_WIN_NULL);
}

int PMPI_Win_toint(MPI_Win win)
{
    return to_int(SMAP_HK_WIN, (void *)win, (int)(uintptr_t)MPI_WIN_NULL);
}

MPI_Win PMPI_Win_fromint(int win)
{
    return (MPI_Win)from_int(SMAP_HK_WIN, win, (void *)MPI_WIN_NULL);
}

/* ---- statuses: C, Fortran (MPI_Fint[MPI_F_STATUS_SIZE]) and Fortran 2008
 * (MPI_F08_status) have the same 8-int layout in the standard ABI ---- */
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint) &&
                   sizeof(MPI_F08_status) == sizeof(MPI_Status),
               "status layouts differ");

static int status_copy(const char *func, const void *from, void *to)
{
    if (!from || !to)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func,
                              "%s status is NULL (MPI_STATUS_IGNORE is not allowed here)",
                              !from ? "input" : "output");
    memmove(to, from, sizeof(MPI_Status));
    return MPI_SUCCESS;
}

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    return status_copy("MPI_Status_c2f", c_status, f_status);
}

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    return status_copy("MPI_Status_f2c", f_status, c_status);
}

int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    return status_copy("MPI_Status_c2f08", c_status, f08_status);
}

int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    return status_copy("MPI_Status_f082c", f08_status, c_status);
}

int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    return status_copy("MPI_Status_f082f", f08_status, f_status);
}

int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    return status_copy("MPI_Status_f2f08", f_status, f08_status);
}
