/* Keyvals and cached attributes, for communicators, datatypes and windows.
 *
 * A keyval is an int: 0 is MPI_KEYVAL_INVALID, 501..507 the predefined
 * communicator attributes of mpi.h (MPI_TAG_UB ... MPI_UNIVERSE_SIZE:
 * answered on every communicator, never set, deleted or freed by users),
 * and user keyvals are SMAP_KEYVAL_BASE + an index into a table, never
 * reused.  A keyval is reference counted: the user's handle is one
 * reference and every attribute set with it another, so MPI_*_free_keyval
 * makes the handle invalid while attributes still cached with it keep
 * working (their copy/delete callbacks still run, MPI-5.0 section 7.7.2):
 * until the last of them is deleted the keyval's value still names it
 * (attributes can be read and deleted through a saved copy, and freeing
 * it again is harmless); after that it is invalid for good.
 *
 * An object's attributes are a singly linked list, newest first, so that
 * deleting all of them runs the delete callbacks in the reverse order of
 * setting (what MPI_Finalize must do for MPI_COMM_SELF).  Callbacks run
 * without any lock held: they may call MPI functions, attribute ones too.
 *
 * The special callbacks of mpi.h are small integers, not functions:
 * MPI_*_NULL_COPY_FN = 0 (the attribute is not copied), MPI_*_DUP_FN = 1
 * (the value is copied as is), MPI_*_NULL_DELETE_FN = 0 (nothing to do).
 *
 * For an object kind to gain attributes, its struct holds a
 * `struct smap_attr *attrs` (NULL when it has none) and its entry points
 * call smap_attr_set/get/delete with SMAP_OBJ_<KIND>, the user's handle and
 * &obj->attrs; its dup calls smap_attr_list_copy, its free
 * smap_attr_list_delete. */
#ifndef SMAP_MPI_ATTR_H
#define SMAP_MPI_ATTR_H

#include <mpi.h>

#define SMAP_KEYVAL_BASE 1024

enum smap_obj_kind { SMAP_OBJ_COMM = 1, SMAP_OBJ_TYPE = 2, SMAP_OBJ_WIN = 3 };

struct MPI_ABI_Comm;
struct smap_attr;

/* Any callback type; converted back to the kind's own type before a call. */
typedef void smap_attr_fn(void);

/* Creates a keyval for objects of `kind`.  Returns MPI_SUCCESS or raises
 * (MPI_ERR_NO_MEM) on MPI_COMM_SELF's handler. */
int smap_keyval_create(int kind, smap_attr_fn *copy, smap_attr_fn *del, void *extra_state,
                       int *keyval, const char *func);
/* Frees *keyval (a live user keyval of `kind`; a second free of one kept
 * alive by attributes does nothing) and sets it to MPI_KEYVAL_INVALID;
 * raises MPI_ERR_KEYVAL otherwise. */
int smap_keyval_free(int kind, int *keyval, const char *func);

/* The attribute operations of one object.  `handle` is what the callbacks
 * receive; errors are raised on `errcomm`'s handler (MPI_COMM_NULL for
 * MPI_COMM_SELF's).  A failing delete callback leaves the attribute in
 * place and makes the call fail with the callback's error class
 * (MPI_ERR_OTHER if its return value is not an error code). */
int smap_attr_set(int kind, void *handle, struct smap_attr **list, int keyval, void *value,
                  MPI_Comm errcomm, const char *func);
int smap_attr_get(int kind, void *handle, struct smap_attr **list, int keyval, void **value,
                  int *flag, MPI_Comm errcomm, const char *func);
int smap_attr_delete(int kind, void *handle, struct smap_attr **list, int keyval,
                     MPI_Comm errcomm, const char *func);

/* Copies the attributes of old into the (empty) list of new through the
 * keyvals' copy callbacks.  On a failing callback, what was copied is
 * deleted again and the callback's error code is returned (nothing raised:
 * the caller, e.g. MPI_Comm_dup, raises it).  MPI_SUCCESS otherwise. */
int smap_attr_list_copy(int kind, void *old_handle, struct smap_attr **old_list, void *new_handle,
                        struct smap_attr **new_list);
/* Deletes every attribute, newest first, running the delete callbacks.
 * The list is empty afterwards even when a callback fails; the first
 * failing callback's return value is returned, MPI_SUCCESS otherwise. */
int smap_attr_list_delete(int kind, void *handle, struct smap_attr **list);
/* Drops every attribute without calling anything (MPI_Finalize's sweep of
 * communicators the program never freed). */
void smap_attr_list_forget(struct smap_attr **list);

/* The same two for communicators, for MPI_Comm_dup / MPI_Comm_free.
 * Datatypes call the list functions above directly (mpi/type_api.c:
 * MPI_Type_dup, MPI_Type_free), since src/dtype/ may not call src/mpi/. */
int smap_attr_copy_all(struct MPI_ABI_Comm *oldcomm, struct MPI_ABI_Comm *newcomm);
int smap_attr_delete_all(struct MPI_ABI_Comm *comm);

#endif
