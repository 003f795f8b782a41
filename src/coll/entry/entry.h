/* The collectives' argument checks, shared by their generated entry points
 * (src/binding/gen/coll.c, through move.c, reduce.c, inter.c) and the
 * neighbourhood collectives (src/coll/nbc/neighbor.c).  Each check returns
 * from the entry point with the communicator's error handler's verdict. */
#ifndef SMAP_COLL_ENTRY_ENTRY_H
#define SMAP_COLL_ENTRY_ENTRY_H

#include <mpi.h>

#include "mpi/args.h"
#include "coll/entry/inter.h"
#include "coll/coll.h"
#include "coll/nbc/nbc.h"
#include "coll/sched/sched.h"
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
    COLL_CHECK_BUF_AS(func, comm, #buf, buf, count, datatype, t)
/* The same, naming the buffer `name` in messages. */
#define COLL_CHECK_BUF_AS(func, comm, name, buf, count, datatype, t)                       \
    do {                                                                                   \
        if (SMAP_UNLIKELY((count) < 0))                                                    \
            return smap_err_raise(comm, MPI_ERR_COUNT, func, "%s count %lld is negative",  \
                                  name, (long long)(count));                               \
        SMAP_CHECK_DTYPE_COMMITTED(func, comm, datatype, t);                               \
        int bad_ = coll_bad_buffer(buf, count, t);                                         \
        if (SMAP_UNLIKELY(bad_))                                                           \
            return smap_err_raise(comm, bad_, func, "%s: %s", name,                        \
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

/* The collective's verdict through the communicator's handler.  A
 * function, not a macro: rc is the collective's call, which a macro
 * would run a second time to raise its error (issue 36: the second run
 * returned MPI_SUCCESS, raised as an error of class MPI_SUCCESS, and
 * desynchronised the ranks). */
static inline int coll_done(const char *func, MPI_Comm comm, int rc, const char *(*why)(void))
{
    return rc == MPI_SUCCESS ? MPI_SUCCESS : smap_err_raise(comm, rc, func, "%s", why());
}
#define COLL_DONE(func, comm, rc) coll_done(func, comm, rc, smap_why)

/* Runs a checked collective through c's table (src/coll/dispatch.c,
 * which chose its implementation once): `blocking` when req is NULL,
 * else `nonblocking`, which starts a schedule in *req. */
#define COLL_RUN(func, comm, req, blocking, nonblocking)                                   \
    ((req) ? COLL_DONE(func, comm, nonblocking)                                            \
           : (smap_coll_func = (func), COLL_DONE(func, comm, blocking)))

/* Non-blocking entry points (req non-NULL: the wrapper checked the
 * pointer): the request is MPI_REQUEST_NULL until the collective has
 * started.  Intercommunicators are dispatched by the entry points to
 * inter.c, which takes the request too. */
#define COLL_CHECK_REQ(func, comm, c, req)                                                 \
    do {                                                                                   \
        if (req)                                                                           \
            *(req) = MPI_REQUEST_NULL;                                                     \
    } while (0)

/* The entry of a collective that may be non-blocking (req non-NULL). */
#define COLL_ENTER_REQ(func, comm, c, req)                                                 \
    do {                                                                                   \
        COLL_ENTER(func, comm, c);                                                         \
        COLL_CHECK_REQ(func, comm, c, req);                                                \
    } while (0)

/* The collectives' checks and dispatch (move.c, reduce.c), shared by the
 * blocking (req NULL), non-blocking and persistent entry points. */
int coll_barrier(const char *F, MPI_Comm comm, MPI_Request *req);
int coll_bcast(const char *F, void *buf, MPI_Count count, MPI_Datatype datatype, int root,
               MPI_Comm comm, MPI_Request *req);
int coll_gather(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                void *rbuf, MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                MPI_Datatype rtype, int root, MPI_Comm comm, int vec, MPI_Request *req);
int coll_scatter(const char *F, const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                 struct smap_cvec displs, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm, int vec, MPI_Request *req);
int coll_allgather(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                   void *rbuf, MPI_Count rcount, struct smap_cvec rcounts,
                   struct smap_cvec displs, MPI_Datatype rtype, MPI_Comm comm, int vec,
                   MPI_Request *req);
/* kind 0: Alltoall, 1: Alltoallv, 2: Alltoallw. */
int coll_alltoall(const char *F, struct smap_a2a *a, MPI_Datatype stype, MPI_Datatype rtype,
                  MPI_Comm comm, int kind, MPI_Request *req);
int coll_reduce(const char *F, const void *sbuf, void *rbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *req);
/* Allreduce, Scan and Exscan share their checks. */
enum { K_ALLREDUCE, K_SCAN, K_EXSCAN };
int coll_allred(const char *F, int kind, const void *sbuf, void *rbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *req);
/* rcounts.p NULL: Reduce_scatter_block with `block` elements per rank. */
int coll_redscat(const char *F, const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                 MPI_Count block, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request *req);

/* One side of a collective with a block per peer, n peers (the
 * communicator's size, the remote group's, a topology's degree): counts
 * >= 0 and displacements, then the one committed type (w 0, resolved into
 * *t) or n committed types (w 1, alltoallw).  The arrays may be NULL only
 * when n == 0 (a process without neighbours).  `what` is "send"/"recv". */
int coll_check_vside(const char *F, MPI_Comm comm, int n, const char *what,
                     struct smap_cvec counts, struct smap_cvec displs, MPI_Datatype type,
                     const MPI_Datatype *types, int w, smap_dtype_t **t);
/* One side of an alltoall over n peers: kind 0 one count and type for
 * every block (the buffer checked too), 1 v, 2 w (coll_check_vside). */
int coll_a2a_side(const char *F, MPI_Comm comm, int n, const char *what, const void *buf,
                  MPI_Count count, struct smap_cvec counts, struct smap_cvec displs,
                  MPI_Datatype type, const MPI_Datatype *types, int kind, smap_dtype_t **t);
/* Reduce_scatter(_block) over the n ranks that receive (rcounts.p NULL:
 * `block` each): every count >= 0; *total their sum, *mine rank's. */
int coll_redscat_counts(const char *F, MPI_Comm comm, struct smap_cvec rcounts, MPI_Count block,
                        int n, int rank, MPI_Count *total, MPI_Count *mine);

/* Count/displacement arrays as given by the int and the _c bindings. */
#define CV_INT(p) ((struct smap_cvec){ (p), 0 })
#define CV_BIG(p) ((struct smap_cvec){ (p), 1 })

/* The persistent collectives (MPI_Bcast_init ...): the non-blocking
 * collectives' checks and schedule builders, run with the schedule engine
 * in persistent mode, so the schedule is built once and handed back as an
 * inactive persistent request that MPI_Start runs again
 * (src/coll/sched/README.md, "Persistent schedules").  Never the
 * control-block algorithms: a started collective must progress while its
 * caller does other communication.  Their entry points evaluate
 * COLL_PERSIST(request, the check-and-build call). */
static inline int coll_persist_end(int rc)
{
    smap_sched_persistent(NULL);
    return rc;
}
#define COLL_PERSIST(request, call) (smap_sched_persistent(request), coll_persist_end(call))

#endif
