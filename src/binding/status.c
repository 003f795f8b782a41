/* The MPI_Status functions: counts (MPI_Get_count, MPI_Get_elements,
 * MPI_Status_set_elements, with their large-count twins), the cancelled
 * flag, and MPI 5.0's field accessors.  The hidden fields' layout is in
 * src/mpi/status.h; the count is stored in bytes and converted with the
 * datatype engine.  Errors belong to no communicator (MPI_COMM_SELF's
 * handler). */
#include <limits.h>

#include <mpi.h>

#include "binding/check.h"
#include "binding/dtype_check.h"
#include "dtype/engine.h"
#include "mpi/status.h"

#define SMAP_CHECK_STATUS(func, st)                                                        \
    do {                                                                                   \
        if (SMAP_UNLIKELY((st) == MPI_STATUS_IGNORE))                                      \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func, "%s",                  \
                                  "status is MPI_STATUS_IGNORE");                          \
    } while (0)

#define STATUS_PROLOGUE(func, st)                                                          \
    SMAP_CHECK_RUNNING(func);                                                              \
    SMAP_CHECK_STATUS(func, st)

/* ---- counts ---- */

static int get_count(const char *func, const MPI_Status *status, MPI_Datatype datatype,
                     MPI_Count *count)
{
    smap_dtype_t *t;
    STATUS_PROLOGUE(func, status);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, datatype, t);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, count);
    MPI_Count bytes = smap_status_bytes(status), size = smap_dtype_size(t);
    if (size == 0)
        *count = 0;   /* MPI: a zero-size datatype gives a count of zero */
    else
        *count = bytes % size ? MPI_UNDEFINED : bytes / size;
    return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    SMAP_CHECK_PTR("MPI_Get_count", MPI_COMM_NULL, count);
    MPI_Count c;
    int rc = get_count("MPI_Get_count", status, datatype, &c);
    if (rc == MPI_SUCCESS)
        *count = c > INT_MAX ? MPI_UNDEFINED : (int)c;
    return rc;
}

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return get_count("MPI_Get_count_c", status, datatype, count);
}

static int get_elements(const char *func, const MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count *count)
{
    smap_dtype_t *t;
    STATUS_PROLOGUE(func, status);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, datatype, t);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, count);
    MPI_Count n = smap_dtype_elements(t, smap_status_bytes(status));
    if (n < 0 && n != MPI_UNDEFINED)
        return smap_err_raise(MPI_COMM_NULL, (int)(-1 - n), func, "%s",
                              "cannot compile the datatype's type map");
    *count = n;
    return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    SMAP_CHECK_PTR("MPI_Get_elements", MPI_COMM_NULL, count);
    MPI_Count c;
    int rc = get_elements("MPI_Get_elements", status, datatype, &c);
    if (rc == MPI_SUCCESS)
        *count = c > INT_MAX ? MPI_UNDEFINED : (int)c;
    return rc;
}

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return get_elements("MPI_Get_elements_c", status, datatype, count);
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return get_elements("MPI_Get_elements_x", status, datatype, count);
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

static int set_elements(const char *func, MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count count)
{
    smap_dtype_t *t;
    STATUS_PROLOGUE(func, status);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, datatype, t);
    if (count < 0)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_COUNT, func, "count %lld is negative",
                              (long long)count);
    MPI_Count bytes = elements_to_bytes(t, count);
    if (bytes == -3)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, func, "%s",
                              "cannot compile the datatype's type map");
    if (bytes == -2)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_COUNT, func,
                              "count %lld, but the datatype has no basic elements",
                              (long long)count);
    if (bytes < 0)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_COUNT, func,
                              "%lld elements overflow the byte count", (long long)count);
    smap_status_set_bytes(status, bytes);
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return set_elements("MPI_Status_set_elements", status, datatype, count);
}

int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

/* ---- cancelled flag ---- */

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    STATUS_PROLOGUE("MPI_Status_set_cancelled", status);
    smap_status_set_cancelled(status, flag);
    return MPI_SUCCESS;
}

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    STATUS_PROLOGUE("MPI_Test_cancelled", status);
    SMAP_CHECK_PTR("MPI_Test_cancelled", MPI_COMM_NULL, flag);
    *flag = smap_status_cancelled(status);
    return MPI_SUCCESS;
}

/* ---- MPI 5.0 field accessors ---- */

int PMPI_Status_get_source(const MPI_Status *status, int *source)
{
    STATUS_PROLOGUE("MPI_Status_get_source", status);
    SMAP_CHECK_PTR("MPI_Status_get_source", MPI_COMM_NULL, source);
    *source = status->MPI_SOURCE;
    return MPI_SUCCESS;
}

int PMPI_Status_get_tag(const MPI_Status *status, int *tag)
{
    STATUS_PROLOGUE("MPI_Status_get_tag", status);
    SMAP_CHECK_PTR("MPI_Status_get_tag", MPI_COMM_NULL, tag);
    *tag = status->MPI_TAG;
    return MPI_SUCCESS;
}

int PMPI_Status_get_error(const MPI_Status *status, int *err)
{
    STATUS_PROLOGUE("MPI_Status_get_error", status);
    SMAP_CHECK_PTR("MPI_Status_get_error", MPI_COMM_NULL, err);
    *err = status->MPI_ERROR;
    return MPI_SUCCESS;
}

int PMPI_Status_set_source(MPI_Status *status, int source)
{
    STATUS_PROLOGUE("MPI_Status_set_source", status);
    status->MPI_SOURCE = source;
    return MPI_SUCCESS;
}

int PMPI_Status_set_tag(MPI_Status *status, int tag)
{
    STATUS_PROLOGUE("MPI_Status_set_tag", status);
    status->MPI_TAG = tag;
    return MPI_SUCCESS;
}

int PMPI_Status_set_error(MPI_Status *status, int err)
{
    STATUS_PROLOGUE("MPI_Status_set_error", status);
    status->MPI_ERROR = err;
    return MPI_SUCCESS;
}
