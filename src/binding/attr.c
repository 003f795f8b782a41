/* Entry points on keyvals and cached attributes (src/mpi/attr.h):
 * communicators, datatypes, and the keyvals of windows. */
#include <mpi.h>

#include "binding/check.h"
#include "binding/dtype_check.h"
#include "dtype/dtype.h"
#include "mpi/attr.h"

#define NOCOMM MPI_COMM_NULL

static int create_keyval(const char *func, int kind, smap_attr_fn *copy, smap_attr_fn *del,
                         int *keyval, void *extra_state)
{
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_PTR(func, NOCOMM, keyval);
    return smap_keyval_create(kind, copy, del, extra_state, keyval, func);
}

static int free_keyval(const char *func, int kind, int *keyval)
{
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_PTR(func, NOCOMM, keyval);
    return smap_keyval_free(kind, keyval, func);
}

/* ---- communicators ---- */

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state)
{
    return create_keyval("MPI_Comm_create_keyval", SMAP_OBJ_COMM, (smap_attr_fn *)comm_copy_attr_fn,
                         (smap_attr_fn *)comm_delete_attr_fn, comm_keyval, extra_state);
}

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return free_keyval("MPI_Comm_free_keyval", SMAP_OBJ_COMM, comm_keyval);
}

static int comm_set(const char *func, MPI_Comm comm, int keyval, void *value)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_COMM(func, comm, c);
    return smap_attr_set(SMAP_OBJ_COMM, c->handle, &c->attrs, keyval, value, comm, func);
}

static int comm_get(const char *func, MPI_Comm comm, int keyval, void *value, int *flag)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_COMM(func, comm, c);
    SMAP_CHECK_ARG(func, comm, value, "attribute_val");
    SMAP_CHECK_PTR(func, comm, flag);
    /* attribute_val is a void ** in C (MPI-5.0 7.7.2). */
    return smap_attr_get(SMAP_OBJ_COMM, c->handle, &c->attrs, keyval, (void **)value, flag, comm,
                         func);
}

static int comm_delete(const char *func, MPI_Comm comm, int keyval)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_COMM(func, comm, c);
    return smap_attr_delete(SMAP_OBJ_COMM, c->handle, &c->attrs, keyval, comm, func);
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return comm_set("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return comm_get("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return comm_delete("MPI_Comm_delete_attr", comm, comm_keyval);
}

/* ---- the MPI-1 names, deprecated: the same operations ---- */

int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return create_keyval("MPI_Keyval_create", SMAP_OBJ_COMM, (smap_attr_fn *)copy_fn,
                         (smap_attr_fn *)delete_fn, keyval, extra_state);
}

int PMPI_Keyval_free(int *keyval)
{
    return free_keyval("MPI_Keyval_free", SMAP_OBJ_COMM, keyval);
}

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return comm_set("MPI_Attr_put", comm, keyval, attribute_val);
}

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return comm_get("MPI_Attr_get", comm, keyval, attribute_val, flag);
}

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return comm_delete("MPI_Attr_delete", comm, keyval);
}

/* ---- datatypes: predefined ones carry attributes too (their table
 * entries have a list); MPI_Type_dup / MPI_Type_free (datatype.c) run the
 * copy / delete callbacks.  Errors go to MPI_COMM_SELF's handler. ---- */

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    return create_keyval("MPI_Type_create_keyval", SMAP_OBJ_TYPE, (smap_attr_fn *)type_copy_attr_fn,
                         (smap_attr_fn *)type_delete_attr_fn, type_keyval, extra_state);
}

int PMPI_Type_free_keyval(int *type_keyval)
{
    return free_keyval("MPI_Type_free_keyval", SMAP_OBJ_TYPE, type_keyval);
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    static const char func[] = "MPI_Type_set_attr";
    smap_dtype_t *t;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_DTYPE(func, NOCOMM, datatype, t);
    return smap_attr_set(SMAP_OBJ_TYPE, smap_dtype_handle(t), &t->attrs, type_keyval,
                         attribute_val, NOCOMM, func);
}

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    static const char func[] = "MPI_Type_get_attr";
    smap_dtype_t *t;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_DTYPE(func, NOCOMM, datatype, t);
    SMAP_CHECK_PTR(func, NOCOMM, attribute_val);
    SMAP_CHECK_PTR(func, NOCOMM, flag);
    /* attribute_val is a void ** in C (MPI-5.0 7.7.4). */
    return smap_attr_get(SMAP_OBJ_TYPE, smap_dtype_handle(t), &t->attrs, type_keyval,
                         (void **)attribute_val, flag, NOCOMM, func);
}

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    static const char func[] = "MPI_Type_delete_attr";
    smap_dtype_t *t;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_DTYPE(func, NOCOMM, datatype, t);
    return smap_attr_delete(SMAP_OBJ_TYPE, smap_dtype_handle(t), &t->attrs, type_keyval, NOCOMM,
                            func);
}

/* ---- windows: keyvals only, until windows exist ---- */

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    return create_keyval("MPI_Win_create_keyval", SMAP_OBJ_WIN, (smap_attr_fn *)win_copy_attr_fn,
                         (smap_attr_fn *)win_delete_attr_fn, win_keyval, extra_state);
}

int PMPI_Win_free_keyval(int *win_keyval)
{
    return free_keyval("MPI_Win_free_keyval", SMAP_OBJ_WIN, win_keyval);
}
