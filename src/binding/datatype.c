/* Entry points on datatypes other than the constructors: dup, commit,
 * free, queries, decoding, names, Fortran size matching, addresses.  The
 * constructors are in datatype_create.c. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "binding/check.h"
#include "binding/datatype_common.h"
#include "binding/dtype_check.h"
#include "dtype/dtype.h"
#include "dtype/engine.h"
#include "mpi/attr.h"

/* ---- helpers ---- */

int smap_bind_type_raise(const char *func, int rc)
{
    return smap_err_raise(MPI_COMM_NULL, rc, func, "%s",
                          rc == MPI_ERR_NO_MEM ? "out of memory"
                          : rc == MPI_ERR_COUNT ? "the type's size does not fit MPI_Count"
                                                : "cannot build the datatype");
}

/* The error to raise for an attribute callback's return value rc: its class
 * when rc is an error code, MPI_ERR_OTHER otherwise. */
static int attr_callback_failed(const char *func, int rc, const char *what)
{
    int cls;
    if (smap_error_class(rc, &cls) != MPI_SUCCESS || cls == MPI_SUCCESS)
        cls = MPI_ERR_OTHER;
    return smap_err_raise(MPI_COMM_NULL, cls, func, "an attribute %s callback returned %d", what,
                          rc);
}

/* Hands a new type to the caller, or frees it and raises. */
int smap_bind_type_done(const char *func, int rc, smap_dtype_t *t, MPI_Datatype *newtype)
{
    if (rc != MPI_SUCCESS) {
        smap_dtype_release(t);
        return smap_bind_type_raise(func, rc);
    }
    *newtype = smap_dtype_handle(t);
    return MPI_SUCCESS;
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char func[] = "MPI_Type_dup";
    smap_dtype_t *old, *t = NULL;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, oldtype, old);
    CHECK_NEWTYPE(func, newtype);
    int rc = smap_dtype_dup(old, &t);
    if (rc != MPI_SUCCESS) {
        smap_dtype_release(t);
        return smap_bind_type_raise(func, rc);
    }
    rc = smap_dtype_set_contents(t, MPI_COMBINER_DUP, 0, 0, NULL, 0, NULL, 0, NULL, 1, &oldtype);
    if (rc != MPI_SUCCESS)
        return smap_bind_type_done(func, rc, t, newtype);
    memcpy(t->name, old->name, sizeof t->name);
    /* The attributes, through the keyvals' copy callbacks (MPI-5.0 7.7.4).
     * On a failing callback smap_attr_list_copy has deleted what it copied
     * (delete callbacks on the new handle): free the half-built type. */
    rc = smap_attr_list_copy(SMAP_OBJ_TYPE, smap_dtype_handle(old), &old->attrs,
                             smap_dtype_handle(t), &t->attrs);
    if (rc != MPI_SUCCESS) {
        smap_dtype_release(t);
        if (rc == MPI_ERR_NO_MEM)
            return smap_bind_type_raise(func, rc);
        return attr_callback_failed(func, rc, "copy");
    }
    *newtype = smap_dtype_handle(t);
    return MPI_SUCCESS;
}

/* ---- commit, free ---- */

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    static const char func[] = "MPI_Type_commit";
    smap_dtype_t *t;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, datatype);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, *datatype, t);
    int rc = smap_dtype_commit(t);
    return rc == MPI_SUCCESS ? rc : smap_bind_type_raise(func, rc);
}

int PMPI_Type_free(MPI_Datatype *datatype)
{
    static const char func[] = "MPI_Type_free";
    smap_dtype_t *t;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, datatype);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, *datatype, t);
    if (t->flags & (SMAP_DT_PREDEF | SMAP_DT_F90))
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_TYPE, func,
                              "%s is predefined and cannot be freed%s", t->name,
                              (t->flags & SMAP_DT_F90) ? " (from MPI_Type_create_f90_*)" : "");
    /* The attributes go with the handle, newest first, while the handle is
     * still valid for the delete callbacks (MPI-5.0 7.7.4).  The list is
     * empty afterwards whatever they return, so the type is freed even when
     * one fails; the call then reports the first failure. */
    int rc = smap_attr_list_delete(SMAP_OBJ_TYPE, *datatype, &t->attrs);
    smap_dtype_drop(t);
    *datatype = MPI_DATATYPE_NULL;
    return rc == MPI_SUCCESS ? rc : attr_callback_failed(func, rc, "delete");
}

/* ---- queries ---- */

#define QUERY_PROLOGUE(func, h, t)                                                         \
    SMAP_CHECK_RUNNING(func);                                                              \
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, h, t)

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    smap_dtype_t *t;
    QUERY_PROLOGUE("MPI_Type_size", datatype, t);
    SMAP_CHECK_PTR("MPI_Type_size", MPI_COMM_NULL, size);
    *size = t->size > INT_MAX ? MPI_UNDEFINED : (int)t->size;
    return MPI_SUCCESS;
}

static int size_c(const char *func, MPI_Datatype datatype, MPI_Count *size)
{
    smap_dtype_t *t;
    QUERY_PROLOGUE(func, datatype, t);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, size);
    *size = t->size;
    return MPI_SUCCESS;
}

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    return size_c("MPI_Type_size_c", datatype, size);
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    return size_c("MPI_Type_size_x", datatype, size);
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    smap_dtype_t *t;
    QUERY_PROLOGUE("MPI_Type_get_extent", datatype, t);
    SMAP_CHECK_PTR("MPI_Type_get_extent", MPI_COMM_NULL, lb);
    SMAP_CHECK_PTR("MPI_Type_get_extent", MPI_COMM_NULL, extent);
    *lb = (MPI_Aint)t->lb;
    *extent = (MPI_Aint)t->extent;
    return MPI_SUCCESS;
}

static int extent_c(const char *func, int true_ext, MPI_Datatype datatype, MPI_Count *lb,
                    MPI_Count *extent)
{
    smap_dtype_t *t;
    QUERY_PROLOGUE(func, datatype, t);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, lb);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, extent);
    *lb = true_ext ? t->true_lb : t->lb;
    *extent = true_ext ? t->true_extent : t->extent;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return extent_c("MPI_Type_get_extent_c", 0, datatype, lb, extent);
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return extent_c("MPI_Type_get_extent_x", 0, datatype, lb, extent);
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    smap_dtype_t *t;
    QUERY_PROLOGUE("MPI_Type_get_true_extent", datatype, t);
    SMAP_CHECK_PTR("MPI_Type_get_true_extent", MPI_COMM_NULL, true_lb);
    SMAP_CHECK_PTR("MPI_Type_get_true_extent", MPI_COMM_NULL, true_extent);
    *true_lb = (MPI_Aint)t->true_lb;
    *true_extent = (MPI_Aint)t->true_extent;
    return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return extent_c("MPI_Type_get_true_extent_c", 1, datatype, true_lb, true_extent);
}

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return extent_c("MPI_Type_get_true_extent_x", 1, datatype, true_lb, true_extent);
}

/* ---- decoding ---- */

static int envelope(const char *func, MPI_Datatype datatype, int large, MPI_Count *ni,
                    MPI_Count *na, MPI_Count *nc, MPI_Count *nt, int *combiner)
{
    smap_dtype_t *t;
    QUERY_PROLOGUE(func, datatype, t);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, combiner);
    if (!large && t->nc > 0)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_TYPE, func,
                              "the datatype was built with large counts: use %s_c", func);
    *ni = t->ni;
    *na = t->na;
    *nc = t->nc;
    *nt = t->nt;
    *combiner = t->combiner;
    return MPI_SUCCESS;
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    static const char func[] = "MPI_Type_get_envelope";
    MPI_Count ni, na, nc, nt;
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, num_integers);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, num_addresses);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, num_datatypes);
    int rc = envelope(func, datatype, 0, &ni, &na, &nc, &nt, combiner);
    if (rc == MPI_SUCCESS) {
        *num_integers = (int)ni;
        *num_addresses = (int)na;
        *num_datatypes = (int)nt;
    }
    return rc;
}

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    static const char func[] = "MPI_Type_get_envelope_c";
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, num_integers);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, num_addresses);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, num_large_counts);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, num_datatypes);
    return envelope(func, datatype, 1, num_integers, num_addresses, num_large_counts,
                    num_datatypes, combiner);
}

static int contents(const char *func, int large, MPI_Datatype datatype, MPI_Count max_i,
                    MPI_Count max_a, MPI_Count max_c, MPI_Count max_t, int *ints,
                    MPI_Aint *addrs, MPI_Count *counts, MPI_Datatype *types)
{
    smap_dtype_t *t;
    QUERY_PROLOGUE(func, datatype, t);
    if (t->combiner == MPI_COMBINER_NAMED)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_TYPE, func,
                              "%s is a named predefined datatype", t->name);
    if (!large && t->nc > 0)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_TYPE, func,
                              "the datatype was built with large counts: use %s_c", func);
    if (max_i < t->ni || max_a < t->na || max_c < t->nc || max_t < t->nt)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func,
                              "the arrays are too small (need %d integers, %d addresses, "
                              "%d large counts, %d datatypes)", t->ni, t->na, t->nc, t->nt);
    CHECK_ARRAY(func, t->ni, ints);
    CHECK_ARRAY(func, t->na, addrs);
    CHECK_ARRAY(func, t->nc, counts);
    CHECK_ARRAY(func, t->nt, types);
    if (t->ni)
        memcpy(ints, t->ints, (size_t)t->ni * sizeof *ints);
    if (t->na)
        memcpy(addrs, t->addrs, (size_t)t->na * sizeof *addrs);
    if (t->nc)
        memcpy(counts, t->counts, (size_t)t->nc * sizeof *counts);
    for (int i = 0; i < t->nt; i++) {
        /* derived types come back as new references the caller frees */
        smap_dtype_t *c = smap_dtype_stored(t->ctypes[i]);
        if (c)
            smap_dtype_give(c);
        types[i] = t->ctypes[i];
    }
    return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    return contents("MPI_Type_get_contents", 0, datatype, max_integers, max_addresses, 0,
                    max_datatypes, array_of_integers, array_of_addresses, NULL,
                    array_of_datatypes);
}

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                             MPI_Count max_addresses, MPI_Count max_large_counts,
                             MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[])
{
    return contents("MPI_Type_get_contents_c", 1, datatype, max_integers, max_addresses,
                    max_large_counts, max_datatypes, array_of_integers, array_of_addresses,
                    array_of_large_counts, array_of_datatypes);
}

/* ---- names ---- */

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    smap_dtype_t *t;
    QUERY_PROLOGUE("MPI_Type_set_name", datatype, t);
    SMAP_CHECK_PTR("MPI_Type_set_name", MPI_COMM_NULL, type_name);
    size_t n = strnlen(type_name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(t->name, type_name, n);   /* longer names are truncated */
    t->name[n] = '\0';
    return MPI_SUCCESS;
}

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    smap_dtype_t *t;
    SMAP_CHECK_RUNNING("MPI_Type_get_name");
    SMAP_CHECK_PTR("MPI_Type_get_name", MPI_COMM_NULL, type_name);
    SMAP_CHECK_PTR("MPI_Type_get_name", MPI_COMM_NULL, resultlen);
    /* MPI 4.1: the null handle has a name too */
    const char *name = "MPI_DATATYPE_NULL";
    if (datatype != MPI_DATATYPE_NULL) {
        SMAP_CHECK_DTYPE("MPI_Type_get_name", MPI_COMM_NULL, datatype, t);
        name = t->name;
    }
    size_t n = strlen(name);
    memcpy(type_name, name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}

/* ---- Fortran size matching, addresses ---- */

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const char func[] = "MPI_Type_match_size";
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, datatype);
    if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL &&
        typeclass != MPI_TYPECLASS_COMPLEX)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func, "unknown typeclass %d",
                              typeclass);
    MPI_Datatype r = smap_dtype_match_size(typeclass, size);
    if (r == MPI_DATATYPE_NULL)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func,
                              "no type of that class has %d bytes", size);
    *datatype = r;
    return MPI_SUCCESS;
}

/* Local and valid at any time (no library state involved). */
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    SMAP_CHECK_PTR("MPI_Get_address", MPI_COMM_NULL, address);
    *address = (MPI_Aint)location;
    return MPI_SUCCESS;
}

/* The predefined value-index pair types (MPI 5.0 §6.9.4), for
 * MPI_MINLOC/MAXLOC; any other combination has none. */
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype *pair_type)
{
    static const char func[] = "MPI_Type_get_value_index";
    static const struct { MPI_Datatype v, i, pair; } pairs[] = {
        { MPI_FLOAT, MPI_INT, MPI_FLOAT_INT },
        { MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT },
        { MPI_LONG, MPI_INT, MPI_LONG_INT },
        { MPI_INT, MPI_INT, MPI_2INT },
        { MPI_SHORT, MPI_INT, MPI_SHORT_INT },
        { MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT },
        { MPI_REAL, MPI_REAL, MPI_2REAL },
        { MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION },
        { MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER },
    };
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, pair_type);
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        if (pairs[k].v == value_type && pairs[k].i == index_type) {
            *pair_type = pairs[k].pair;
            return MPI_SUCCESS;
        }
    /* no pair: still an error when either is not a datatype at all */
    const char *bad = !smap_dtype_get(value_type) ? "value_type"
                      : !smap_dtype_get(index_type) ? "index_type" : NULL;
    if (bad)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_TYPE, func, "%s is not a valid datatype",
                              bad);
    return MPI_SUCCESS;
}
