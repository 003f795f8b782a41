/* MPI_Pack / MPI_Unpack / MPI_Pack_size and the external32 variants, with
 * their large-count twins, over the datatype engine (src/dtype/engine.h). */
#include <limits.h>
#include <string.h>

#include <mpi.h>

#include "binding/check.h"
#include "binding/dtype_check.h"
#include "dtype/engine.h"

/* The checks MPI_Pack and MPI_Unpack share: a valid communicator, a
 * non-negative count of a committed type, a position inside a buffer of
 * `bufsize` bytes with room for the count's bytes.  On success *t and *n (the
 * bytes to move) are set. */
static int check_stream(const char *func, MPI_Count count, MPI_Datatype datatype, const void *buf,
                        MPI_Count bufsize, const MPI_Count *position, MPI_Comm comm,
                        smap_dtype_t **t, MPI_Count *n)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_COMM(func, comm, c);
    (void)c;
    if (count < 0)
        return smap_err_raise(comm, MPI_ERR_COUNT, func, "count %lld is negative", (long long)count);
    SMAP_CHECK_DTYPE_COMMITTED(func, comm, datatype, *t);
    SMAP_CHECK_PTR(func, comm, position);
    if (bufsize < 0 || *position < 0)
        return smap_err_raise(comm, MPI_ERR_ARG, func, "buffer size %lld or position %lld is negative",
                              (long long)bufsize, (long long)*position);
    if (smap_mul_overflow_i64(count, (*t)->size, n) || *n > bufsize - *position)
        return smap_err_raise(comm, MPI_ERR_TRUNCATE, func,
                              "%lld elements do not fit at position %lld of a %lld-byte buffer",
                              (long long)count, (long long)*position, (long long)bufsize);
    if (*n > 0 && !buf)
        return smap_err_raise(comm, MPI_ERR_BUFFER, func, "the packed buffer is NULL");
    return MPI_SUCCESS;
}

static int pack(const char *func, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    smap_dtype_t *t;
    MPI_Count n;
    int rc = check_stream(func, incount, datatype, outbuf, outsize, position, comm, &t, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_dtype_pack(inbuf, incount, t, (char *)outbuf + *position, 0, n);
    *position += n;
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    SMAP_CHECK_PTR("MPI_Pack", comm, position);
    MPI_Count pos = *position;
    int rc = pack("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, &pos, comm);
    if (rc == MPI_SUCCESS)
        *position = (int)pos;
    return rc;
}

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    return pack("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm);
}

static int unpack(const char *func, const void *inbuf, MPI_Count insize, MPI_Count *position,
                  void *outbuf, MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    smap_dtype_t *t;
    MPI_Count n;
    int rc = check_stream(func, outcount, datatype, inbuf, insize, position, comm, &t, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_dtype_unpack((const char *)inbuf + *position, n, outbuf, outcount, t, 0);
    *position += n;
    return MPI_SUCCESS;
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    SMAP_CHECK_PTR("MPI_Unpack", comm, position);
    MPI_Count pos = *position;
    int rc = unpack("MPI_Unpack", inbuf, insize, &pos, outbuf, outcount, datatype, comm);
    if (rc == MPI_SUCCESS)
        *position = (int)pos;
    return rc;
}

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    return unpack("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype, comm);
}

static int pack_size(const char *func, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                     MPI_Count *size)
{
    struct MPI_ABI_Comm *c;
    smap_dtype_t *t;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_COMM(func, comm, c);
    (void)c;
    if (incount < 0)
        return smap_err_raise(comm, MPI_ERR_COUNT, func, "incount %lld is negative",
                              (long long)incount);
    SMAP_CHECK_DTYPE(func, comm, datatype, t);
    SMAP_CHECK_PTR(func, comm, size);
    MPI_Count n;
    if (smap_mul_overflow_i64(incount, t->size, &n))
        return smap_err_raise(comm, MPI_ERR_VALUE_TOO_LARGE, func, "the size overflows");
    *size = n;
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_Count n = 0;
    SMAP_CHECK_PTR("MPI_Pack_size", comm, size);
    int rc = pack_size("MPI_Pack_size", incount, datatype, comm, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    if (n > INT_MAX)
        return smap_err_raise(comm, MPI_ERR_VALUE_TOO_LARGE, "MPI_Pack_size",
                              "%lld bytes do not fit an int: use MPI_Pack_size_c", (long long)n);
    *size = (int)n;
    return MPI_SUCCESS;
}

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    return pack_size("MPI_Pack_size_c", incount, datatype, comm, size);
}

/* ---- external32 ---- */

static int check_datarep(const char *func, const char *datarep)
{
    if (!datarep)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func, "datarep is NULL");
    if (strcmp(datarep, "external32") != 0)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_UNSUPPORTED_DATAREP, func,
                              "data representation \"%.64s\" is not supported (only "
                              "\"external32\")", datarep);
    return MPI_SUCCESS;
}

static int ext_size(const char *func, smap_dtype_t *t, MPI_Count count, MPI_Count *n)
{
    MPI_Count x = smap_dtype_external_size(t);
    if (x < 0)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, func, "out of memory");
    if (smap_mul_overflow_i64(count, x, n))
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_VALUE_TOO_LARGE, func, "the size overflows");
    return MPI_SUCCESS;
}

/* The checks MPI_Pack_external and MPI_Unpack_external share, as
 * check_stream does for the native representation; *n is set to the
 * external32 bytes of `count` elements. */
static int check_external_stream(const char *func, const char *datarep, MPI_Count count,
                                 MPI_Datatype datatype, const void *buf, MPI_Count bufsize,
                                 const MPI_Count *position, smap_dtype_t **t, MPI_Count *n)
{
    SMAP_CHECK_RUNNING(func);
    int rc = check_datarep(func, datarep);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_COUNT, func, "count %lld is negative",
                              (long long)count);
    SMAP_CHECK_DTYPE_COMMITTED(func, MPI_COMM_NULL, datatype, *t);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, position);
    if (bufsize < 0 || *position < 0)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func,
                              "buffer size or position is negative");
    if ((rc = ext_size(func, *t, count, n)) != MPI_SUCCESS)
        return rc;
    if (*n > bufsize - *position)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_TRUNCATE, func,
                              "%lld bytes do not fit at position %lld of a %lld-byte buffer",
                              (long long)*n, (long long)*position, (long long)bufsize);
    if (*n > 0 && !buf)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_BUFFER, func, "the packed buffer is NULL");
    return MPI_SUCCESS;
}

static int pack_external(const char *func, const char *datarep, const void *inbuf,
                         MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                         MPI_Count outsize, MPI_Count *position)
{
    smap_dtype_t *t;
    MPI_Count n = 0;
    int rc = check_external_stream(func, datarep, incount, datatype, outbuf, outsize, position,
                                   &t, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = smap_dtype_pack_external(inbuf, incount, t, (char *)outbuf + *position);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(MPI_COMM_NULL, rc, func, "%s",
                              rc == MPI_ERR_CONVERSION
                                  ? "a value does not fit its external32 representation"
                                  : "conversion failed");
    *position += n;
    return MPI_SUCCESS;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    SMAP_CHECK_PTR("MPI_Pack_external", MPI_COMM_NULL, position);
    MPI_Count pos = *position;
    int rc = pack_external("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf,
                           outsize, &pos);
    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return rc;
}

int PMPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    return pack_external("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf,
                         outsize, position);
}

static int unpack_external(const char *func, const char *datarep, const void *inbuf,
                           MPI_Count insize, MPI_Count *position, void *outbuf,
                           MPI_Count outcount, MPI_Datatype datatype)
{
    smap_dtype_t *t;
    MPI_Count n = 0;
    int rc = check_external_stream(func, datarep, outcount, datatype, inbuf, insize, position,
                                   &t, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = smap_dtype_unpack_external((const char *)inbuf + *position, outbuf, outcount, t);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(MPI_COMM_NULL, rc, func, "conversion failed");
    *position += n;
    return MPI_SUCCESS;
}

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    SMAP_CHECK_PTR("MPI_Unpack_external", MPI_COMM_NULL, position);
    MPI_Count pos = *position;
    int rc = unpack_external("MPI_Unpack_external", datarep, inbuf, insize, &pos, outbuf,
                             outcount, datatype);
    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return rc;
}

int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    return unpack_external("MPI_Unpack_external_c", datarep, inbuf, insize, position, outbuf,
                           outcount, datatype);
}

static int pack_external_size(const char *func, const char *datarep, MPI_Count incount,
                              MPI_Datatype datatype, MPI_Count *size)
{
    smap_dtype_t *t;
    SMAP_CHECK_RUNNING(func);
    int rc = check_datarep(func, datarep);
    if (rc != MPI_SUCCESS)
        return rc;
    if (incount < 0)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_COUNT, func, "incount %lld is negative",
                              (long long)incount);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, datatype, t);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, size);
    return ext_size(func, t, incount, size);
}

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    MPI_Count n = 0;
    int rc = pack_external_size("MPI_Pack_external_size", datarep, incount, datatype, &n);
    if (rc == MPI_SUCCESS)
        *size = (MPI_Aint)n;
    return rc;
}

int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    return pack_external_size("MPI_Pack_external_size_c", datarep, incount, datatype, size);
}
