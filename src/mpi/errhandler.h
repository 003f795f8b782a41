/* Error handlers: the three predefined ones and user functions created with
 * MPI_Comm_create_errhandler (reference counted: a communicator holds one
 * reference, each MPI_Comm_get_errhandler hands out another). */
#ifndef SMAP_MPI_ERRHANDLER_H
#define SMAP_MPI_ERRHANDLER_H

#include <mpi.h>
#include <stdint.h>

#define SMAP_ERRHANDLER_MAGIC 0x45525248u  /* "ERRH" */
/* Alive (attached somewhere) but no handle of the program names it any
 * more: a freed copy of the handle is refused, the attachment still runs. */
#define SMAP_ERRHANDLER_HIDDEN 0x65727268u  /* "errh" */

struct MPI_ABI_Errhandler {
    uint32_t magic;
    int refs;                              /* atomic: handles + attachments */
    int handles;                           /* atomic: the program's handles */
    MPI_Comm_errhandler_function *fn;
    /* Bound to a context (another language's procedure): called instead of
     * fn with ctx and the same (handle *, code *) arguments. */
    void (*fn_ctx)(void *ctx, void *obj, int *code);
    void *ctx;
};

/* 1 for the predefined handlers that may be attached to a communicator. */
int smap_errhandler_is_predefined(MPI_Errhandler h);
/* 1 if h is a predefined handler or a live user one. */
int smap_errhandler_valid(MPI_Errhandler h);

MPI_Errhandler smap_errhandler_create(MPI_Comm_errhandler_function *fn);
/* A user handler calling fn_ctx(ctx, &handle, &code). */
MPI_Errhandler smap_errhandler_create_ctx(void (*fn_ctx)(void *ctx, void *obj, int *code),
                                          void *ctx);
void smap_errhandler_retain(MPI_Errhandler h);
void smap_errhandler_release(MPI_Errhandler h);
/* A reference handed to the program (MPI_*_get_errhandler). */
void smap_errhandler_give(MPI_Errhandler h);
/* MPI_Errhandler_free of a valid handle: the program's handle and its
 * reference go. */
void smap_errhandler_drop(MPI_Errhandler h);

/* Runs comm's handler for error `code` (comm may be WORLD or SELF; the
 * caller has resolved MPI_COMM_NULL to SELF).  Returns only if the handler
 * does. */
void smap_errhandler_invoke(MPI_Comm comm, int code);

/* Runs handler h for error `code` on an object that is not a
 * communicator (a session; a communicator still being created):
 * a user function gets (obj, &code); `what` names the object when a
 * predefined handler aborts.  Returns only if the handler does. */
void smap_errhandler_call(MPI_Errhandler h, void *obj, const char *what, int code);

/* A predefined fatal handler's end (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT)
 * for `code` raised on the object named `what` ("the window", "a
 * communicator derived from MPI_COMM_WORLD"): logs the code's text and
 * stops the job with its class. */
_Noreturn void smap_errhandler_abort(MPI_Errhandler h, const char *what, int code);

/* ---- The entry points' operations (error_api.c), called by the generated
 * stubs once handles and pointers are checked: MPI_SUCCESS or an error
 * class, the reason recorded (base/why.h). ---- */
struct MPI_ABI_Comm;
int smap_err_class_of(int errorcode, int *errorclass);
int smap_err_string_of(int errorcode, char *string, int *resultlen);
int smap_user_error_add_class(int *errorclass);
int smap_user_error_add_code(int errorclass, int *errorcode);
int smap_user_error_add_string(int errorcode, const char *string);
int smap_user_error_remove_class(int errorclass);
int smap_user_error_remove_code(int errorcode);
int smap_user_error_remove_string(int errorcode);
int smap_comm_set_errhandler(struct MPI_ABI_Comm *c, MPI_Errhandler errhandler);
void smap_comm_get_errhandler(const struct MPI_ABI_Comm *c, MPI_Errhandler *errhandler);
int smap_errhandler_create_into(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler);
/* MPI_Errhandler_free of the program's handle *errhandler. */
int smap_errhandler_free_handle(MPI_Errhandler *errhandler);

#endif
