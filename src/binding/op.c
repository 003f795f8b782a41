/* Entry points on reduction ops (src/mpi/op.h) and MPI_Reduce_local.
 * Errors on ops are tied to no communicator: they go to MPI_COMM_SELF's
 * handler. */
#include <mpi.h>

#include "binding/check.h"
#include "binding/ctx_objects.h"
#include "binding/dtype_check.h"
#include "mpi/handles.h"
#include "mpi/op.h"

#define NOCOMM MPI_COMM_NULL

#define CHECK_OP(func, h, obj)                                                     \
    do {                                                                           \
        (obj) = smap_op_get(h);                                                    \
        if (SMAP_UNLIKELY(!(obj)))                                                 \
            return smap_err_raise(NOCOMM, MPI_ERR_OP, func, "%s %s", #h,           \
                                  (h) == MPI_OP_NULL ? "is MPI_OP_NULL"             \
                                                     : "is not a valid op");       \
    } while (0)

static int op_new(const char *func, MPI_User_function *fn, MPI_User_function_c *fn_c,
                  int commute, MPI_Op *op)
{
    SMAP_CHECK_RUNNING(func);
    if (!fn && !fn_c)
        return smap_err_raise(NOCOMM, MPI_ERR_ARG, func, "user_fn is NULL");
    SMAP_CHECK_PTR(func, NOCOMM, op);
    struct MPI_ABI_Op *o = smap_op_create(fn, fn_c, commute);
    if (!o)
        return smap_err_raise(NOCOMM, MPI_ERR_NO_MEM, func, "out of memory");
    *op = o;
    return MPI_SUCCESS;
}

int smap_op_new_ctx(const char *func, smap_op_ctx_fn *fn, void *ctx, int large, int commute,
                    MPI_Op *op)
{
    SMAP_CHECK_RUNNING(func);
    if (!fn || !ctx)
        return smap_err_raise(NOCOMM, MPI_ERR_ARG, func, "user_fn is NULL");
    SMAP_CHECK_PTR(func, NOCOMM, op);
    struct MPI_ABI_Op *o = smap_op_create_ctx(fn, ctx, large, commute);
    if (!o)
        return smap_err_raise(NOCOMM, MPI_ERR_NO_MEM, func, "out of memory");
    *op = o;
    return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_new("MPI_Op_create", user_fn, NULL, commute, op);
}

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_new("MPI_Op_create_c", NULL, user_fn, commute, op);
}

int PMPI_Op_free(MPI_Op *op)
{
    static const char F[] = "MPI_Op_free";
    struct MPI_ABI_Op *o;
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_PTR(F, NOCOMM, op);
    CHECK_OP(F, *op, o);
    if (o->predefined)
        return smap_err_raise(NOCOMM, MPI_ERR_OP, F, "%s is predefined and cannot be freed",
                              o->name);
    /* the handle's integer dies with the handle, even if operations in
     * flight keep the object a while */
    smap_handle_forget(o);
    smap_op_release(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    static const char F[] = "MPI_Op_commutative";
    struct MPI_ABI_Op *o;
    CHECK_OP(F, op, o);
    SMAP_CHECK_PTR(F, NOCOMM, commute);
    *commute = o->commute;
    return MPI_SUCCESS;
}

static int reduce_local(const char *func, const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op)
{
    struct MPI_ABI_Op *o;
    smap_dtype_t *t;
    const char *why = "";
    SMAP_CHECK_RUNNING(func);
    if (count < 0)
        return smap_err_raise(NOCOMM, MPI_ERR_COUNT, func, "count is negative (%lld)",
                              (long long)count);
    SMAP_CHECK_DTYPE_COMMITTED(func, NOCOMM, datatype, t);
    CHECK_OP(func, op, o);
    if (o->predefined && (op == MPI_REPLACE || op == MPI_NO_OP))
        return smap_err_raise(NOCOMM, MPI_ERR_OP, func,
                              "%s is only for RMA accumulate operations", o->name);
    int rc = smap_op_check(op, datatype, &why);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(NOCOMM, rc, func, "%s on %s: %s", o->name, t->name, why);
    if (count == 0)
        return MPI_SUCCESS;
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return smap_err_raise(NOCOMM, MPI_ERR_BUFFER, func, "MPI_IN_PLACE is not allowed here");
    /* MPI_BOTTOM (NULL) is a valid buffer with absolute displacements, so a
     * NULL pointer is only an error for a type that starts at offset 0 */
    if ((!inbuf || !inoutbuf) && t->true_lb == 0 && (t->flags & SMAP_DT_PREDEF))
        return smap_err_raise(NOCOMM, MPI_ERR_BUFFER, func, "%s is NULL",
                              !inbuf ? "inbuf" : "inoutbuf");
    rc = smap_op_apply(op, inbuf, inoutbuf, count, datatype);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(NOCOMM, rc, func, "%s on %s failed", o->name, t->name);
    return MPI_SUCCESS;
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}

int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op)
{
    return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}
