/* Entry points on datatypes: constructors (and their large-count "_c"
 * twins), commit/free/dup, queries, decoding, names.  The work is in
 * src/dtype/; here: argument checks, int -> MPI_Count conversion, the
 * contents MPI_Type_get_contents returns. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "binding/check.h"
#include "binding/dtype_check.h"
#include "dtype/dtype.h"
#include "dtype/engine.h"
#include "mpi/attr.h"

/* ---- helpers ---- */

static int raise_rc(const char *func, int rc)
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
static int done(const char *func, int rc, smap_dtype_t *t, MPI_Datatype *newtype)
{
    if (rc != MPI_SUCCESS) {
        smap_dtype_release(t);
        return raise_rc(func, rc);
    }
    *newtype = smap_dtype_handle(t);
    return MPI_SUCCESS;
}

/* Checks a count-sized array argument. */
#define CHECK_ARRAY(func, n, a)                                                            \
    do {                                                                                   \
        if ((n) > 0 && !(a))                                                               \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func, "%s is NULL", #a);     \
    } while (0)

#define CHECK_COUNT(func, n)                                                               \
    do {                                                                                   \
        if ((n) < 0)                                                                       \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_COUNT, func,                      \
                                  "%s is negative (%lld)", #n, (long long)(n));            \
    } while (0)

#define CHECK_NEWTYPE(func, p) SMAP_CHECK_PTR(func, MPI_COMM_NULL, p)

static int bad_blocklength(const char *func, MPI_Count i, MPI_Count bl)
{
    return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func,
                          "block length %lld (block %lld) is negative", (long long)bl,
                          (long long)i);
}

/* ---- contiguous ---- */

static int contiguous(const char *func, int large, MPI_Count count, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    smap_dtype_t *old, *t = NULL;
    SMAP_CHECK_RUNNING(func);
    CHECK_COUNT(func, count);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, oldtype, old);
    CHECK_NEWTYPE(func, newtype);
    int rc = smap_dtype_contiguous(count, old, &t);
    if (rc != MPI_SUCCESS)
        return raise_rc(func, rc);
    int ci = (int)count;
    rc = large ? smap_dtype_set_contents(t, MPI_COMBINER_CONTIGUOUS, 1, 0, NULL, 0, NULL, 1,
                                         &count, 1, &oldtype)
               : smap_dtype_set_contents(t, MPI_COMBINER_CONTIGUOUS, 0, 1, &ci, 0, NULL, 0,
                                         NULL, 1, &oldtype);
    return done(func, rc, t, newtype);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return contiguous("MPI_Type_contiguous", 0, count, oldtype, newtype);
}

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return contiguous("MPI_Type_contiguous_c", 1, count, oldtype, newtype);
}

/* ---- vector, hvector ---- */

static int vector(const char *func, int large, int bytes, MPI_Count count, MPI_Count bl,
                  MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    smap_dtype_t *old, *t = NULL;
    SMAP_CHECK_RUNNING(func);
    CHECK_COUNT(func, count);
    if (bl < 0)
        return bad_blocklength(func, 0, bl);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, oldtype, old);
    CHECK_NEWTYPE(func, newtype);
    MPI_Aint sbytes = bytes ? (MPI_Aint)stride : (MPI_Aint)(stride * old->extent);
    int rc = smap_dtype_hvector(count, bl, sbytes, old, &t);
    if (rc != MPI_SUCCESS)
        return raise_rc(func, rc);
    int comb = bytes ? MPI_COMBINER_HVECTOR : MPI_COMBINER_VECTOR;
    if (large) {
        MPI_Count c[3] = {count, bl, stride};
        rc = smap_dtype_set_contents(t, comb, 1, 0, NULL, 0, NULL, 3, c, 1, &oldtype);
    } else if (bytes) {
        int i[2] = {(int)count, (int)bl};
        MPI_Aint a = (MPI_Aint)stride;
        rc = smap_dtype_set_contents(t, comb, 0, 2, i, 1, &a, 0, NULL, 1, &oldtype);
    } else {
        int i[3] = {(int)count, (int)bl, (int)stride};
        rc = smap_dtype_set_contents(t, comb, 0, 3, i, 0, NULL, 0, NULL, 1, &oldtype);
    }
    return done(func, rc, t, newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    return vector("MPI_Type_vector", 0, 0, count, blocklength, stride, oldtype, newtype);
}

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector("MPI_Type_vector_c", 1, 0, count, blocklength, stride, oldtype, newtype);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    return vector("MPI_Type_create_hvector", 0, 1, count, blocklength, stride, oldtype, newtype);
}

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector("MPI_Type_create_hvector_c", 1, 1, count, blocklength, stride, oldtype,
                  newtype);
}

/* ---- indexed family and struct ----
 * One worker for all ten: block lengths (per block or one for all),
 * displacements (in elements of oldtype or in bytes), one old type or one
 * per block (struct).  The arguments come either as int/MPI_Aint arrays or
 * as MPI_Count arrays (large). */

struct blocks_args {
    int combiner, large, bytes, per_block_bl, is_struct;
    MPI_Count count, bl_all;
    const int *bl_i;
    const MPI_Count *bl_c;
    const int *disp_i;
    const MPI_Aint *disp_a;
    const MPI_Count *disp_c;
    MPI_Datatype oldtype;
    const MPI_Datatype *types;
};

static MPI_Count arg_bl(const struct blocks_args *a, MPI_Count i)
{
    if (!a->per_block_bl)
        return a->bl_all;
    return a->large ? a->bl_c[i] : a->bl_i[i];
}

static MPI_Count arg_disp(const struct blocks_args *a, MPI_Count i)
{
    if (a->large)
        return a->disp_c[i];
    return a->bytes ? (MPI_Count)a->disp_a[i] : (MPI_Count)a->disp_i[i];
}

static int blocks_contents(smap_dtype_t *t, const struct blocks_args *a)
{
    MPI_Count n = a->count;
    int rc = MPI_ERR_NO_MEM;
    int nt = a->is_struct ? (int)n : 1;
    const MPI_Datatype *types = a->is_struct ? a->types : &a->oldtype;
    if (a->large) {
        /* count, [bl...|bl], disp... */
        MPI_Count nc = 1 + (a->per_block_bl ? n : 1) + n, k = 0;
        MPI_Count *c = malloc((size_t)nc * sizeof *c);
        if (!c)
            return rc;
        c[k++] = n;
        if (a->per_block_bl)
            for (MPI_Count i = 0; i < n; i++)
                c[k++] = a->bl_c[i];
        else
            c[k++] = a->bl_all;
        for (MPI_Count i = 0; i < n; i++)
            c[k++] = a->disp_c[i];
        rc = smap_dtype_set_contents(t, a->combiner, 1, 0, NULL, 0, NULL, (int)nc, c, nt, types);
        free(c);
        return rc;
    }
    /* ints: count, [bl...|bl], [disp... when in elements]; addrs: byte disps */
    MPI_Count ni = 1 + (a->per_block_bl ? n : 1) + (a->bytes ? 0 : n), k = 0;
    int *iv = malloc((size_t)ni * sizeof *iv);
    if (!iv)
        return rc;
    iv[k++] = (int)n;
    if (a->per_block_bl)
        for (MPI_Count i = 0; i < n; i++)
            iv[k++] = a->bl_i[i];
    else
        iv[k++] = (int)a->bl_all;
    if (!a->bytes)
        for (MPI_Count i = 0; i < n; i++)
            iv[k++] = a->disp_i[i];
    rc = smap_dtype_set_contents(t, a->combiner, 0, (int)ni, iv, a->bytes ? (int)n : 0,
                                 a->disp_a, 0, NULL, nt, types);
    free(iv);
    return rc;
}

static int blocks(const char *func, const struct blocks_args *a, MPI_Datatype *newtype)
{
    smap_dtype_t *old = NULL, *t = NULL;
    SMAP_CHECK_RUNNING(func);
    CHECK_COUNT(func, a->count);
    MPI_Count n = a->count;
    if (a->per_block_bl)
        CHECK_ARRAY(func, n, a->large ? (const void *)a->bl_c : (const void *)a->bl_i);
    CHECK_ARRAY(func, n, a->large ? (const void *)a->disp_c
                         : a->bytes ? (const void *)a->disp_a : (const void *)a->disp_i);
    if (a->is_struct)
        CHECK_ARRAY(func, n, a->types);
    else
        SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, a->oldtype, old);
    CHECK_NEWTYPE(func, newtype);
    if (n > INT_MAX && !a->large)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_COUNT, func, "count too large");
    size_t sz = (size_t)(n > 0 ? n : 1);
    MPI_Count *bls = malloc(sz * sizeof *bls);
    MPI_Aint *disps = malloc(sz * sizeof *disps);
    smap_dtype_t **types = a->is_struct ? malloc(sz * sizeof *types) : NULL;
    int rc = MPI_SUCCESS;
    if (!bls || !disps || (a->is_struct && !types)) {
        rc = smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, func, "out of memory");
        goto out;
    }
    for (MPI_Count i = 0; i < n; i++) {
        bls[i] = arg_bl(a, i);
        if (bls[i] < 0) {
            rc = bad_blocklength(func, i, bls[i]);
            goto out;
        }
        smap_dtype_t *c = old;
        if (a->is_struct) {
            c = types[i] = smap_dtype_get(a->types[i]);
            if (!c) {
                rc = smap_err_raise(MPI_COMM_NULL, MPI_ERR_TYPE, func,
                                    "array_of_types[%lld] is %s", (long long)i,
                                    a->types[i] == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
                                                                     : "not a valid datatype");
                goto out;
            }
        }
        MPI_Count d = arg_disp(a, i);
        disps[i] = a->bytes ? (MPI_Aint)d : (MPI_Aint)(d * c->extent);
    }
    rc = smap_dtype_blocks(n, bls, 0, disps, types, old, a->is_struct, &t);
    if (rc != MPI_SUCCESS) {
        rc = raise_rc(func, rc);
        goto out;
    }
    rc = done(func, blocks_contents(t, a), t, newtype);
out:
    free(bls);
    free(disps);
    free(types);
    return rc;
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    struct blocks_args a = {.combiner = MPI_COMBINER_INDEXED, .per_block_bl = 1, .count = count,
                            .bl_i = array_of_blocklengths, .disp_i = array_of_displacements,
                            .oldtype = oldtype};
    return blocks("MPI_Type_indexed", &a, newtype);
}

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    struct blocks_args a = {.combiner = MPI_COMBINER_INDEXED, .large = 1, .per_block_bl = 1,
                            .count = count, .bl_c = array_of_blocklengths,
                            .disp_c = array_of_displacements, .oldtype = oldtype};
    return blocks("MPI_Type_indexed_c", &a, newtype);
}

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    struct blocks_args a = {.combiner = MPI_COMBINER_HINDEXED, .bytes = 1, .per_block_bl = 1,
                            .count = count, .bl_i = array_of_blocklengths,
                            .disp_a = array_of_displacements, .oldtype = oldtype};
    return blocks("MPI_Type_create_hindexed", &a, newtype);
}

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    struct blocks_args a = {.combiner = MPI_COMBINER_HINDEXED, .large = 1, .bytes = 1,
                            .per_block_bl = 1, .count = count, .bl_c = array_of_blocklengths,
                            .disp_c = array_of_displacements, .oldtype = oldtype};
    return blocks("MPI_Type_create_hindexed_c", &a, newtype);
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (blocklength < 0)
        return bad_blocklength("MPI_Type_create_indexed_block", 0, blocklength);
    struct blocks_args a = {.combiner = MPI_COMBINER_INDEXED_BLOCK, .count = count,
                            .bl_all = blocklength, .disp_i = array_of_displacements,
                            .oldtype = oldtype};
    return blocks("MPI_Type_create_indexed_block", &a, newtype);
}

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (blocklength < 0)
        return bad_blocklength("MPI_Type_create_indexed_block_c", 0, blocklength);
    struct blocks_args a = {.combiner = MPI_COMBINER_INDEXED_BLOCK, .large = 1, .count = count,
                            .bl_all = blocklength, .disp_c = array_of_displacements,
                            .oldtype = oldtype};
    return blocks("MPI_Type_create_indexed_block_c", &a, newtype);
}

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (blocklength < 0)
        return bad_blocklength("MPI_Type_create_hindexed_block", 0, blocklength);
    struct blocks_args a = {.combiner = MPI_COMBINER_HINDEXED_BLOCK, .bytes = 1, .count = count,
                            .bl_all = blocklength, .disp_a = array_of_displacements,
                            .oldtype = oldtype};
    return blocks("MPI_Type_create_hindexed_block", &a, newtype);
}

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (blocklength < 0)
        return bad_blocklength("MPI_Type_create_hindexed_block_c", 0, blocklength);
    struct blocks_args a = {.combiner = MPI_COMBINER_HINDEXED_BLOCK, .large = 1, .bytes = 1,
                            .count = count, .bl_all = blocklength,
                            .disp_c = array_of_displacements, .oldtype = oldtype};
    return blocks("MPI_Type_create_hindexed_block_c", &a, newtype);
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    struct blocks_args a = {.combiner = MPI_COMBINER_STRUCT, .bytes = 1, .per_block_bl = 1,
                            .is_struct = 1, .count = count, .bl_i = array_of_blocklengths,
                            .disp_a = array_of_displacements, .types = array_of_types};
    return blocks("MPI_Type_create_struct", &a, newtype);
}

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    struct blocks_args a = {.combiner = MPI_COMBINER_STRUCT, .large = 1, .bytes = 1,
                            .per_block_bl = 1, .is_struct = 1, .count = count,
                            .bl_c = array_of_blocklengths, .disp_c = array_of_displacements,
                            .types = array_of_types};
    return blocks("MPI_Type_create_struct_c", &a, newtype);
}

/* ---- resized, dup ---- */

static int resized(const char *func, int large, MPI_Datatype oldtype, MPI_Count lb,
                   MPI_Count extent, MPI_Datatype *newtype)
{
    smap_dtype_t *old, *t = NULL;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, oldtype, old);
    CHECK_NEWTYPE(func, newtype);
    int rc = smap_dtype_resized(old, (MPI_Aint)lb, (MPI_Aint)extent, &t);
    if (rc != MPI_SUCCESS)
        return raise_rc(func, rc);
    MPI_Aint a[2] = {(MPI_Aint)lb, (MPI_Aint)extent};
    MPI_Count c[2] = {lb, extent};
    rc = large ? smap_dtype_set_contents(t, MPI_COMBINER_RESIZED, 1, 0, NULL, 0, NULL, 2, c, 1,
                                         &oldtype)
               : smap_dtype_set_contents(t, MPI_COMBINER_RESIZED, 0, 0, NULL, 2, a, 0, NULL, 1,
                                         &oldtype);
    return done(func, rc, t, newtype);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    return resized("MPI_Type_create_resized", 0, oldtype, lb, extent, newtype);
}

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype)
{
    return resized("MPI_Type_create_resized_c", 1, oldtype, lb, extent, newtype);
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
        return raise_rc(func, rc);
    }
    rc = smap_dtype_set_contents(t, MPI_COMBINER_DUP, 0, 0, NULL, 0, NULL, 0, NULL, 1, &oldtype);
    if (rc != MPI_SUCCESS)
        return done(func, rc, t, newtype);
    memcpy(t->name, old->name, sizeof t->name);
    /* The attributes, through the keyvals' copy callbacks (MPI-5.0 7.7.4).
     * On a failing callback smap_attr_list_copy has deleted what it copied
     * (delete callbacks on the new handle): free the half-built type. */
    rc = smap_attr_list_copy(SMAP_OBJ_TYPE, smap_dtype_handle(old), &old->attrs,
                             smap_dtype_handle(t), &t->attrs);
    if (rc != MPI_SUCCESS) {
        smap_dtype_release(t);
        if (rc == MPI_ERR_NO_MEM)
            return raise_rc(func, rc);
        return attr_callback_failed(func, rc, "copy");
    }
    *newtype = smap_dtype_handle(t);
    return MPI_SUCCESS;
}

/* ---- subarray ---- */

static int check_order(const char *func, int order)
{
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func,
                              "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
    return MPI_SUCCESS;
}

static int subarray(const char *func, int large, int ndims, const int *si, const int *ssi,
                    const int *sti, const MPI_Count *sc, const MPI_Count *ssc,
                    const MPI_Count *stc, int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    smap_dtype_t *old, *t = NULL;
    SMAP_CHECK_RUNNING(func);
    if (ndims <= 0)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_DIMS, func, "ndims %d is not positive", ndims);
    CHECK_ARRAY(func, ndims, large ? (const void *)sc : (const void *)si);
    CHECK_ARRAY(func, ndims, large ? (const void *)ssc : (const void *)ssi);
    CHECK_ARRAY(func, ndims, large ? (const void *)stc : (const void *)sti);
    int rc = check_order(func, order);
    if (rc != MPI_SUCCESS)
        return rc;
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, oldtype, old);
    CHECK_NEWTYPE(func, newtype);
    MPI_Count *v = malloc(3 * (size_t)ndims * sizeof *v);
    if (!v)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, func, "out of memory");
    MPI_Count *sizes = v, *subs = v + ndims, *starts = v + 2 * ndims;
    for (int d = 0; d < ndims; d++) {
        sizes[d] = large ? sc[d] : si[d];
        subs[d] = large ? ssc[d] : ssi[d];
        starts[d] = large ? stc[d] : sti[d];
        if (sizes[d] <= 0 || subs[d] < 0 || subs[d] > sizes[d] || starts[d] < 0 ||
            starts[d] > sizes[d] - subs[d]) {
            rc = smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func,
                                "dimension %d: size %lld, subsize %lld, start %lld are "
                                "inconsistent", d, (long long)sizes[d], (long long)subs[d],
                                (long long)starts[d]);
            free(v);
            return rc;
        }
    }
    rc = smap_dtype_subarray(ndims, sizes, subs, starts, order, old, &t);
    if (rc != MPI_SUCCESS) {
        free(v);
        return raise_rc(func, rc);
    }
    if (large) {
        int iv[2] = {ndims, order};
        rc = smap_dtype_set_contents(t, MPI_COMBINER_SUBARRAY, 1, 2, iv, 0, NULL, 3 * ndims, v, 1,
                                     &oldtype);
    } else {
        int *iv = malloc((3 * (size_t)ndims + 2) * sizeof *iv);
        if (!iv) {
            rc = MPI_ERR_NO_MEM;
        } else {
            iv[0] = ndims;
            for (int k = 0; k < 3 * ndims; k++)
                iv[1 + k] = (int)v[k];
            iv[1 + 3 * ndims] = order;
            rc = smap_dtype_set_contents(t, MPI_COMBINER_SUBARRAY, 0, 3 * ndims + 2, iv, 0, NULL,
                                         0, NULL, 1, &oldtype);
            free(iv);
        }
    }
    free(v);
    return done(func, rc, t, newtype);
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[], const int array_of_starts[],
                              int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return subarray("MPI_Type_create_subarray", 0, ndims, array_of_sizes, array_of_subsizes,
                    array_of_starts, NULL, NULL, NULL, order, oldtype, newtype);
}

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order,
                                MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return subarray("MPI_Type_create_subarray_c", 1, ndims, NULL, NULL, NULL, array_of_sizes,
                    array_of_subsizes, array_of_starts, order, oldtype, newtype);
}

/* ---- darray ---- */

static int darray(const char *func, int large, int size, int rank, int ndims, const int *gi,
                  const MPI_Count *gc, const int *distribs, const int *dargs, const int *psizes,
                  int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    smap_dtype_t *old, *t = NULL;
    SMAP_CHECK_RUNNING(func);
    if (size <= 0 || rank < 0 || rank >= size)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func,
                              "rank %d is not in a group of size %d", rank, size);
    if (ndims <= 0)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_DIMS, func, "ndims %d is not positive", ndims);
    CHECK_ARRAY(func, ndims, large ? (const void *)gc : (const void *)gi);
    CHECK_ARRAY(func, ndims, distribs);
    CHECK_ARRAY(func, ndims, dargs);
    CHECK_ARRAY(func, ndims, psizes);
    int rc = check_order(func, order);
    if (rc != MPI_SUCCESS)
        return rc;
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, oldtype, old);
    CHECK_NEWTYPE(func, newtype);
    MPI_Count *g = malloc((size_t)ndims * sizeof *g);
    if (!g)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, func, "out of memory");
    long long nprocs = 1;
    for (int d = 0; d < ndims; d++) {
        g[d] = large ? gc[d] : gi[d];
        const char *why = NULL;
        if (g[d] <= 0)
            why = "gsize is not positive";
        else if (psizes[d] <= 0)
            why = "psize is not positive";
        else if (distribs[d] != MPI_DISTRIBUTE_NONE && distribs[d] != MPI_DISTRIBUTE_BLOCK &&
                 distribs[d] != MPI_DISTRIBUTE_CYCLIC)
            why = "unknown distribution";
        else if (distribs[d] == MPI_DISTRIBUTE_NONE && psizes[d] != 1)
            why = "MPI_DISTRIBUTE_NONE needs psize 1";
        else if (dargs[d] != MPI_DISTRIBUTE_DFLT_DARG && dargs[d] <= 0)
            why = "darg is not positive";
        else if (distribs[d] == MPI_DISTRIBUTE_BLOCK && dargs[d] != MPI_DISTRIBUTE_DFLT_DARG &&
                 (MPI_Count)dargs[d] * psizes[d] < g[d])
            why = "block darg * psize < gsize";
        if (why) {
            free(g);
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func, "dimension %d: %s", d, why);
        }
        nprocs *= psizes[d];
        if (nprocs > size)
            break;
    }
    if (nprocs != size) {
        free(g);
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func,
                              "the process grid does not have size %d", size);
    }
    rc = smap_dtype_darray(size, rank, ndims, g, distribs, dargs, psizes, order, old, &t);
    if (rc != MPI_SUCCESS) {
        free(g);
        return raise_rc(func, rc);
    }
    /* ints: size, rank, ndims, [gsizes], distribs, dargs, psizes, order */
    int *iv = malloc((4 * (size_t)ndims + 4) * sizeof *iv);
    if (!iv) {
        rc = MPI_ERR_NO_MEM;
    } else {
        int k = 0;
        iv[k++] = size;
        iv[k++] = rank;
        iv[k++] = ndims;
        if (!large)
            for (int d = 0; d < ndims; d++)
                iv[k++] = gi[d];
        for (int d = 0; d < ndims; d++)
            iv[k++] = distribs[d];
        for (int d = 0; d < ndims; d++)
            iv[k++] = dargs[d];
        for (int d = 0; d < ndims; d++)
            iv[k++] = psizes[d];
        iv[k++] = order;
        rc = smap_dtype_set_contents(t, MPI_COMBINER_DARRAY, large, k, iv, 0, NULL,
                                     large ? ndims : 0, large ? g : NULL, 1, &oldtype);
        free(iv);
    }
    free(g);
    return done(func, rc, t, newtype);
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    return darray("MPI_Type_create_darray", 0, size, rank, ndims, array_of_gsizes, NULL,
                  array_of_distribs, array_of_dargs, array_of_psizes, order, oldtype, newtype);
}

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return darray("MPI_Type_create_darray_c", 1, size, rank, ndims, NULL, array_of_gsizes,
                  array_of_distribs, array_of_dargs, array_of_psizes, order, oldtype, newtype);
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
    return rc == MPI_SUCCESS ? rc : raise_rc(func, rc);
}

int PMPI_Type_free(MPI_Datatype *datatype)
{
    static const char func[] = "MPI_Type_free";
    smap_dtype_t *t;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, datatype);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, *datatype, t);
    if (t->flags & SMAP_DT_PREDEF)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_TYPE, func,
                              "%s is predefined and cannot be freed", t->name);
    /* The attributes go with the handle, newest first, while the handle is
     * still valid for the delete callbacks (MPI-5.0 7.7.4).  The list is
     * empty afterwards whatever they return, so the type is freed even when
     * one fails; the call then reports the first failure. */
    int rc = smap_attr_list_delete(SMAP_OBJ_TYPE, *datatype, &t->attrs);
    smap_dtype_release(t);
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
        smap_dtype_t *c = smap_dtype_get(t->ctypes[i]);
        if (c)
            smap_dtype_retain(c);
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
    QUERY_PROLOGUE("MPI_Type_get_name", datatype, t);
    SMAP_CHECK_PTR("MPI_Type_get_name", MPI_COMM_NULL, type_name);
    SMAP_CHECK_PTR("MPI_Type_get_name", MPI_COMM_NULL, resultlen);
    size_t n = strlen(t->name);
    memcpy(type_name, t->name, n + 1);
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
