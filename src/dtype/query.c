/* The datatype entry points' queries and decoding (MPI_Type_size,
 * _get_extent, _get_true_extent, _get_envelope, _get_contents, names,
 * MPI_Type_match_size, MPI_Type_get_value_index), called by their generated
 * stubs in src/binding/gen/datatype.c once the handles and pointers are
 * checked.  Those returning int give MPI_SUCCESS or an error class with the
 * reason recorded (base/why.h). */
#include <limits.h>
#include <string.h>

#include <mpi.h>

#include "base/why.h"
#include "dtype/dtype.h"

void smap_dtype_size_int(const smap_dtype_t *t, int *size)
{
    *size = t->size > INT_MAX ? MPI_UNDEFINED : (int)t->size;
}

void smap_dtype_extent_of(const smap_dtype_t *t, int true_ext, MPI_Count *lb, MPI_Count *extent)
{
    *lb = true_ext ? t->true_lb : t->lb;
    *extent = true_ext ? t->true_extent : t->extent;
}

void smap_dtype_extent_aint(const smap_dtype_t *t, int true_ext, MPI_Aint *lb, MPI_Aint *extent)
{
    *lb = (MPI_Aint)(true_ext ? t->true_lb : t->lb);
    *extent = (MPI_Aint)(true_ext ? t->true_extent : t->extent);
}

/* A type built from large counts is described only by the _c calls. */
static int check_small(const smap_dtype_t *t, const char *large_func)
{
    if (t->nc > 0)
        return smap_failf(MPI_ERR_TYPE, "the datatype was built with large counts: use %s",
                          large_func);
    return MPI_SUCCESS;
}

int smap_dtype_envelope(const smap_dtype_t *t, MPI_Count *ni, MPI_Count *na, MPI_Count *nc,
                        MPI_Count *nt, int *combiner)
{
    *ni = t->ni;
    *na = t->na;
    *nc = t->nc;
    *nt = t->nt;
    *combiner = t->combiner;
    return MPI_SUCCESS;
}

int smap_dtype_envelope_int(const smap_dtype_t *t, int *ni, int *na, int *nt, int *combiner)
{
    int rc = check_small(t, "MPI_Type_get_envelope_c");
    if (rc != MPI_SUCCESS)
        return rc;
    *ni = t->ni;
    *na = t->na;
    *nt = t->nt;
    *combiner = t->combiner;
    return MPI_SUCCESS;
}

/* Checks an output array of n entries (n > 0: not NULL). */
static int check_array(MPI_Count n, const void *a, const char *name)
{
    return n > 0 && !a ? smap_failf(MPI_ERR_ARG, "%s is NULL", name) : MPI_SUCCESS;
}

int smap_dtype_contents(const smap_dtype_t *t, MPI_Count max_i, MPI_Count max_a, MPI_Count max_c,
                        MPI_Count max_t, int *ints, MPI_Aint *addrs, MPI_Count *counts,
                        MPI_Datatype *types)
{
    if (t->combiner == MPI_COMBINER_NAMED)
        return smap_failf(MPI_ERR_TYPE, "%s is a named predefined datatype", t->name);
    if (max_i < t->ni || max_a < t->na || max_c < t->nc || max_t < t->nt)
        return smap_failf(MPI_ERR_ARG,
                          "the arrays are too small (need %d integers, %d addresses, "
                          "%d large counts, %d datatypes)", t->ni, t->na, t->nc, t->nt);
    int rc = check_array(t->ni, ints, "array_of_integers");
    if (rc == MPI_SUCCESS)
        rc = check_array(t->na, addrs, "array_of_addresses");
    if (rc == MPI_SUCCESS)
        rc = check_array(t->nc, counts, "array_of_large_counts");
    if (rc == MPI_SUCCESS)
        rc = check_array(t->nt, types, "array_of_datatypes");
    if (rc != MPI_SUCCESS)
        return rc;
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

int smap_dtype_contents_int(const smap_dtype_t *t, int max_i, int max_a, int max_t, int *ints,
                            MPI_Aint *addrs, MPI_Datatype *types)
{
    int rc = t->combiner == MPI_COMBINER_NAMED ? MPI_SUCCESS
                                               : check_small(t, "MPI_Type_get_contents_c");
    if (rc != MPI_SUCCESS)
        return rc;
    return smap_dtype_contents(t, max_i, max_a, 0, max_t, ints, addrs, NULL, types);
}

void smap_dtype_set_name(smap_dtype_t *t, const char *type_name)
{
    size_t n = strnlen(type_name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(t->name, type_name, n);   /* longer names are truncated */
    t->name[n] = '\0';
}

int smap_dtype_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    /* MPI 4.1: the null handle has a name too */
    const char *name = "MPI_DATATYPE_NULL";
    if (datatype != MPI_DATATYPE_NULL) {
        smap_dtype_t *t = smap_dtype_get(datatype);
        if (!t)
            return smap_fail(MPI_ERR_TYPE, "datatype is not a valid datatype");
        name = t->name;
    }
    size_t n = strlen(name);
    memcpy(type_name, name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}

int smap_dtype_match_size_into(int typeclass, int size, MPI_Datatype *datatype)
{
    if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL &&
        typeclass != MPI_TYPECLASS_COMPLEX)
        return smap_failf(MPI_ERR_ARG, "unknown typeclass %d", typeclass);
    MPI_Datatype r = smap_dtype_match_size(typeclass, size);
    if (r == MPI_DATATYPE_NULL)
        return smap_failf(MPI_ERR_ARG, "no type of that class has %d bytes", size);
    *datatype = r;
    return MPI_SUCCESS;
}

/* The predefined value-index pair types (MPI 5.0 §6.9.4), for
 * MPI_MINLOC/MAXLOC; any other combination has none (MPI_DATATYPE_NULL). */
void smap_dtype_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                            MPI_Datatype *pair_type)
{
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
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        if (pairs[k].v == value_type && pairs[k].i == index_type) {
            *pair_type = pairs[k].pair;
            return;
        }
}

int smap_dtype_commit_checked(smap_dtype_t *t)
{
    return smap_dtype_fail(smap_dtype_commit(t));
}

int smap_dtype_fail(int rc)
{
    if (rc == MPI_SUCCESS)
        return rc;
    return smap_fail(rc, rc == MPI_ERR_NO_MEM  ? "out of memory"
                         : rc == MPI_ERR_COUNT ? "the type's size does not fit MPI_Count"
                                               : "cannot build the datatype");
}

/* MPI_Type_create_f90_integer/real/complex: a type of the matching
 * predefined kind (selection and the types in f90.c), which remembers the
 * arguments for MPI_Type_get_envelope/contents.  The handle is predefined:
 * the program must not free it (MPI 5.0 §19.1.9).  p is MPI_UNDEFINED for
 * an integer. */
int smap_dtype_f90_create(int combiner, int p, int r, MPI_Datatype *newtype)
{
    MPI_Datatype t;
    if (combiner == MPI_COMBINER_F90_INTEGER)
        t = r == MPI_UNDEFINED ? MPI_DATATYPE_NULL : smap_dtype_f90_integer(r);
    else
        t = smap_dtype_f90_real(p, r, combiner == MPI_COMBINER_F90_COMPLEX);
    if (t == MPI_DATATYPE_NULL)
        return smap_failf(MPI_ERR_ARG,
                          "no supported Fortran kind has precision %d and range %d "
                          "(MPI_UNDEFINED is %d)", p, r, MPI_UNDEFINED);
    smap_dtype_t *f = smap_dtype_f90_type(combiner, p, r, t);
    if (!f)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    *newtype = smap_dtype_handle(f);
    return MPI_SUCCESS;
}
