/* The operations behind the status entry points that need a datatype
 * (MPI_Get_count, MPI_Get_elements, MPI_Status_set_elements and their
 * large-count twins), called by their generated stubs in
 * src/binding/gen/status.c once the status, the datatype and the pointers
 * are checked.  The hidden fields' layout is in status.h; the count is
 * stored in bytes and converted with the datatype engine.  Each returns
 * MPI_SUCCESS or an error class with the reason recorded (base/why.h). */
#include <limits.h>

#include <mpi.h>

#include "base/compiler.h"
#include "base/why.h"
#include "dtype/dtype.h"
#include "dtype/engine.h"
#include "mpi/status.h"

/* An MPI_Count result into an int (MPI_UNDEFINED when it does not fit). */
static void to_int(MPI_Count c, int *out)
{
    *out = c > INT_MAX ? MPI_UNDEFINED : (int)c;
}

void smap_status_count(const MPI_Status *status, smap_dtype_t *t, MPI_Count *count)
{
    MPI_Count bytes = smap_status_bytes(status), size = smap_dtype_size(t);
    if (size == 0)
        *count = 0;   /* MPI: a zero-size datatype gives a count of zero */
    else
        *count = bytes % size ? MPI_UNDEFINED : bytes / size;
}

void smap_status_count_int(const MPI_Status *status, smap_dtype_t *t, int *count)
{
    MPI_Count c = 0;
    smap_status_count(status, t, &c);
    to_int(c, count);
}

int smap_status_elements(const MPI_Status *status, smap_dtype_t *t, MPI_Count *count)
{
    MPI_Count n = smap_dtype_elements(t, smap_status_bytes(status));
    if (n < 0 && n != MPI_UNDEFINED)
        return smap_fail((int)(-1 - n), "cannot compile the datatype's type map");
    *count = n;
    return MPI_SUCCESS;
}

int smap_status_elements_int(const MPI_Status *status, smap_dtype_t *t, int *count)
{
    MPI_Count c = 0;
    int rc = smap_status_elements(status, t, &c);
    if (rc == MPI_SUCCESS)
        to_int(c, count);
    return rc;
}

/* Bytes of the first `count` basic elements of a stream of t (the inverse
 * of smap_dtype_elements), or -1 on overflow, -2 when t has no basic
 * elements but count > 0, -3 when out of memory. */
static MPI_Count elements_to_bytes(smap_dtype_t *t, MPI_Count count)
{
    if (count == 0)
        return 0;
    const struct smap_dtype_flat *f = smap_dtype_typed(t);
    if (!f)
        return -3;
    if (f->nelem == 0)
        return -2;
    MPI_Count whole = count / f->nelem, rem = count % f->nelem, bytes;
    if (smap_mul_overflow_i64(whole, f->size, &bytes))
        return -1;
    for (MPI_Count i = 0; i < f->nblk && rem > 0; i++) {
        const struct smap_dtype_block *b = &f->blk[i];
        MPI_Count run = b->len * b->n / b->esize;   /* basic elements in this run */
        MPI_Count take = rem < run ? rem : run;
        if (smap_add_overflow_i64(bytes, take * b->esize, &bytes))
            return -1;
        rem -= take;
    }
    return bytes;
}

int smap_status_set_elements(MPI_Status *status, smap_dtype_t *t, MPI_Count count)
{
    if (count < 0)
        return smap_failf(MPI_ERR_COUNT, "count %lld is negative", (long long)count);
    MPI_Count bytes = elements_to_bytes(t, count);
    if (bytes == -3)
        return smap_fail(MPI_ERR_NO_MEM, "cannot compile the datatype's type map");
    if (bytes == -2)
        return smap_failf(MPI_ERR_COUNT, "count %lld, but the datatype has no basic elements",
                          (long long)count);
    if (bytes < 0)
        return smap_failf(MPI_ERR_COUNT, "%lld elements overflow the byte count",
                          (long long)count);
    smap_status_set_bytes(status, bytes);
    return MPI_SUCCESS;
}
