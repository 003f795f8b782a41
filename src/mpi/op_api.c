/* The operations behind the MPI_Op_* entry points and MPI_Reduce_local,
 * called by their generated stubs in src/binding/gen/op.c once the handles,
 * the count and the pointers are checked.  Each returns MPI_SUCCESS or an
 * error class with the reason recorded (base/why.h). */
#include <mpi.h>

#include "base/why.h"
#include "dtype/dtype.h"
#include "mpi/handles.h"
#include "mpi/op.h"

int smap_op_create_into(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute,
                        MPI_Op *op)
{
    if (!fn && !fn_c)
        return smap_fail(MPI_ERR_ARG, "user_fn is NULL");
    struct MPI_ABI_Op *o = smap_op_create(fn, fn_c, commute);
    if (!o)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    *op = o;
    return MPI_SUCCESS;
}

int smap_op_free_handle(MPI_Op *op, struct MPI_ABI_Op *o)
{
    if (o->predefined)
        return smap_failf(MPI_ERR_OP, "%s is predefined and cannot be freed", o->name);
    /* the handle's integer dies with the handle, even if operations in
     * flight keep the object a while */
    smap_handle_forget(o);
    smap_op_release(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int smap_op_reduce_local(const void *inbuf, void *inoutbuf, MPI_Count count,
                         MPI_Datatype datatype, struct MPI_ABI_Datatype *t, MPI_Op op,
                         struct MPI_ABI_Op *o)
{
    const char *why = "";
    if (!smap_dtype_committed(t))
        return smap_fail(MPI_ERR_TYPE, "datatype is not committed (MPI_Type_commit)");
    if (o->predefined && (op == MPI_REPLACE || op == MPI_NO_OP))
        return smap_failf(MPI_ERR_OP, "%s is only for RMA accumulate operations", o->name);
    int rc = smap_op_check(op, datatype, &why);
    if (rc != MPI_SUCCESS)
        return smap_failf(rc, "%s on %s: %s", o->name, t->name, why);
    if (count == 0)
        return MPI_SUCCESS;
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return smap_fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here");
    /* MPI_BOTTOM (NULL) is a valid buffer with absolute displacements, so a
     * NULL pointer is only an error for a type that starts at offset 0 */
    if ((!inbuf || !inoutbuf) && t->true_lb == 0 && (t->flags & SMAP_DT_PREDEF))
        return smap_failf(MPI_ERR_BUFFER, "%s is NULL", !inbuf ? "inbuf" : "inoutbuf");
    rc = smap_op_apply(op, inbuf, inoutbuf, count, datatype);
    if (rc != MPI_SUCCESS)
        return smap_failf(rc, "%s on %s failed", o->name, t->name);
    return MPI_SUCCESS;
}
