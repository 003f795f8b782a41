/* Collective schedules (src/coll/sched/README.md): a collective as a list
 * of rounds of point-to-point messages and local steps, progressed without
 * blocking.  Behind every non-blocking collective (src/coll/nbc), the
 * blocking collectives of communicators without a control block, and
 * MPI_Comm_idup.
 *
 * Building: each call below appends one operation to the current round;
 * smap_sched_barrier() closes the round.  Round r+1 starts once every
 * operation of round r has completed; local operations (copy, reduce,
 * callback) run when their round starts, in the order they were added,
 * before its messages are posted.  Buffers are read when their round
 * runs, not when the operation is added, so a round may send what an
 * earlier round computed.  Datatypes and ops are retained by the schedule.
 *
 * Messages: the communicator's context id plus SMAP_SCHED_CTX_OFFSET (a
 * context no communicator and no other internal protocol uses, so they
 * never match user point-to-point traffic), and as tag the communicator's
 * collective sequence number taken at smap_sched_start (comm->nbc_seq,
 * incremented there: every member starts its collectives on a communicator
 * in the same order, as MPI requires, so the numbers agree and two
 * outstanding collectives never cross-match; on an intercommunicator
 * 2 seq locally and 2 seq + 1 to/from the remote group, see
 * smap_sched_send_remote).  Within one schedule the
 * messages between two ranks match in the order both sides add them. */
#ifndef SMAP_COLL_SCHED_SCHED_H
#define SMAP_COLL_SCHED_SCHED_H

#include <mpi.h>
#include <stddef.h>

#include "dtype/dtype.h"
#include "mpi/comm.h"

#define SMAP_SCHED_CTX_OFFSET (1 << 20)

struct smap_sched;                      /* opaque */
struct smap_sched *smap_sched_new(struct MPI_ABI_Comm *c);   /* NULL: out of memory */
/* dest / src: rank in c's (local) group; MPI_PROC_NULL allowed (nothing
 * moves). */
int smap_sched_send(struct smap_sched *s, const void *buf, MPI_Count count, smap_dtype_t *dt,
                    int dest);
int smap_sched_recv(struct smap_sched *s, void *buf, MPI_Count count, smap_dtype_t *dt, int src);
/* A send in a mode of src/p2p (enum smap_p2p_mode: the hub modes, by
 * which a node member copies a large block between itself and a hub). */
int smap_sched_send_mode(struct smap_sched *s, const void *buf, MPI_Count count, smap_dtype_t *dt,
                         int dest, int mode);
/* On an intercommunicator: dest / src is a rank of the remote group.  These
 * messages use a tag of their own (2 seq + 1; the local ones 2 seq), so
 * they never match the local group's messages of any schedule. */
int smap_sched_send_remote(struct smap_sched *s, const void *buf, MPI_Count count,
                           smap_dtype_t *dt, int dest);
int smap_sched_recv_remote(struct smap_sched *s, void *buf, MPI_Count count, smap_dtype_t *dt,
                           int src);
/* (scount, st) at sbuf into the layout (rcount, rt) at rbuf. */
int smap_sched_copy(struct smap_sched *s, const void *sbuf, MPI_Count scount, smap_dtype_t *st,
                    void *rbuf, MPI_Count rcount, smap_dtype_t *rt);
/* inout = in op inout (MPI's order: `in` holds the lower ranks' part);
 * both in the layout of (count, t); type is t's handle. */
int smap_sched_reduce(struct smap_sched *s, const void *in, void *inout, MPI_Count count,
                      smap_dtype_t *t, MPI_Datatype type, MPI_Op op);
void *smap_sched_tmp(struct smap_sched *s, size_t bytes);      /* scratch freed with the schedule */
int smap_sched_barrier(struct smap_sched *s);   /* ends the current round */
/* Starts it; *req becomes an MPI_Request that MPI_Wait/Test/... complete
 * (and MPI_Request_free releases). */
int smap_sched_start(struct smap_sched *s, MPI_Request *req);
/* Persistent collectives (MPI_Bcast_init ...): between
 * smap_sched_persistent(req) and smap_sched_persistent(NULL) (calling
 * thread only), smap_sched_start(s, req) with that request pointer does
 * not start s but makes *req an inactive persistent request
 * (SMAP_REQ_PCOLL) that owns it, with tags of its own taken then; each
 * MPI_Start runs it again with smap_sched_restart, in any order relative
 * to other requests' starts (MPI_ERR_REQUEST: a failed run left messages
 * in flight). */
void smap_sched_persistent(MPI_Request *req);
int smap_sched_restart(struct smap_sched *s);
/* Blocking use: start, then progress until done; frees the schedule. */
int smap_sched_run(struct smap_sched *s);
/* A schedule never started (or completed, for its request). */
void smap_sched_free(struct smap_sched *s);

/* ---- beyond the common contract ---- */

/* A local step run when its round starts: fn returns MPI_SUCCESS, an MPI
 * error class (which fails the schedule), or SMAP_SCHED_AGAIN: call it
 * again on a later progress round (the round waits).  fn may append
 * operations and rounds to s (after the current round): a schedule whose
 * length depends on what it computed, e.g. an agreement that retries. */
#define SMAP_SCHED_AGAIN (-1)
typedef int smap_sched_fn(struct smap_sched *s, void *arg);
int smap_sched_callback(struct smap_sched *s, smap_sched_fn *fn, void *arg);
/* A message whose place and size an earlier round computed (a leader
 * that learns its members' block sizes from the schedule's own messages):
 * read when its round runs, buffer *buf + *off bytes (off NULL: 0),
 * *count elements of dt.  The pointers must stay valid (scratch of s) for
 * every run: a persistent schedule is built once and sized anew at each
 * start. */
int smap_sched_send_late(struct smap_sched *s, char *const *buf, const MPI_Count *off,
                         const MPI_Count *count, smap_dtype_t *dt, int dest);
int smap_sched_recv_late(struct smap_sched *s, char *const *buf, const MPI_Count *off,
                         const MPI_Count *count, smap_dtype_t *dt, int src);
/* Scratch for `count` elements of t in t's layout (the returned pointer is
 * where element 0 goes; the bytes below it up to t's true lower bound are
 * part of the scratch).  NULL when out of memory. */
void *smap_sched_tmp_typed(struct smap_sched *s, MPI_Count count, smap_dtype_t *t);
struct MPI_ABI_Comm *smap_sched_comm(const struct smap_sched *s);
/* Whether a build call failed (out of memory): the schedule must then be
 * freed, not started.  Build calls after a failure do nothing. */
int smap_sched_failed(const struct smap_sched *s);

/* Pipelining: s (built with no operations of its own) runs the n
 * schedules lanes[] (built on the same communicator, not started; s owns
 * them from here on) side by side, lane k starting its round r only once
 * lane k-1 has completed its round r: chunk k of a collective follows
 * chunk k-1 through every phase while different phases overlap.  Each
 * lane takes a sequence number (tag) of its own at the start, so lanes
 * never match each other's messages.  Every member must build the same
 * number of lanes.  0, or MPI_ERR_NO_MEM (a lane is NULL or failed to
 * build: s must then be freed, which frees the lanes). */
int smap_sched_lanes(struct smap_sched *s, struct smap_sched **lanes, int n);

/* For the request layer (src/mpi/request.c, src/binding/request.c): the
 * schedule behind a request, released with it. */
void smap_sched_release(struct smap_sched *s);

#endif
