/* MPI_Type_dup and MPI_Type_free: the datatype operations that run the
 * attributes' callbacks (src/mpi/attr.c), so they live above src/dtype.
 * Called by their generated stubs in src/binding/gen/datatype.c once the
 * handles and pointers are checked; MPI_SUCCESS or an error class, the
 * reason recorded (base/why.h). */
#include <string.h>

#include <mpi.h>

#include "base/why.h"
#include "dtype/dtype.h"
#include "mpi/attr.h"
#include "mpi/errors.h"
#include "mpi/type_api.h"

/* The class for an attribute callback's return value rc: its class when rc
 * is an error code, MPI_ERR_OTHER otherwise; recorded with why. */
static int attr_callback_failed(int rc, const char *what)
{
    int cls;
    if (smap_error_class(rc, &cls) != MPI_SUCCESS || cls == MPI_SUCCESS)
        cls = MPI_ERR_OTHER;
    return smap_failf(cls, "an attribute %s callback returned %d", what, rc);
}

int smap_type_dup(MPI_Datatype oldtype, smap_dtype_t *old, MPI_Datatype *newtype)
{
    smap_dtype_t *t = NULL;
    int rc = smap_dtype_dup(old, &t);
    if (rc == MPI_SUCCESS)
        rc = smap_dtype_set_contents(t, MPI_COMBINER_DUP, 0, 0, NULL, 0, NULL, 0, NULL, 1,
                                     &oldtype);
    if (rc != MPI_SUCCESS) {
        smap_dtype_release(t);
        return smap_dtype_fail(rc);
    }
    memcpy(t->name, old->name, sizeof t->name);
    /* The attributes, through the keyvals' copy callbacks (MPI-5.0 7.7.4).
     * On a failing callback smap_attr_list_copy has deleted what it copied
     * (delete callbacks on the new handle): free the half-built type. */
    rc = smap_attr_list_copy(SMAP_OBJ_TYPE, smap_dtype_handle(old), &old->attrs,
                             smap_dtype_handle(t), &t->attrs);
    if (rc != MPI_SUCCESS) {
        smap_dtype_release(t);
        return rc == MPI_ERR_NO_MEM ? smap_dtype_fail(rc) : attr_callback_failed(rc, "copy");
    }
    *newtype = smap_dtype_handle(t);
    return MPI_SUCCESS;
}

int smap_type_free(MPI_Datatype *datatype, smap_dtype_t *t)
{
    if (t->flags & (SMAP_DT_PREDEF | SMAP_DT_F90))
        return smap_failf(MPI_ERR_TYPE, "%s is predefined and cannot be freed%s", t->name,
                          (t->flags & SMAP_DT_F90) ? " (from MPI_Type_create_f90_*)" : "");
    /* The attributes go with the handle, newest first, while the handle is
     * still valid for the delete callbacks (MPI-5.0 7.7.4).  The list is
     * empty afterwards whatever they return, so the type is freed even when
     * one fails; the call then reports the first failure. */
    int rc = smap_attr_list_delete(SMAP_OBJ_TYPE, *datatype, &t->attrs);
    smap_dtype_drop(t);
    *datatype = MPI_DATATYPE_NULL;
    return rc == MPI_SUCCESS ? rc : attr_callback_failed(rc, "delete");
}
