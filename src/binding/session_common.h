/* Argument checks shared by the bindings that take a session
 * (binding/session.c, binding/buffer.c). */
#ifndef SMAP_BINDING_SESSION_COMMON_H
#define SMAP_BINDING_SESSION_COMMON_H

#include <mpi.h>

#include "mpi/errhandler.h"
#include "mpi/errors.h"
#include "mpi/session.h"

/* The session behind handle h, or a raised MPI_ERR_SESSION. */
#define GET_SESSION(F, h, s)                                                       \
    do {                                                                           \
        (s) = smap_session_get(h);                                                 \
        if (!(s))                                                                  \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_SESSION, F, "%s",         \
                                  (h) == MPI_SESSION_NULL ? "session is MPI_SESSION_NULL" \
                                                          : "session is not a live session"); \
    } while (0)

/* The handle the session's user error handler receives a pointer to. */
static inline MPI_Session handle_of(struct MPI_ABI_Session *s)
{
    return s;
}

static inline int session_raise(struct MPI_ABI_Session *s, int cls, const char *F, const char *why)
{
    MPI_Session h = handle_of(s);
    return smap_err_raise_on(s->errhandler, &h, "a session", cls, F, "%s", why);
}

#endif
