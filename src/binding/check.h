/* The argument checks of the entry points (the generated stubs of
 * src/binding/gen/ and the hand-written fast paths).  Each returns from the
 * calling entry point with the error handler's verdict. */
#ifndef SMAP_BINDING_CHECK_H
#define SMAP_BINDING_CHECK_H

#include <mpi.h>

#include "base/compiler.h"
#include "base/why.h"
#include "dtype/dtype.h"
#include "mpi/args.h"
#include "mpi/comm.h"
#include "mpi/group.h"
#include "mpi/info.h"
#include "mpi/intercomm.h"
#include "mpi/op.h"
#include "topo/topo.h"
#include "mpi/errors.h"
#include "mpi/runtime.h"
#include "mpi/session.h"
#include "rma/rma.h"

/* ---- The error target.  An entry point raises its errors on the object it
 * works on: a communicator's, a window's or a session's handler (MPI 5.0
 * §9.3).  The target's C type picks the raise at compile time, so one
 * check macro serves every family (MPI_COMM_NULL: MPI_COMM_SELF's handler,
 * for errors tied to no object). ---- */
#define SMAP_RAISE_ON(t, ...)                                                      \
    _Generic((t), MPI_Win: smap_win_raise, MPI_Session: smap_session_raise,        \
             default: smap_err_raise)((t), __VA_ARGS__)

/* ---- The checks of the generated entry points (src/binding/gen/, written by
 * scripts/gen_binding.py from each parameter's kind).  `name` is the
 * argument as the standard names it, for the message. ---- */

/* obj = the communicator behind handle h (errors on no communicator). */
#define SMAP_CHECK_COMM_OBJ(func, comm, h, name, obj)                              \
    do {                                                                           \
        (void)(comm);                                                              \
        (obj) = smap_comm_get(h);                                                  \
        if (SMAP_UNLIKELY(!(obj)))                                                 \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_COMM, func, "%s %s", name, \
                                  (h) == MPI_COMM_NULL ? "is MPI_COMM_NULL"         \
                                                       : "is not a valid communicator"); \
    } while (0)

#define SMAP_CHECK_GROUP(func, comm, h, name, obj)                                 \
    do {                                                                           \
        (obj) = smap_group_get(h);                                                 \
        if (SMAP_UNLIKELY(!(obj)))                                                 \
            return SMAP_RAISE_ON(comm, MPI_ERR_GROUP, func, "%s %s", name,        \
                                  (h) == MPI_GROUP_NULL ? "is MPI_GROUP_NULL"       \
                                                        : "is not a valid group"); \
    } while (0)

#define SMAP_CHECK_INFO(func, comm, h, name, obj)                                  \
    do {                                                                           \
        (obj) = smap_info_get(h);                                                  \
        if (SMAP_UNLIKELY(!(obj)))                                                 \
            return SMAP_RAISE_ON(comm, MPI_ERR_INFO, func, "%s %s", name,         \
                                  (h) == MPI_INFO_NULL ? "is MPI_INFO_NULL"         \
                                                       : "is not a valid info object"); \
    } while (0)

#define SMAP_CHECK_DTYPE_NAMED(func, comm, h, name, obj)                           \
    do {                                                                           \
        (obj) = smap_dtype_get(h);                                                 \
        if (SMAP_UNLIKELY(!(obj)))                                                 \
            return SMAP_RAISE_ON(comm, MPI_ERR_TYPE, func, "%s %s", name,         \
                                  (h) == MPI_DATATYPE_NULL ? "is MPI_DATATYPE_NULL" \
                                                           : "is not a valid datatype"); \
    } while (0)

#define SMAP_CHECK_OP(func, comm, h, name, obj)                                    \
    do {                                                                           \
        (obj) = smap_op_get(h);                                                    \
        if (SMAP_UNLIKELY(!(obj)))                                                 \
            return SMAP_RAISE_ON(comm, MPI_ERR_OP, func, "%s %s", name,           \
                                  (h) == MPI_OP_NULL ? "is MPI_OP_NULL"             \
                                                     : "is not a valid op");       \
    } while (0)

/* obj = the window behind handle h (errors on no window: MPI_COMM_SELF's
 * handler). */
#define SMAP_CHECK_WIN_OBJ(func, target, h, name, obj)                             \
    do {                                                                           \
        (void)(target);                                                            \
        (obj) = smap_win_get(h);                                                   \
        if (SMAP_UNLIKELY(!(obj)))                                                 \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_WIN, func, "%s %s", name, \
                                  (h) == MPI_WIN_NULL ? "is MPI_WIN_NULL"           \
                                                      : "is not a valid window");  \
    } while (0)

/* obj = the live session behind handle h (MPI_ERR_SESSION otherwise). */
#define SMAP_CHECK_SESSION_OBJ(func, target, h, name, obj)                         \
    do {                                                                           \
        (void)(target);                                                            \
        (obj) = smap_session_get(h);                                               \
        if (SMAP_UNLIKELY(!(obj)))                                                 \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_SESSION, func, "%s %s", name, \
                                  (h) == MPI_SESSION_NULL ? "is MPI_SESSION_NULL"   \
                                                          : "is not a live session"); \
    } while (0)

/* A pointer argument: not NULL (raised on the entry point's target). */
#define SMAP_CHECK_NONNULL(func, target, ptr, name)                                \
    do {                                                                           \
        if (SMAP_UNLIKELY(!(ptr)))                                                 \
            return SMAP_RAISE_ON(target, MPI_ERR_ARG, func, "%s is NULL", name);   \
    } while (0)

/* An element count: not negative. */
#define SMAP_CHECK_COUNT(func, comm, n, name)                                      \
    do {                                                                           \
        if (SMAP_UNLIKELY((n) < 0))                                                \
            return SMAP_RAISE_ON(comm, MPI_ERR_COUNT, func, "%s=%lld is negative", \
                                  name, (long long)(n));                           \
    } while (0)

/* An info argument that may also be MPI_INFO_NULL (no hints). */
#define SMAP_CHECK_INFO_OR_NULL(func, comm, h, name)                               \
    do {                                                                           \
        if (SMAP_UNLIKELY((h) != MPI_INFO_NULL && !smap_info_get(h)))              \
            return SMAP_RAISE_ON(comm, MPI_ERR_INFO, func, "%s %s", name,         \
                                  "is not a valid info object");                   \
    } while (0)

/* A function defined on intercommunicators only. */
#define SMAP_CHECK_INTER(func, comm, obj, name)                                    \
    do {                                                                           \
        if (SMAP_UNLIKELY(!smap_comm_is_inter(obj)))                               \
            return SMAP_RAISE_ON(comm, MPI_ERR_COMM, func, "%s %s", name,         \
                                  "is not an intercommunicator");                  \
    } while (0)

/* A function not defined on intercommunicators (topologies). */
#define SMAP_CHECK_INTRA(func, comm, obj, name)                                    \
    do {                                                                           \
        if (SMAP_UNLIKELY((obj)->remote_group))                                    \
            return SMAP_RAISE_ON(comm, MPI_ERR_COMM, func, "%s %s", name,         \
                                  "is an intercommunicator");                      \
    } while (0)

/* The communicator's topology must be of kind `want` (what: its words). */
#define SMAP_CHECK_TOPO(func, comm, obj, want, what)                               \
    do {                                                                           \
        if (SMAP_UNLIKELY(!(obj)->topo || smap_topo_kind((obj)->topo) != (want)))  \
            return SMAP_RAISE_ON(comm, MPI_ERR_TOPOLOGY, func, "comm has no %s topology", \
                                  what);                                           \
    } while (0)

/* A status argument that must be a real one. */
#define SMAP_CHECK_STATUS_ARG(func, comm, st, name)                                \
    do {                                                                           \
        if (SMAP_UNLIKELY(!(st)))                                                  \
            return SMAP_RAISE_ON(comm, MPI_ERR_ARG, func,                         \
                                  "%s is NULL (MPI_STATUS_IGNORE is not allowed here)", \
                                  name);                                           \
    } while (0)

/* A count: not negative. */
#define SMAP_CHECK_NNI(func, comm, n, name)                                        \
    do {                                                                           \
        if (SMAP_UNLIKELY((n) < 0))                                                \
            return SMAP_RAISE_ON(comm, MPI_ERR_ARG, func, "%s=%lld is negative",  \
                                  name, (long long)(n));                           \
    } while (0)

/* An array of n entries: not NULL when n > 0. */
#define SMAP_CHECK_ARRAY(func, comm, arr, n, name, nname)                          \
    do {                                                                           \
        if (SMAP_UNLIKELY((n) > 0 && !(arr)))                                      \
            return SMAP_RAISE_ON(comm, MPI_ERR_ARG, func, "%s is NULL but %s=%lld", \
                                  name, nname, (long long)(n));                    \
    } while (0)

/* The end of a generated entry point: the layer below returned rc, and
 * recorded why when it is an error (base/why.h); raised on the target. */
#define SMAP_RAISE_RC(func, target, rc)                                            \
    _Generic((target), MPI_Win: smap_raise_rc_win, MPI_Session: smap_raise_rc_session, \
             default: smap_raise_rc)(func, target, rc)

static inline int smap_raise_rc(const char *func, MPI_Comm comm, int rc)
{
    if (SMAP_LIKELY(rc == MPI_SUCCESS))
        return MPI_SUCCESS;
    return smap_err_raise(comm, rc, func, "%s", smap_why());
}

static inline int smap_raise_rc_win(const char *func, MPI_Win win, int rc)
{
    if (SMAP_LIKELY(rc == MPI_SUCCESS))
        return MPI_SUCCESS;
    return smap_win_raise(win, rc, func, "%s", smap_why());
}

static inline int smap_raise_rc_session(const char *func, MPI_Session s, int rc)
{
    if (SMAP_LIKELY(rc == MPI_SUCCESS))
        return MPI_SUCCESS;
    return smap_session_raise(s, rc, func, "%s", smap_why());
}

#endif
