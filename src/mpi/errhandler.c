#include "mpi/errhandler.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/free_later.h"
#include "base/log.h"
#include "boot/boot.h"
#include "mpi/comm.h"
#include "mpi/errors.h"

int smap_errhandler_is_predefined(MPI_Errhandler h)
{
    return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ABORT;
}

/* User handlers are our own allocations; the magic tells a live one from a
 * freed or foreign pointer in the common mistakes (a handle that was never
 * created, or one already freed), without keeping a registry. */
static struct MPI_ABI_Errhandler *user_handler(MPI_Errhandler h)
{
    if ((uintptr_t)h < 4096)
        return NULL;
    struct MPI_ABI_Errhandler *e = h;
    return e->magic == SMAP_ERRHANDLER_MAGIC || e->magic == SMAP_ERRHANDLER_HIDDEN ? e : NULL;
}

/* A handle the program may still use: not freed by it. */
int smap_errhandler_valid(MPI_Errhandler h)
{
    struct MPI_ABI_Errhandler *e = user_handler(h);
    return smap_errhandler_is_predefined(h) || (e && e->magic == SMAP_ERRHANDLER_MAGIC);
}

MPI_Errhandler smap_errhandler_create(MPI_Comm_errhandler_function *fn)
{
    struct MPI_ABI_Errhandler *e = malloc(sizeof *e);
    if (!e)
        return MPI_ERRHANDLER_NULL;
    e->magic = SMAP_ERRHANDLER_MAGIC;
    e->refs = 1;
    e->handles = 1;
    e->fn = fn;
    e->fn_ctx = NULL;
    e->ctx = NULL;
    return e;
}

MPI_Errhandler smap_errhandler_create_ctx(void (*fn_ctx)(void *ctx, void *obj, int *code),
                                          void *ctx)
{
    struct MPI_ABI_Errhandler *e = smap_errhandler_create(NULL);
    if (e) {
        e->fn_ctx = fn_ctx;
        e->ctx = ctx;
    }
    return e;
}

void smap_errhandler_retain(MPI_Errhandler h)
{
    struct MPI_ABI_Errhandler *e = user_handler(h);
    if (e)
        atomic_fetch_add_explicit((_Atomic int *)&e->refs, 1, memory_order_relaxed);
}

void smap_errhandler_release(MPI_Errhandler h)
{
    struct MPI_ABI_Errhandler *e = user_handler(h);
    if (e && atomic_fetch_sub_explicit((_Atomic int *)&e->refs, 1, memory_order_acq_rel) == 1) {
        e->magic = 0;
        smap_free_later(e);   /* a stale handle reads the cleared magic for a while */
    }
}

void smap_errhandler_give(MPI_Errhandler h)
{
    smap_errhandler_retain(h);
    struct MPI_ABI_Errhandler *e = user_handler(h);
    if (e && atomic_fetch_add_explicit((_Atomic int *)&e->handles, 1, memory_order_relaxed) == 0)
        e->magic = SMAP_ERRHANDLER_MAGIC;
}

void smap_errhandler_drop(MPI_Errhandler h)
{
    struct MPI_ABI_Errhandler *e = user_handler(h);
    if (e && atomic_fetch_sub_explicit((_Atomic int *)&e->handles, 1, memory_order_relaxed) == 1)
        e->magic = SMAP_ERRHANDLER_HIDDEN;
    smap_errhandler_release(h);
}

static const char *comm_name(MPI_Comm comm)
{
    struct MPI_ABI_Comm *c = smap_comm_get(comm);
    return c ? smap_comm_label(c) : "a communicator";
}


void smap_errhandler_invoke(MPI_Comm comm, int code)
{
    struct MPI_ABI_Comm *c = smap_comm_get(comm);
    MPI_Errhandler h = c ? c->errhandler : MPI_ERRORS_ARE_FATAL;
    if (h == MPI_ERRORS_RETURN)
        return;
    struct MPI_ABI_Errhandler *user = user_handler(h);
    if (user) {
        if (user->fn_ctx)
            user->fn_ctx(user->ctx, &comm, &code);
        else
            user->fn(&comm, &code);
        return;
    }
    smap_errhandler_abort(h, comm_name(comm), code);
}

void smap_errhandler_call(MPI_Errhandler h, void *obj, const char *what, int code)
{
    if (h == MPI_ERRORS_RETURN)
        return;
    struct MPI_ABI_Errhandler *user = user_handler(h);
    if (user && user->fn_ctx) {
        user->fn_ctx(user->ctx, obj, &code);
        return;
    }
    if (user) {
        /* Every handler type takes (handle *, int *, ...): the function
         * was created for this kind of object (MPI_Session_create_errhandler). */
        ((MPI_Session_errhandler_function *)(void (*)(void))user->fn)((MPI_Session *)obj, &code);
        return;
    }
    smap_errhandler_abort(h, what, code);
}

void smap_errhandler_abort(MPI_Errhandler h, const char *what, int code)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0, cls = MPI_ERR_UNKNOWN;
    (void)smap_error_string(code, text, &len);
    (void)smap_error_class(code, &cls);
    char why[256];
    snprintf(why, sizeof why, "%s is the error handler of %s: %s",
             h == MPI_ERRORS_ABORT ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL", what,
             h == MPI_ERRORS_ABORT ? "aborting" : "aborting the job");
    smap_log(SMAP_LOG_ERROR, "%s", text);
    smap_boot_abort_error(cls, why);
}
