/* File views and positions (MPI 5.0 §14.3, §14.4.3, §14.5): set/get the
 * view, the extent of a type in the file, byte offsets, the individual
 * and the shared file pointer.  Argument checks here; the work in
 * src/io/view.c and src/io/shared.c. */
#include <string.h>

#include "binding/file_common.h"
#include "dtype/engine.h"
#include "mpi/info.h"

/* A committed datatype, or NULL with io's why set. */
static smap_dtype_t *usable(MPI_Datatype dt, const char *name, int *cls)
{
    smap_dtype_t *t = smap_dtype_get(dt);
    if (!t)
        *cls = smap_failf(MPI_ERR_TYPE, "%s is not a valid datatype", name);
    else if (!smap_dtype_committed(t) && !(t->flags & SMAP_DT_PREDEF))
        *cls = smap_failf(MPI_ERR_TYPE, "%s is not committed", name);
    else
        return t;
    return NULL;
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    static const char F[] = "MPI_File_set_view";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    /* one rank's bad argument joins the collective's agreement */
    int bad = 0;
    struct MPI_ABI_Info *in = NULL;
    smap_dtype_t *et = usable(etype, "etype", &bad), *ft = NULL;
    if (!bad)
        ft = usable(filetype, "filetype", &bad);
    if (!bad && !datarep)
        bad = smap_failf(MPI_ERR_ARG, "datarep is NULL");
    if (!bad && info != MPI_INFO_NULL && !(in = smap_info_get(info)))
        bad = smap_failf(MPI_ERR_INFO, "info is not a valid info object");
    int rc = bad ? smap_io_agree(f, bad) : smap_io_set_view(f, disp, et, ft, datarep, in);
    return FILE_DONE(F, fh, rc);
}

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                       char *datarep)
{
    static const char F[] = "MPI_File_get_view";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    FILE_CHECK_PTR(F, fh, disp);
    FILE_CHECK_PTR(F, fh, etype);
    FILE_CHECK_PTR(F, fh, filetype);
    FILE_CHECK_PTR(F, fh, datarep);
    *disp = f->v.disp;
    /* derived types come back as new handles the program frees */
    smap_dtype_give(f->v.etype);
    smap_dtype_give(f->v.ftype);
    *etype = smap_dtype_handle(f->v.etype);
    *filetype = smap_dtype_handle(f->v.ftype);
    strcpy(datarep, f->v.datarep);
    return MPI_SUCCESS;
}

static int type_extent(const char *F, MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    FILE_CHECK_PTR(F, fh, extent);
    smap_dtype_t *t = smap_dtype_get(datatype);
    if (!t)
        return FILE_RAISE(F, fh, MPI_ERR_TYPE, "datatype is not a valid datatype");
    /* under the view's data representation (native: the memory extent) */
    return FILE_DONE(F, fh, smap_io_type_extent(f, t, extent));
}

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Count x = 0;
    int rc = type_extent("MPI_File_get_type_extent", fh, datatype, &x);
    if (rc == MPI_SUCCESS)
        *extent = (MPI_Aint)x;
    return rc;
}

int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    return type_extent("MPI_File_get_type_extent_c", fh, datatype, extent);
}

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    static const char F[] = "MPI_File_get_byte_offset";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    FILE_CHECK_PTR(F, fh, disp);
    if (offset < 0)
        return FILE_RAISE(F, fh, MPI_ERR_ARG, "offset %lld is negative", (long long)offset);
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return FILE_RAISE(F, fh, MPI_ERR_UNSUPPORTED_OPERATION,
                          "not allowed on a file opened with MPI_MODE_SEQUENTIAL");
    MPI_Offset s, av;
    if (__builtin_mul_overflow(offset, f->v.esize, &s))
        return FILE_RAISE(F, fh, MPI_ERR_ARG, "offset %lld overflows", (long long)offset);
    *disp = smap_io_view_map(&f->v, s, 1, &av);
    return MPI_SUCCESS;
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    static const char F[] = "MPI_File_seek";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
        return FILE_RAISE(F, fh, MPI_ERR_ARG, "whence %d is not MPI_SEEK_SET, MPI_SEEK_CUR "
                                              "or MPI_SEEK_END", whence);
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return FILE_RAISE(F, fh, MPI_ERR_UNSUPPORTED_OPERATION,
                          "not allowed on a file opened with MPI_MODE_SEQUENTIAL");
    return FILE_DONE(F, fh, smap_io_seek(f, offset, whence));
}

int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    static const char F[] = "MPI_File_get_position";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    FILE_CHECK_PTR(F, fh, offset);
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return FILE_RAISE(F, fh, MPI_ERR_UNSUPPORTED_OPERATION,
                          "not allowed on a file opened with MPI_MODE_SEQUENTIAL");
    *offset = f->fp;
    return MPI_SUCCESS;
}

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    static const char F[] = "MPI_File_seek_shared";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    /* collective: a bad whence joins the agreement as a differing value
     * would not, so it is checked first on every rank alike */
    int bad = 0;
    if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
        bad = smap_failf(MPI_ERR_ARG, "whence %d is not MPI_SEEK_SET, MPI_SEEK_CUR or "
                                        "MPI_SEEK_END", whence);
    int rc = bad ? smap_io_agree_value(f, offset, bad, "offset")
                 : smap_io_seek_shared(f, offset, whence);
    return FILE_DONE(F, fh, rc);
}

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    static const char F[] = "MPI_File_get_position_shared";
    struct MPI_ABI_File *f;
    FILE_CHECK(F, fh, f);
    FILE_CHECK_PTR(F, fh, offset);
    return FILE_DONE(F, fh, smap_io_position_shared(f, offset));
}

/* MPI 5.0 §14.5.3.  Not tied to a file: errors go to MPI_FILE_NULL's
 * handler.  The conversion functions may be MPI_CONVERSION_FN_NULL; the
 * extent function is required. */
static int register_datarep(const char *F, const char *datarep, void *rd, void *wr,
                            MPI_Datarep_extent_function *ext, void *state, int large)
{
    SMAP_CHECK_RUNNING(F);
    if (!datarep)
        return FILE_RAISE(F, MPI_FILE_NULL, MPI_ERR_ARG, "datarep is NULL");
    return FILE_DONE(F, MPI_FILE_NULL,
                     smap_io_datarep_register(datarep, rd, wr, ext, state, large));
}

int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return register_datarep("MPI_Register_datarep", datarep, (void *)read_conversion_fn,
                            (void *)write_conversion_fn, dtype_file_extent_fn, extra_state, 0);
}

int PMPI_Register_datarep_c(const char *datarep,
                            MPI_Datarep_conversion_function_c *read_conversion_fn,
                            MPI_Datarep_conversion_function_c *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return register_datarep("MPI_Register_datarep_c", datarep, (void *)read_conversion_fn,
                            (void *)write_conversion_fn, dtype_file_extent_fn, extra_state, 1);
}
