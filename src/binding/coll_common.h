/* Argument checks shared by the collective entry points (coll_move.c,
 * coll_reduce.c).  Each check returns from the entry point with the
 * communicator's error handler's verdict. */
#ifndef SMAP_BINDING_COLL_COMMON_H
#define SMAP_BINDING_COLL_COMMON_H

#include <mpi.h>

#include "binding/check.h"
#include "binding/dtype_check.h"
#include "coll/coll.h"
#include "dtype/engine.h"
#include "mpi/op.h"

#define COLL_ENTER(func, comm, c)                                                          \
    do {                                                                                   \
        SMAP_CHECK_RUNNING(func);                                                          \
        SMAP_CHECK_COMM(func, comm, c);                                                    \
    } while (0)

#define COLL_CHECK_ROOT(func, comm, c, root)                                               \
    do {                                                                                   \
        if (SMAP_UNLIKELY((root) < 0 || (root) >= (c)->size))                              \
            return smap_err_raise(comm, MPI_ERR_ROOT, func,                                \
                                  "root %d is not a rank of the communicator (size %d)",   \
                                  (root), (c)->size);                                      \
    } while (0)

/* count >= 0, a committed type, a byte size that fits, and no NULL buffer
 * with a predefined type (NULL is MPI_BOTTOM for absolute derived types). */
#define COLL_CHECK_BUF(func, comm, buf, count, datatype, t)                                \
    do {                                                                                   \
        if (SMAP_UNLIKELY((count) < 0))                                                    \
            return smap_err_raise(comm, MPI_ERR_COUNT, func, "%s count %lld is negative",  \
                                  #buf, (long long)(count));                               \
        SMAP_CHECK_DTYPE_COMMITTED(func, comm, datatype, t);                               \
        int bad_ = coll_bad_buffer(buf, count, t);                                         \
        if (SMAP_UNLIKELY(bad_))                                                           \
            return smap_err_raise(comm, bad_, func, "%s: %s", #buf,                        \
                                  bad_ == MPI_ERR_COUNT ? "count times type size overflows" \
                                                        : "buffer is NULL");               \
    } while (0)

static inline int coll_bad_buffer(const void *buf, MPI_Count count, smap_dtype_t *t)
{
    MPI_Count bytes;
    if (smap_mul_overflow_i64(count, smap_dtype_size(t), &bytes))
        return MPI_ERR_COUNT;
    if (!buf && count > 0 && (t->flags & SMAP_DT_PREDEF) && smap_dtype_size(t) > 0)
        return MPI_ERR_BUFFER;
    return 0;
}

/* A valid op, allowed on the type (MPI 5.0 §6.9.2), not an RMA-only op. */
#define COLL_CHECK_OP(func, comm, op, t, datatype)                                         \
    do {                                                                                   \
        struct MPI_ABI_Op *o_ = smap_op_get(op);                                           \
        if (SMAP_UNLIKELY(!o_))                                                            \
            return smap_err_raise(comm, MPI_ERR_OP, func, "%s",                            \
                                  (op) == MPI_OP_NULL ? "op is MPI_OP_NULL"                 \
                                                      : "op is not a valid op");           \
        if (SMAP_UNLIKELY(o_->predefined && ((op) == MPI_REPLACE || (op) == MPI_NO_OP)))   \
            return smap_err_raise(comm, MPI_ERR_OP, func,                                  \
                                  "%s is only for RMA accumulate operations", o_->name);   \
        const char *why_ = "";                                                             \
        int rc_ = smap_op_check(op, datatype, &why_);                                      \
        if (SMAP_UNLIKELY(rc_ != MPI_SUCCESS))                                             \
            return smap_err_raise(comm, rc_, func, "%s on %s: %s", o_->name, (t)->name,     \
                                  why_);                                                   \
    } while (0)

#define COLL_IN_PLACE_ERR(func, comm, what)                                                \
    smap_err_raise(comm, MPI_ERR_BUFFER, func, "MPI_IN_PLACE is not allowed as %s here", what)

/* The same non-empty buffer as input and output, where MPI wants
 * MPI_IN_PLACE instead. */
#define COLL_CHECK_ALIAS(func, comm, sbuf, rbuf, nonempty)                                 \
    do {                                                                                   \
        if (SMAP_UNLIKELY((nonempty) && (sbuf) == (rbuf) && (sbuf) != NULL))               \
            return smap_err_raise(comm, MPI_ERR_BUFFER, func, "%s",                        \
                                  "sendbuf and recvbuf are the same buffer "              \
                                  "(use MPI_IN_PLACE)");                                   \
    } while (0)

#define COLL_DONE(func, comm, rc)                                                          \
    ((rc) == MPI_SUCCESS ? MPI_SUCCESS : smap_err_raise(comm, rc, func, "%s", smap_coll_why()))

/* Count/displacement arrays as given by the int and the _c bindings. */
#define CV_INT(p) ((struct smap_cvec){ (p), 0 })
#define CV_BIG(p) ((struct smap_cvec){ (p), 1 })

#endif
