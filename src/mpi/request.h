/* MPI_Request objects: a point-to-point operation (src/p2p) plus what MPI
 * adds around it: the communicator whose error handler reports its
 * failure, and persistence (MPI_Send_init ... MPI_Start).  The completion functions (test and
 * wait on one, any, some or all) live in request.c. */
#ifndef SMAP_MPI_REQUEST_H
#define SMAP_MPI_REQUEST_H

#include <mpi.h>
#include <stdint.h>

#include "mpi/status.h"
#include "p2p/p2p.h"

#define SMAP_REQ_MAGIC 0x52455155u   /* "REQU" */

/* SMAP_REQ_PCOLL: a persistent collective (MPI_Bcast_init ...), its
 * schedule in `sched`, run again at each start.  SMAP_REQ_PART: a
 * partitioned send or receive (partitioned.c), its state in `part`. */
enum smap_req_persist {
    SMAP_REQ_ONCE = 0,
    SMAP_REQ_PSEND,
    SMAP_REQ_PRECV,
    SMAP_REQ_PCOLL,
    SMAP_REQ_PART
};
/* pmode of a persistent buffered send (the others are enum smap_p2p_mode). */
#define SMAP_REQ_BUFFERED 16
/* p.kind of a collective's request: a schedule (src/coll/sched) sets p.done
 * and p.err when it completes; its status is empty. */
#define SMAP_PREQ_COLL 3
/* p.kind of a generalized request (MPI_Grequest_start, grequest.c):
 * MPI_Grequest_complete sets p.done; `greq` holds the user's callbacks. */
#define SMAP_PREQ_GREQ 4
struct smap_sched;
/* A collective's schedule belongs to src/coll/sched, above this layer: the
 * engine hands its operations over with the schedule (r->sched_ops), so
 * that the request can restart (MPI_Start of a persistent collective) and
 * release it without calling up by name. */
struct smap_sched_ops {
    int (*restart)(struct smap_sched *s);
    void (*release)(struct smap_sched *s);
};
struct smap_greq;
struct smap_part;
struct smap_req_hook;

struct MPI_ABI_Request {
    struct smap_preq p;       /* first: the hot fields */
    uint32_t magic;
    int persist;              /* enum smap_req_persist */
    int active;               /* persistent: started and not completed yet */
    int idle;                 /* counted in its communicator's idle_refs */
    int proc_null;            /* persistent: peer is MPI_PROC_NULL */
    MPI_Comm comm;
    /* a file's nonblocking access (src/io): its errors at completion go
     * to the file's error handler (MPI 5.0 §14.7), not the comm's; or NULL */
    MPI_File file;
    /* request_hook.h; usually NULL (beside extra and tmp, which the same
     * paths test) */
    const struct smap_req_hook *hook;
    void *hook_ctx;
    /* MPI_Isendrecv(_replace): the send half, and for _replace the packed
     * receive to unpack into the user's buffer at completion. */
    struct smap_preq *extra;
    void *tmp, *ubuf;
    MPI_Count ucount;
    smap_dtype_t *udt;
    struct MPI_ABI_Request *orphan_next;   /* freed by the user while in flight */
    /* persistent arguments */
    const void *pbuf;
    MPI_Count pcount;
    int prank, plr, pme, ptag, pctx, pmode;
    struct smap_sched *sched;   /* SMAP_PREQ_COLL: the schedule, released with the request */
    const struct smap_sched_ops *sched_ops;   /* what to do with it (set with sched) */
    struct smap_greq *greq;     /* SMAP_PREQ_GREQ: callbacks, freed with the request */
    struct smap_part *part;     /* SMAP_PREQ_PART: partitions, freed with the request */
};

static inline struct MPI_ABI_Request *smap_req_get(MPI_Request h)
{
    struct MPI_ABI_Request *r = (struct MPI_ABI_Request *)h;
    if ((uintptr_t)h < 65536 || ((uintptr_t)h & 7) || r->magic != SMAP_REQ_MAGIC)
        return NULL;
    return r;
}

/* A new request (not started), or NULL when out of memory. */
struct MPI_ABI_Request *smap_req_new(MPI_Comm comm);
void smap_req_free(struct MPI_ABI_Request *r);
/* MPI_Request_free of an operation still in flight: it completes in the
 * background and is freed then. */
void smap_req_orphan(struct MPI_ABI_Request *r);

/* Sets r->active; a persistent request's reference on its communicator
 * is idle while inactive (smap_comm_quiesce does not wait for it). */
void smap_req_set_active(struct MPI_ABI_Request *r, int active);
/* Starts a persistent request (or re-starts an inactive one). */
int smap_req_start(struct MPI_ABI_Request *r);

/* Fills *st (may be MPI_STATUS_IGNORE) from a completed operation. */
static inline void smap_preq_status(const struct smap_preq *p, MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    if (p->kind == SMAP_PREQ_RECV)
        smap_status_fill(st, p->src, p->rtag, (MPI_Count)p->got);
    else
        smap_status_fill(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    if (SMAP_UNLIKELY(p->cancelled)) {
        smap_status_set_cancelled(st, 1);
        st->MPI_SOURCE = MPI_ANY_SOURCE;
        st->MPI_TAG = MPI_ANY_TAG;
    }
}

/* A completed request: status out, then freed (or made inactive when
 * persistent) and *h set to MPI_REQUEST_NULL (non-persistent).  Returns the
 * request's error class. */
int smap_req_finish(MPI_Request *h, MPI_Status *st);

/* Whether *h is complete (progressing once when it is not); NULL and
 * inactive requests count as complete with an empty status. */
int smap_greq_poll(struct MPI_ABI_Request *r);   /* grequest.c, below */
static inline int smap_req_ready(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return 1;
    struct MPI_ABI_Request *r = (struct MPI_ABI_Request *)h;
    if (r->persist && !r->active)
        return 1;
    if (smap_preq_done(&r->p))
        return !r->extra || smap_preq_done(r->extra);
    return SMAP_UNLIKELY(r->greq != NULL) && smap_greq_poll(r);
}

/* Whether h is an active request: not MPI_REQUEST_NULL, not an inactive
 * persistent one (what MPI_Waitany/some skip). */
static inline int smap_req_active(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return 0;
    struct MPI_ABI_Request *r = (struct MPI_ABI_Request *)h;
    return !r->persist || r->active;
}

/* The completion waits of MPI_Wait/Test and their any/some/all forms
 * (the binding checks the arguments, then finishes what they found
 * ready).  Each drives progress itself, so completion never depends on
 * another call, and waits between rounds as base/wait.h says (spin, yield,
 * sleep).  blocking 0: one progress round at most, as the Test forms. */
/* Until h is ready (MPI_Wait; the caller tested it once already). */
void smap_req_wait(MPI_Request h);
/* Index of the first request from `from` on that is not ready, or n:
 * requests mostly complete in order, so the waits resume where they
 * stopped instead of rescanning the array after every round. */
int smap_req_first_pending(int from, int n, MPI_Request reqs[]);
/* Until every request is ready (MPI_Waitall). */
void smap_req_wait_all(int n, MPI_Request reqs[]);
/* The lowest ready active request (as Open MPI and MPICH report it), -1
 * when none is ready (blocking: only when none will be), -2 when none is
 * active (MPI_Waitany, MPI_Testany). */
int smap_req_wait_any(int n, MPI_Request reqs[], int blocking);
/* The ready active requests' indices in indices[] and their number (0:
 * none ready, non-blocking only), or -1 when none is active
 * (MPI_Waitsome, MPI_Testsome). */
int smap_req_wait_some(int n, MPI_Request reqs[], int indices[], int blocking);

/* Generalized requests (grequest.c). */
struct MPI_ABI_Comm;
/* An internal one completed by polling: poll(arg) says whether it is
 * done (asked by the waits and tests); free_fn(arg) at release. */
int smap_greq_start_polled(int (*poll)(void *), MPI_Grequest_free_function *free_fn, void *arg,
                           MPI_Request *req);
/* The same with a status: query(arg, st) fills it at completion (the
 * error class it returns is the request's), e.g. MPI-IO's byte count. */
int smap_greq_start_polled_query(int (*poll)(void *), MPI_Grequest_query_function *query,
                                 MPI_Grequest_free_function *free_fn, void *arg,
                                 MPI_Request *req);
/* Polls an incomplete generalized request: whether it is complete now. */
int smap_greq_poll(struct MPI_ABI_Request *r);
int smap_greq_start(MPI_Grequest_query_function *query, MPI_Grequest_free_function *free_fn,
                    MPI_Grequest_cancel_function *cancel, void *extra, MPI_Request *req);
/* MPI_Grequest_complete: MPI_ERR_REQUEST if r is no generalized request or
 * already complete; a request the user freed before is released now (its
 * free_fn's error returned). */
int smap_greq_complete(struct MPI_ABI_Request *r);
/* The entry points' forms: the reason recorded (base/why.h); complete
 * refuses a request that is not generalized or is complete already. */
int smap_greq_start_checked(MPI_Grequest_query_function *query_fn,
                            MPI_Grequest_free_function *free_fn,
                            MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                            MPI_Request *request);
int smap_greq_complete_checked(MPI_Request request);
/* Completion by a wait or test: query_fn fills *st (a scratch status when
 * st is MPI_STATUS_IGNORE), then free_fn; returns the first error. */
int smap_greq_finish(struct MPI_ABI_Request *r, MPI_Status *st);
/* MPI_Request_get_status: query_fn only (the request stays). */
int smap_greq_query(struct MPI_ABI_Request *r, MPI_Status *st);
/* MPI_Cancel: cancel_fn(extra, complete). */
int smap_greq_cancel(struct MPI_ABI_Request *r);
/* MPI_Request_free: free_fn now if complete (the request is released),
 * else at MPI_Grequest_complete. */
int smap_greq_free(struct MPI_ABI_Request *r);

/* The request operations off the completion fast path (request_api.c):
 * handles checked there, errors raised in F's name on the request's
 * communicator.  An array of requests (smap_req_array_ok, inline for the
 * waits' measured path): n >= 0, reqs non-NULL when n > 0, every entry
 * MPI_REQUEST_NULL or a request; else smap_req_array_error raises why.
 * smap_req_raise: a completed request's error class (truncation...) on
 * comm. */
static inline int smap_req_array_ok(int n, const MPI_Request reqs[])
{
    if (n < 0 || (n > 0 && !reqs))
        return 0;
    for (int i = 0; i < n; i++)
        if (reqs[i] != MPI_REQUEST_NULL && !smap_req_get(reqs[i]))
            return 0;
    return 1;
}
int smap_req_array_error(const char *F, int n, const MPI_Request reqs[]) SMAP_COLD;
int smap_req_raise(const char *F, MPI_Comm comm, int err) SMAP_COLD;
int smap_req_start_handle(MPI_Request *request, const char *F);
int smap_req_startall(int count, MPI_Request reqs[], const char *F);
int smap_req_free_handle(MPI_Request *request, const char *F);
int smap_req_cancel_handle(MPI_Request *request, const char *F);
int smap_req_get_status(MPI_Request request, int *flag, MPI_Status *status, const char *F);
int smap_req_get_status_all(int count, const MPI_Request reqs[], int *flag, MPI_Status sts[],
                            const char *F);
int smap_req_get_status_any(int count, const MPI_Request reqs[], int *index, int *flag,
                            MPI_Status *status, const char *F);
int smap_req_get_status_some(int incount, const MPI_Request reqs[], int *outcount,
                             int indices[], MPI_Status sts[], const char *F);

/* The entry points' persistent and partitioned requests (persist.c): the
 * arguments as given (count, datatype, buffer, peer, tag, route; for
 * partitioned ones partitions and info too), checked there; MPI_SUCCESS
 * or a class with smap_why().  mode: SMAP_P2P_* or SMAP_REQ_BUFFERED. */
int smap_persist_init(struct MPI_ABI_Comm *c, const void *buf, MPI_Count count,
                      MPI_Datatype datatype, int peer, int tag, int mode, int recv,
                      MPI_Request *req);
int smap_part_init_checked(struct MPI_ABI_Comm *c, const void *buf, int partitions,
                           MPI_Count count, MPI_Datatype datatype, int peer, int tag,
                           MPI_Info info, int send, MPI_Request *req);
/* MPI_Pready, MPI_Pready_range, MPI_Pready_list, MPI_Parrived on request
 * h (part_api.c): they raise their own errors in F's name, on the
 * request's communicator (MPI_COMM_SELF's when h is no partitioned
 * request). */
int smap_part_pready_range(MPI_Request h, int low, int high, const char *F);
int smap_part_pready_list(MPI_Request h, int length, const int partitions[], const char *F);
int smap_part_parrived(MPI_Request h, int partition, int *flag, const char *F);

/* Partitioned point-to-point (partitioned.c).  smap_part_init makes r (a
 * new request holding comm, the type in p.dt) a partitioned send (send 1)
 * or receive of `partitions` x `per` elements at buf; peer may be
 * MPI_PROC_NULL; lr: the peer's local rank (send). */
int smap_part_init(struct MPI_ABI_Request *r, int send, const void *buf, int partitions,
                   MPI_Count per, int peer, int lr, int me, int tag, int ctx);
int smap_part_start(struct MPI_ABI_Request *r);
/* MPI_Pready of one partition: MPI_ERR_REQUEST when r is no active
 * partitioned send or the partition was already marked ready in this
 * start; MPI_ERR_ARG out of range. */
int smap_part_ready(struct MPI_ABI_Request *r, int partition);
/* MPI_Parrived: *flag 1 once the partition's data is in the buffer. */
int smap_part_arrived(struct MPI_ABI_Request *r, int partition, int *flag);
void smap_part_release(struct smap_part *p);

/* Buffered sends (bsend.c): the data is packed into the attached buffer
 * and sent from there by an internal request.  Each returns MPI_SUCCESS or
 * an error class with *why. */
int smap_bsend(MPI_Comm comm, const void *buf, MPI_Count count, smap_dtype_t *dt, int rank,
               int lr, int me, int tag, int ctx, const char **why);
int smap_buffer_attach(void *buf, MPI_Count size, const char **why);
int smap_buffer_detach(void **addr, MPI_Count *size, const char **why);
/* Progresses until every buffered send has left the attached buffers
 * (the receivers took them): MPI_Finalize. */
void smap_bsend_drain(void);
/* Frees the buffered sends that have completed (their requests hold their
 * communicators: MPI_Comm_disconnect waits for those to go). */
void smap_bsend_reap(void);
/* MPI 4.1: a communicator's own buffer, used by buffered sends on it
 * instead of the process's while attached. */
int smap_comm_buffer_attach(struct MPI_ABI_Comm *c, void *buf, MPI_Count size, const char **why);
int smap_comm_buffer_detach(struct MPI_ABI_Comm *c, void **addr, MPI_Count *size,
                            const char **why);
/* Waits until the messages in c's buffer (c NULL: the process's) at the
 * time of the call have left it; the non-blocking form returns a request
 * completed when they have (MPI_ERR_NO_MEM possible). */
void smap_buffer_flush(struct MPI_ABI_Comm *c);
int smap_buffer_iflush(struct MPI_ABI_Comm *c, MPI_Request *req);
/* MPI_Comm_free: flushes and frees c's buffer pool, if any. */
void smap_comm_buffer_free(struct MPI_ABI_Comm *c);
/* The same for a session's buffer (MPI_Session_attach_buffer ...), used by
 * buffered sends on the communicators derived from the session that have
 * no buffer of their own; MPI_Session_finalize frees it. */
struct MPI_ABI_Session;
int smap_session_buffer_attach(struct MPI_ABI_Session *s, void *buf, MPI_Count size,
                               const char **why);
int smap_session_buffer_detach(struct MPI_ABI_Session *s, void **addr, MPI_Count *size,
                               const char **why);
void smap_session_buffer_flush(struct MPI_ABI_Session *s);
int smap_session_buffer_iflush(struct MPI_ABI_Session *s, MPI_Request *req);
void smap_session_buffer_free(struct MPI_ABI_Session *s);
/* The entry points' calls (bsend_api.c): the owner is c, s, or neither
 * (the process's buffer); the arguments as given (size, buffer, the
 * detach address), checked there; MPI_SUCCESS or a class, smap_why(). */
int smap_buffer_attach_to(struct MPI_ABI_Comm *c, struct MPI_ABI_Session *s, void *buffer,
                          MPI_Count size);
int smap_buffer_detach_from(struct MPI_ABI_Comm *c, struct MPI_ABI_Session *s,
                            void *buffer_addr, MPI_Count *size);
int smap_buffer_detach_int(struct MPI_ABI_Comm *c, struct MPI_ABI_Session *s,
                           void *buffer_addr, int *size);
int smap_buffer_iflush_of(struct MPI_ABI_Comm *c, struct MPI_ABI_Session *s, MPI_Request *req);

#endif
