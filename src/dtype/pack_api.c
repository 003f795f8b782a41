/* MPI_Pack / MPI_Unpack / MPI_Pack_size and the external32 variants, with
 * their large-count twins, over the engine (engine.h): called by their
 * generated stubs in src/binding/gen/pack.c once the handles and pointers
 * are checked.  MPI_SUCCESS or an error class, the reason recorded
 * (base/why.h).  The int/MPI_Aint forms keep the position in their own
 * type and fail before touching it. */
#include <limits.h>
#include <string.h>

#include <mpi.h>

#include "base/compiler.h"
#include "base/why.h"
#include "dtype/dtype.h"
#include "dtype/engine.h"

/* What packing and unpacking share: a non-negative count of a committed
 * type, a position inside a buffer of `bufsize` bytes with room for the
 * count's `n` bytes (set), the buffer not NULL when something moves. */
static int check_room(MPI_Count count, const smap_dtype_t *t, MPI_Count bufsize,
                      MPI_Count position, MPI_Count n, const void *buf)
{
    if (bufsize < 0 || position < 0)
        return smap_failf(MPI_ERR_ARG, "buffer size %lld or position %lld is negative",
                          (long long)bufsize, (long long)position);
    if (n > bufsize - position)
        return smap_failf(MPI_ERR_TRUNCATE,
                          "%lld elements (%lld bytes) do not fit at position %lld of a "
                          "%lld-byte buffer", (long long)count, (long long)n,
                          (long long)position, (long long)bufsize);
    if (n > 0 && !buf)
        return smap_fail(MPI_ERR_BUFFER, "the packed buffer is NULL");
    (void)t;
    return MPI_SUCCESS;
}

static int check_type(MPI_Count count, const smap_dtype_t *t)
{
    if (count < 0)
        return smap_failf(MPI_ERR_COUNT, "count %lld is negative", (long long)count);
    if (!smap_dtype_committed(t))
        return smap_fail(MPI_ERR_TYPE, "datatype is not committed (MPI_Type_commit)");
    return MPI_SUCCESS;
}

/* The native bytes of count elements of t (*n), or MPI_ERR_TRUNCATE. */
static int native_bytes(MPI_Count count, const smap_dtype_t *t, MPI_Count *n)
{
    if (smap_mul_overflow_i64(count, t->size, n))
        return smap_failf(MPI_ERR_TRUNCATE, "%lld elements overflow the byte count",
                          (long long)count);
    return MPI_SUCCESS;
}

int smap_dtype_pack_at(const void *inbuf, MPI_Count incount, smap_dtype_t *t, void *outbuf,
                       MPI_Count outsize, MPI_Count *position)
{
    MPI_Count n = 0;
    int rc = check_type(incount, t);
    if (rc == MPI_SUCCESS)
        rc = native_bytes(incount, t, &n);
    if (rc == MPI_SUCCESS)
        rc = check_room(incount, t, outsize, *position, n, outbuf);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_dtype_pack(inbuf, incount, t, (char *)outbuf + *position, 0, n);
    *position += n;
    return MPI_SUCCESS;
}

int smap_dtype_pack_at_int(const void *inbuf, int incount, smap_dtype_t *t, void *outbuf,
                           int outsize, int *position)
{
    MPI_Count pos = *position;
    int rc = smap_dtype_pack_at(inbuf, incount, t, outbuf, outsize, &pos);
    if (rc == MPI_SUCCESS)
        *position = (int)pos;
    return rc;
}

int smap_dtype_unpack_at(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                         MPI_Count outcount, smap_dtype_t *t)
{
    MPI_Count n = 0;
    int rc = check_type(outcount, t);
    if (rc == MPI_SUCCESS)
        rc = native_bytes(outcount, t, &n);
    if (rc == MPI_SUCCESS)
        rc = check_room(outcount, t, insize, *position, n, inbuf);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_dtype_unpack((const char *)inbuf + *position, n, outbuf, outcount, t, 0);
    *position += n;
    return MPI_SUCCESS;
}

int smap_dtype_unpack_at_int(const void *inbuf, int insize, int *position, void *outbuf,
                             int outcount, smap_dtype_t *t)
{
    MPI_Count pos = *position;
    int rc = smap_dtype_unpack_at(inbuf, insize, &pos, outbuf, outcount, t);
    if (rc == MPI_SUCCESS)
        *position = (int)pos;
    return rc;
}

int smap_dtype_pack_size_of(MPI_Count incount, const smap_dtype_t *t, MPI_Count *size)
{
    MPI_Count n;
    if (smap_mul_overflow_i64(incount, t->size, &n))
        return smap_fail(MPI_ERR_VALUE_TOO_LARGE, "the size overflows");
    *size = n;
    return MPI_SUCCESS;
}

int smap_dtype_pack_size_int(int incount, const smap_dtype_t *t, int *size)
{
    MPI_Count n = 0;
    int rc = smap_dtype_pack_size_of(incount, t, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    if (n > INT_MAX)
        return smap_failf(MPI_ERR_VALUE_TOO_LARGE,
                          "%lld bytes do not fit an int: use MPI_Pack_size_c", (long long)n);
    *size = (int)n;
    return MPI_SUCCESS;
}

/* ---- external32 ---- */

static int check_datarep(const char *datarep)
{
    if (strcmp(datarep, "external32") != 0)
        return smap_failf(MPI_ERR_UNSUPPORTED_DATAREP,
                          "data representation \"%.64s\" is not supported (only "
                          "\"external32\")", datarep);
    return MPI_SUCCESS;
}

/* The external32 bytes of count elements of t. */
static int ext_bytes(smap_dtype_t *t, MPI_Count count, MPI_Count *n)
{
    MPI_Count x = smap_dtype_external_size(t);
    if (x < 0)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    if (smap_mul_overflow_i64(count, x, n))
        return smap_fail(MPI_ERR_VALUE_TOO_LARGE, "the size overflows");
    return MPI_SUCCESS;
}

/* As packing's checks, for external32: *n its bytes. */
static int check_ext_stream(const char *datarep, MPI_Count count, smap_dtype_t *t,
                            const void *buf, MPI_Count bufsize, MPI_Count position, MPI_Count *n)
{
    int rc = check_datarep(datarep);
    if (rc == MPI_SUCCESS)
        rc = check_type(count, t);
    if (rc == MPI_SUCCESS && (bufsize < 0 || position < 0))
        rc = smap_fail(MPI_ERR_ARG, "buffer size or position is negative");
    if (rc == MPI_SUCCESS)
        rc = ext_bytes(t, count, n);
    if (rc == MPI_SUCCESS)
        rc = check_room(count, t, bufsize, position, *n, buf);
    return rc;
}

int smap_dtype_pack_ext(const char *datarep, const void *inbuf, MPI_Count incount,
                        smap_dtype_t *t, void *outbuf, MPI_Count outsize, MPI_Count *position)
{
    MPI_Count n = 0;
    int rc = check_ext_stream(datarep, incount, t, outbuf, outsize, *position, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = smap_dtype_pack_external(inbuf, incount, t, (char *)outbuf + *position);
    if (rc != MPI_SUCCESS)
        return smap_fail(rc, rc == MPI_ERR_CONVERSION
                                 ? "a value does not fit its external32 representation"
                                 : "conversion failed");
    *position += n;
    return MPI_SUCCESS;
}

int smap_dtype_pack_ext_aint(const char *datarep, const void *inbuf, int incount,
                             smap_dtype_t *t, void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    MPI_Count pos = *position;
    int rc = smap_dtype_pack_ext(datarep, inbuf, incount, t, outbuf, outsize, &pos);
    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return rc;
}

int smap_dtype_unpack_ext(const char *datarep, const void *inbuf, MPI_Count insize,
                          MPI_Count *position, void *outbuf, MPI_Count outcount, smap_dtype_t *t)
{
    MPI_Count n = 0;
    int rc = check_ext_stream(datarep, outcount, t, inbuf, insize, *position, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = smap_dtype_unpack_external((const char *)inbuf + *position, outbuf, outcount, t);
    if (rc != MPI_SUCCESS)
        return smap_fail(rc, "conversion failed");
    *position += n;
    return MPI_SUCCESS;
}

int smap_dtype_unpack_ext_aint(const char *datarep, const void *inbuf, MPI_Aint insize,
                               MPI_Aint *position, void *outbuf, int outcount, smap_dtype_t *t)
{
    MPI_Count pos = *position;
    int rc = smap_dtype_unpack_ext(datarep, inbuf, insize, &pos, outbuf, outcount, t);
    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return rc;
}

int smap_dtype_ext_size(const char *datarep, MPI_Count incount, smap_dtype_t *t, MPI_Count *size)
{
    int rc = check_datarep(datarep);
    if (rc == MPI_SUCCESS && incount < 0)
        rc = smap_failf(MPI_ERR_COUNT, "incount %lld is negative", (long long)incount);
    return rc == MPI_SUCCESS ? ext_bytes(t, incount, size) : rc;
}

int smap_dtype_ext_size_aint(const char *datarep, int incount, smap_dtype_t *t, MPI_Aint *size)
{
    MPI_Count n = 0;
    int rc = smap_dtype_ext_size(datarep, incount, t, &n);
    if (rc == MPI_SUCCESS)
        *size = (MPI_Aint)n;
    return rc;
}
