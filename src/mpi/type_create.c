/* Datatype constructors (and their large-count "_c" twins): contiguous,
 * vector/hvector, the indexed family and struct, resized, subarray, darray,
 * called by their generated entry points (src/binding/gen/datatype.c) with
 * the arguments as given.  The work is in src/dtype/; here: the argument
 * checks (raised on MPI_COMM_NULL, that is MPI_COMM_SELF's handler), int ->
 * MPI_Count conversion, the contents MPI_Type_get_contents will return. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "base/why.h"
#include "mpi/args.h"
#include "mpi/type_api.h"

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
#include "dtype/dtype.h"
#include "dtype/engine.h"

/* Raises the error a datatype-engine return code rc stands for. */
static int smap_bind_type_raise(const char *func, int rc)
{
    return smap_err_raise(MPI_COMM_NULL, smap_dtype_fail(rc), func, "%s", smap_why());
}

/* Hands a new type to the caller, or frees it and raises. */
static int smap_bind_type_done(const char *func, int rc, smap_dtype_t *t, MPI_Datatype *newtype)
{
    if (rc != MPI_SUCCESS) {
        smap_dtype_release(t);
        return smap_bind_type_raise(func, rc);
    }
    *newtype = smap_dtype_handle(t);
    return MPI_SUCCESS;
}

int smap_type_bad_blocklength(const char *func, MPI_Count i, MPI_Count bl)
{
    return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func,
                          "block length %lld (block %lld) is negative", (long long)bl,
                          (long long)i);
}

/* ---- contiguous ---- */

int smap_type_contiguous(const char *func, int large, MPI_Count count, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    smap_dtype_t *old, *t = NULL;
    SMAP_CHECK_RUNNING(func);
    CHECK_COUNT(func, count);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, oldtype, old);
    CHECK_NEWTYPE(func, newtype);
    int rc = smap_dtype_contiguous(count, old, &t);
    if (rc != MPI_SUCCESS)
        return smap_bind_type_raise(func, rc);
    int ci = (int)count;
    rc = large ? smap_dtype_set_contents(t, MPI_COMBINER_CONTIGUOUS, 1, 0, NULL, 0, NULL, 1,
                                         &count, 1, &oldtype)
               : smap_dtype_set_contents(t, MPI_COMBINER_CONTIGUOUS, 0, 1, &ci, 0, NULL, 0,
                                         NULL, 1, &oldtype);
    return smap_bind_type_done(func, rc, t, newtype);
}

/* ---- vector, hvector ---- */

int smap_type_vector(const char *func, int large, int bytes, MPI_Count count, MPI_Count bl,
                  MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    smap_dtype_t *old, *t = NULL;
    SMAP_CHECK_RUNNING(func);
    CHECK_COUNT(func, count);
    if (bl < 0)
        return smap_type_bad_blocklength(func, 0, bl);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, oldtype, old);
    CHECK_NEWTYPE(func, newtype);
    MPI_Aint sbytes = bytes ? (MPI_Aint)stride : (MPI_Aint)(stride * old->extent);
    int rc = smap_dtype_hvector(count, bl, sbytes, old, &t);
    if (rc != MPI_SUCCESS)
        return smap_bind_type_raise(func, rc);
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
    return smap_bind_type_done(func, rc, t, newtype);
}

/* ---- indexed family and struct ----
 * One worker for all ten: block lengths (per block or one for all),
 * displacements (in elements of oldtype or in bytes), one old type or one
 * per block (struct).  The arguments come either as int/MPI_Aint arrays or
 * as MPI_Count arrays (large). */


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

int smap_type_blocks(const char *func, const struct blocks_args *a, MPI_Datatype *newtype)
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
            rc = smap_type_bad_blocklength(func, i, bls[i]);
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
        rc = smap_bind_type_raise(func, rc);
        goto out;
    }
    rc = smap_bind_type_done(func, blocks_contents(t, a), t, newtype);
out:
    free(bls);
    free(disps);
    free(types);
    return rc;
}

/* ---- resized, dup ---- */

int smap_type_resized(const char *func, int large, MPI_Datatype oldtype, MPI_Count lb,
                   MPI_Count extent, MPI_Datatype *newtype)
{
    smap_dtype_t *old, *t = NULL;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_DTYPE(func, MPI_COMM_NULL, oldtype, old);
    CHECK_NEWTYPE(func, newtype);
    int rc = smap_dtype_resized(old, (MPI_Aint)lb, (MPI_Aint)extent, &t);
    if (rc != MPI_SUCCESS)
        return smap_bind_type_raise(func, rc);
    MPI_Aint a[2] = {(MPI_Aint)lb, (MPI_Aint)extent};
    MPI_Count c[2] = {lb, extent};
    rc = large ? smap_dtype_set_contents(t, MPI_COMBINER_RESIZED, 1, 0, NULL, 0, NULL, 2, c, 1,
                                         &oldtype)
               : smap_dtype_set_contents(t, MPI_COMBINER_RESIZED, 0, 0, NULL, 2, a, 0, NULL, 1,
                                         &oldtype);
    return smap_bind_type_done(func, rc, t, newtype);
}

/* ---- subarray ---- */

static int check_order(const char *func, int order)
{
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, func,
                              "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
    return MPI_SUCCESS;
}

int smap_type_subarray(const char *func, int large, int ndims, const int *si, const int *ssi,
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
        return smap_bind_type_raise(func, rc);
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
    return smap_bind_type_done(func, rc, t, newtype);
}

/* ---- darray ---- */

int smap_type_darray(const char *func, int large, int size, int rank, int ndims, const int *gi,
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
        return smap_bind_type_raise(func, rc);
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
    return smap_bind_type_done(func, rc, t, newtype);
}

