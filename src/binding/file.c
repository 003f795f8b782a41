/* File objects (MPI 5.0 §14.2): open, close, delete, size, preallocate,
 * sync, group, amode, info, atomicity, and file error handlers (§9.3).
 * Argument checks here; the work in src/io/file.c. */
#include <string.h>

#include "binding/file_common.h"
#include "mpi/errhandler.h"
#include "mpi/group.h"
#include "mpi/info.h"

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    static const char F[] = "MPI_File_open";
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(F);
    c = smap_comm_get(comm);
    if (!c)
        return smap_file_raise(MPI_FILE_NULL, MPI_ERR_COMM, F, "%s",
                               comm == MPI_COMM_NULL ? "comm is MPI_COMM_NULL"
                                                     : "comm is not a valid communicator");
    if (c->remote_group)
        return smap_file_raise(MPI_FILE_NULL, MPI_ERR_COMM, F,
                               "files need an intracommunicator");
    if (!fh)
        return smap_file_raise(MPI_FILE_NULL, MPI_ERR_ARG, F, "fh is NULL");
    /* argument errors of one rank join open's agreement, so no rank is
     * left waiting in it */
    int bad = 0;
    struct MPI_ABI_Info *in = NULL;
    if (!filename)
        bad = smap_failf(MPI_ERR_ARG, "filename is NULL");
    else if (!*filename)
        bad = smap_failf(MPI_ERR_BAD_FILE, "filename is empty");
    else if (info != MPI_INFO_NULL && !(in = smap_info_get(info)))
        bad = smap_failf(MPI_ERR_INFO, "info is not a valid info object");
    int rc = smap_io_open(c, filename, amode, in, bad, fh);
    return rc ? smap_file_raise(MPI_FILE_NULL, rc, F, "%s", smap_why()) : MPI_SUCCESS;
}

int PMPI_File_close(MPI_File *fh)
{
    static const char F[] = "MPI_File_close";
    struct MPI_ABI_File *f;
    SMAP_CHECK_RUNNING(F);
    if (!fh)
        return smap_file_raise(MPI_FILE_NULL, MPI_ERR_ARG, F, "fh is NULL");
    FILE_CHECK(F, *fh, f);
    (void)f;
    MPI_File h = *fh;
    int rc = smap_io_close(fh);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    /* still open (a split collective pending) or gone: raise where it lives */
    return smap_file_raise(*fh == MPI_FILE_NULL ? MPI_FILE_NULL : h, rc, F, "%s",
                           smap_why());
}

int PMPI_File_delete(const char *filename, MPI_Info info)
{
    static const char F[] = "MPI_File_delete";
    SMAP_CHECK_RUNNING(F);
    if (!filename)
        return smap_file_raise(MPI_FILE_NULL, MPI_ERR_ARG, F, "filename is NULL");
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_file_raise(MPI_FILE_NULL, MPI_ERR_INFO, F, "info is not a valid info "
                                                               "object");
    int rc = smap_io_delete(filename);
    return rc ? smap_file_raise(MPI_FILE_NULL, rc, F, "%s", smap_why()) : MPI_SUCCESS;
}

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    static const char F[] = "MPI_File_get_size";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    FILE_CHECK_PTR(F, fh, size);
    return FILE_DONE(F, fh, smap_io_get_size(f, size));
}

static int resize(const char *F, MPI_File fh, MPI_Offset size, int prealloc)
{
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    /* a negative size is checked inside, so that it joins the agreement */
    return FILE_DONE(F, fh, smap_io_set_size(f, size, prealloc));
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    return resize("MPI_File_set_size", fh, size, 0);
}

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    return resize("MPI_File_preallocate", fh, size, 1);
}

int PMPI_File_sync(MPI_File fh)
{
    static const char F[] = "MPI_File_sync";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    return FILE_DONE(F, fh, smap_io_sync(f));
}

int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    static const char F[] = "MPI_File_get_group";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    FILE_CHECK_PTR(F, fh, group);
    smap_group_retain(f->c->group);
    *group = smap_group_handle(f->c->group);
    return MPI_SUCCESS;
}

int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    static const char F[] = "MPI_File_get_amode";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    FILE_CHECK_PTR(F, fh, amode);
    *amode = f->amode;
    return MPI_SUCCESS;
}

int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    static const char F[] = "MPI_File_set_info";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    /* collective: a bad handle on one rank fails every rank, then every
     * rank takes rank 0's hints */
    struct MPI_ABI_Info *in = NULL;
    int bad = 0;
    if (info != MPI_INFO_NULL && !(in = smap_info_get(info)))
        bad = smap_failf(MPI_ERR_INFO, "info is not a valid info object");
    int rc = smap_io_agree(f, bad);
    if (rc)
        return FILE_DONE(F, fh, rc);
    smap_io_hints_apply(f, in);
    return MPI_SUCCESS;
}

int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    static const char F[] = "MPI_File_get_info";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    FILE_CHECK_PTR(F, fh, info_used);
    struct MPI_ABI_Info *in = smap_io_hints_get(&f->hints);
    if (!in)
        return FILE_RAISE(F, fh, MPI_ERR_NO_MEM, "out of memory");
    *info_used = smap_info_handle(in);
    return MPI_SUCCESS;
}

int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    static const char F[] = "MPI_File_set_atomicity";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    return FILE_DONE(F, fh, smap_io_set_atomicity(f, flag));
}

int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    static const char F[] = "MPI_File_get_atomicity";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    FILE_CHECK_PTR(F, fh, flag);
    *flag = f->atomic;
    return MPI_SUCCESS;
}

/* ---- error handlers ---- */

int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    static const char F[] = "MPI_File_create_errhandler";
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, file_errhandler_fn);
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, errhandler);
    *errhandler =
        smap_errhandler_create((MPI_Comm_errhandler_function *)(void *)file_errhandler_fn);
    if (*errhandler == MPI_ERRHANDLER_NULL)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, F, "out of memory");
    return MPI_SUCCESS;
}

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    static const char F[] = "MPI_File_set_errhandler";
    SMAP_CHECK_RUNNING(F);
    if (file == MPI_FILE_NULL) {   /* the default of later opens */
        if (!smap_errhandler_valid(errhandler))
            return smap_file_raise(MPI_FILE_NULL, MPI_ERR_ARG, F,
                                   "errhandler is not a valid error handler");
        smap_file_set_default_errhandler(errhandler);
        return MPI_SUCCESS;
    }
    struct MPI_ABI_File *f;
    FILE_CHECK(F, file, f);
    if (!smap_errhandler_valid(errhandler))
        return FILE_RAISE(F, file, MPI_ERR_ARG, "errhandler is not a valid error handler");
    smap_errhandler_retain(errhandler);
    MPI_Errhandler old = f->errhandler;
    f->errhandler = errhandler;
    smap_errhandler_release(old);
    return MPI_SUCCESS;
}

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    static const char F[] = "MPI_File_get_errhandler";
    SMAP_CHECK_RUNNING(F);
    MPI_Errhandler eh;
    if (file == MPI_FILE_NULL) {
        eh = smap_file_default_errhandler();
    } else {
        struct MPI_ABI_File *f;
        FILE_CHECK(F, file, f);
        eh = f->errhandler;
    }
    if (!errhandler)
        return FILE_RAISE(F, file, MPI_ERR_ARG, "errhandler is NULL");
    smap_errhandler_give(eh);
    *errhandler = eh;
    return MPI_SUCCESS;
}

int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    static const char F[] = "MPI_File_call_errhandler";
    SMAP_CHECK_RUNNING(F);
    if (fh != MPI_FILE_NULL) {
        struct MPI_ABI_File *f;
        FILE_CHECK(F, fh, f);
        (void)f;
    }
    smap_file_invoke(fh, errorcode);
    return MPI_SUCCESS;
}
