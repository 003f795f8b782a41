/* The schedule engine: building, starting, progressing and freeing
 * schedules (sched.h).  Active schedules sit in one list, advanced from the
 * point-to-point progress hook and from blocking waits; a mutex taken with
 * trylock there keeps progress from re-entering itself (posting a send may
 * run progress) and serialises threads. */
#include "coll/sched/sched.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/wait.h"
#include "coll/sched/internal.h"
#include "dtype/engine.h"
#include "mpi/group.h"
#include "mpi/op.h"
#include "mpi/request.h"
#include "p2p/p2p.h"
#include "smap/smap.h"

static pthread_mutex_t active_lock = PTHREAD_MUTEX_INITIALIZER;
static struct smap_sched *active;   /* started, not complete */

/* ---- building ---------------------------------------------------------- */

struct smap_sched *smap_sched_new(struct MPI_ABI_Comm *c)
{
    struct smap_sched *s = sched_pool_get();
    if (!s)
        return NULL;
    s->c = c;
    return s;
}

struct MPI_ABI_Comm *smap_sched_comm(const struct smap_sched *s)
{
    return s->c;
}

int smap_sched_failed(const struct smap_sched *s)
{
    return s->err != MPI_SUCCESS;
}

/* A new operation at the end of the current round, or NULL (the schedule
 * is marked failed). */
static struct sched_op *add_op(struct smap_sched *s, int kind)
{
    if (s->err)
        return NULL;
    struct sched_op *op = sched_op_alloc(s);
    if (!op) {
        s->err = MPI_ERR_NO_MEM;
        return NULL;
    }
    op->kind = kind;
    return op;
}

static void hold_type(smap_dtype_t *t)
{
    if (t && !(t->flags & SMAP_DT_PREDEF))
        smap_dtype_retain(t);
}

static int add_msg(struct smap_sched *s, int kind, const void *buf, MPI_Count count,
                   smap_dtype_t *dt, int peer, int remote)
{
    if (peer == MPI_PROC_NULL)
        return MPI_SUCCESS;
    struct sched_op *op = add_op(s, kind);
    if (!op)
        return MPI_ERR_NO_MEM;
    op->in = buf;
    op->n1 = count;
    op->t1 = dt;
    op->peer = peer;
    op->remote = remote;
    hold_type(dt);
    return MPI_SUCCESS;
}

int smap_sched_send(struct smap_sched *s, const void *buf, MPI_Count count, smap_dtype_t *dt,
                    int dest)
{
    return add_msg(s, OP_SEND, buf, count, dt, dest, 0);
}

int smap_sched_send_mode(struct smap_sched *s, const void *buf, MPI_Count count, smap_dtype_t *dt,
                         int dest, int mode)
{
    int rc = add_msg(s, OP_SEND, buf, count, dt, dest, 0);
    if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL)
        s->ops[s->nops - 1]->mode = mode;
    return rc;
}

int smap_sched_recv(struct smap_sched *s, void *buf, MPI_Count count, smap_dtype_t *dt, int src)
{
    return add_msg(s, OP_RECV, buf, count, dt, src, 0);
}

static int add_late(struct smap_sched *s, int kind, char *const *buf, const MPI_Count *off,
                    const MPI_Count *count, smap_dtype_t *dt, int peer)
{
    int rc = add_msg(s, kind, NULL, 0, dt, peer, 0);
    if (rc != MPI_SUCCESS || peer == MPI_PROC_NULL)
        return rc;
    struct sched_op *op = s->ops[s->nops - 1];
    op->late_buf = buf;
    op->late_off = off;
    op->late_n = count;
    return MPI_SUCCESS;
}

int smap_sched_send_late(struct smap_sched *s, char *const *buf, const MPI_Count *off,
                         const MPI_Count *count, smap_dtype_t *dt, int dest)
{
    return add_late(s, OP_SEND, buf, off, count, dt, dest);
}

int smap_sched_recv_late(struct smap_sched *s, char *const *buf, const MPI_Count *off,
                         const MPI_Count *count, smap_dtype_t *dt, int src)
{
    return add_late(s, OP_RECV, buf, off, count, dt, src);
}

int smap_sched_send_remote(struct smap_sched *s, const void *buf, MPI_Count count,
                           smap_dtype_t *dt, int dest)
{
    return add_msg(s, OP_SEND, buf, count, dt, dest, 1);
}

int smap_sched_recv_remote(struct smap_sched *s, void *buf, MPI_Count count, smap_dtype_t *dt,
                           int src)
{
    return add_msg(s, OP_RECV, buf, count, dt, src, 1);
}

int smap_sched_copy(struct smap_sched *s, const void *sbuf, MPI_Count scount, smap_dtype_t *st,
                    void *rbuf, MPI_Count rcount, smap_dtype_t *rt)
{
    if (sbuf == rbuf && scount == rcount && st == rt)
        return MPI_SUCCESS;   /* in place */
    struct sched_op *op = add_op(s, OP_COPY);
    if (!op)
        return MPI_ERR_NO_MEM;
    op->in = sbuf;
    op->n1 = scount;
    op->t1 = st;
    op->out = rbuf;
    op->n2 = rcount;
    op->t2 = rt;
    hold_type(st);
    hold_type(rt);
    return MPI_SUCCESS;
}

int smap_sched_reduce(struct smap_sched *s, const void *in, void *inout, MPI_Count count,
                      smap_dtype_t *t, MPI_Datatype type, MPI_Op op)
{
    struct sched_op *o = add_op(s, OP_REDUCE);
    if (!o)
        return MPI_ERR_NO_MEM;
    o->in = in;
    o->out = inout;
    o->n1 = count;
    o->t1 = t;
    o->type = type;
    o->op = op;
    o->opobj = smap_op_get(op);
    hold_type(t);
    smap_op_retain(o->opobj);   /* MPI_Op_free may come before the round runs */
    return MPI_SUCCESS;
}

int smap_sched_callback(struct smap_sched *s, smap_sched_fn *fn, void *arg)
{
    struct sched_op *op = add_op(s, OP_CB);
    if (!op)
        return MPI_ERR_NO_MEM;
    op->fn = fn;
    op->arg = arg;
    return MPI_SUCCESS;
}

int smap_sched_barrier(struct smap_sched *s)
{
    if (s->err)
        return s->err;
    if (s->nops == s->round_start[s->nrounds])
        return MPI_SUCCESS;   /* empty round: nothing to close */
    if (sched_add_round(s)) {
        s->err = MPI_ERR_NO_MEM;
        return s->err;
    }
    return MPI_SUCCESS;
}

int smap_sched_lanes(struct smap_sched *s, struct smap_sched **lanes, int n)
{
    s->lanes = lanes;
    s->nlanes = n;
    for (int k = 0; k < n; k++) {
        if (!lanes[k] || smap_sched_barrier(lanes[k]) != MPI_SUCCESS) {
            s->err = MPI_ERR_NO_MEM;
            continue;
        }
        lanes[k]->gate = k ? lanes[k - 1] : NULL;
    }
    return s->err;
}

void *smap_sched_tmp(struct smap_sched *s, size_t bytes)
{
    if (s->err)
        return NULL;
    void *p = sched_tmp_alloc(s, bytes);
    if (!p)
        s->err = MPI_ERR_NO_MEM;
    return p;
}

void *smap_sched_tmp_typed(struct smap_sched *s, MPI_Count count, smap_dtype_t *t)
{
    if (count <= 0)
        return smap_sched_tmp(s, 1);
    MPI_Count span = (count - 1) * t->extent;
    MPI_Count lo = t->true_lb + (span < 0 ? span : 0);
    MPI_Count hi = t->true_lb + t->true_extent + (span > 0 ? span : 0);
    char *p = smap_sched_tmp(s, (size_t)(hi - lo));
    return p ? p - lo : NULL;
}

/* ---- running ----------------------------------------------------------- */

/* Whether an error ends a schedule.  Truncation does not: a member whose
 * buffer was too small keeps taking part (its sends and receives go on,
 * the error is reported at the end), as the others' messages still need
 * it; giving up left them waiting for a message never sent (issue 36). */
static int ends_schedule(int err)
{
    return err != MPI_SUCCESS && err != MPI_ERR_TRUNCATE;
}

/* Runs the local steps of the current round from s->pos on, then posts its
 * messages.  SMAP_SCHED_AGAIN: a callback asked to be called again later
 * (nothing of the round is posted yet). */
static int start_round(struct smap_sched *s)
{
    int b = s->round_start[s->round + 1];
    for (; s->pos < b; s->pos++) {
        struct sched_op *op = s->ops[s->pos];
        int rc = MPI_SUCCESS;
        if (op->kind == OP_COPY) {
            if (smap_dtype_copy(op->out, op->n2, op->t2, op->in, op->n1, op->t1) <
                    op->n1 * op->t1->size &&
                s->err == MPI_SUCCESS)
                s->err = MPI_ERR_TRUNCATE;
        } else if (op->kind == OP_REDUCE) {
            rc = smap_op_apply(op->op, op->in, op->out, op->n1, op->type);
        } else if (op->kind == OP_CB) {
            rc = op->fn(s, op->arg);
        }
        if (rc != MPI_SUCCESS)
            return rc;
    }
    for (int i = s->round_start[s->round]; i < b; i++) {
        struct sched_op *op = s->ops[i];
        int rc = MPI_SUCCESS;
        int tag = op->remote ? s->rtag : s->tag;
        if (op->late_buf && (op->kind == OP_SEND || op->kind == OP_RECV)) {
            op->in = *op->late_buf + (op->late_off ? *op->late_off : 0);
            op->n1 = *op->late_n;
        }
        if (op->kind == OP_SEND) {
            const struct MPI_ABI_Group *g = op->remote ? s->c->remote_group : s->c->group;
            int lr = smap_p2p_local_rank(smap_group_world_rank(g, op->peer));
            rc = smap_p2p_isend(&op->preq, op->in, op->n1, op->t1, op->peer, lr, s->c->rank,
                                tag, s->ctx, op->mode);
        } else if (op->kind == OP_RECV) {
            rc = smap_p2p_irecv(&op->preq, (void *)(uintptr_t)op->in, op->n1, op->t1, op->peer,
                                tag, s->ctx);
        } else {
            continue;
        }
        op->posted = 1;
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Whether every message of the current round is complete (errors noted). */
static int round_done(struct smap_sched *s)
{
    for (int i = s->round_start[s->round]; i < s->round_start[s->round + 1]; i++) {
        struct sched_op *op = s->ops[i];
        if (!op->posted)
            continue;
        if (!op->preq.done)
            return 0;
        if (op->preq.err != MPI_SUCCESS && s->err == MPI_SUCCESS)
            s->err = op->preq.err;
    }
    return 1;
}

static void advance(struct smap_sched *s);

/* A schedule with lanes: each lane in order (a lane's gate moves first),
 * done when all are, or at the first lane that failed (the rest is given
 * up, as a failed schedule's rounds are). */
static void advance_lanes(struct smap_sched *s)
{
    int done = 1;
    for (int k = 0; k < s->nlanes; k++) {
        struct smap_sched *l = s->lanes[k];
        advance(l);
        done &= l->done;
        if (l->done && ends_schedule(l->err)) {
            s->err = l->err;
            done = 1;
            break;
        }
        if (l->err && s->err == MPI_SUCCESS)
            s->err = l->err;
    }
    s->done = done;
}

/* Moves s on as far as it goes without waiting. */
static void advance(struct smap_sched *s)
{
    if (s->nlanes) {
        advance_lanes(s);
        return;
    }
    while (!s->done) {
        if (!s->round_started) {
            if (s->round == s->nrounds || ends_schedule(s->err)) {
                s->done = 1;
                break;
            }
            /* a lane follows the lane before it round by round */
            if (s->gate && !s->gate->done && s->gate->round <= s->round)
                return;
            s->round_started = 1;
            s->pos = s->round_start[s->round];
            s->posted_round = 0;
        }
        if (!s->posted_round) {
            int rc = start_round(s);
            if (rc == SMAP_SCHED_AGAIN)
                return;
            s->posted_round = 1;
            if (rc != MPI_SUCCESS) {
                /* messages already posted may never complete: give up on
                 * the rest (smap_sched_free leaves what is still in flight) */
                s->err = rc;
                s->done = 1;
                break;
            }
        }
        if (!round_done(s))
            return;
        s->round++;
        s->round_started = 0;
    }
}

/* Completion: the request (if any) becomes ready with the schedule's error. */
static void complete(struct smap_sched *s)
{
    if (s->req) {
        s->req->p.err = s->err;
        s->req->p.done = 1;
    }
}

/* Advances every active schedule; unlinks and completes the finished ones. */
static void progress_all(void)
{
    if (pthread_mutex_trylock(&active_lock) != 0)
        return;   /* re-entered from a send we post, or another thread is at it */
    for (struct smap_sched **pp = &active; *pp;) {
        struct smap_sched *s = *pp;
        advance(s);
        if (s->done) {
            *pp = s->next;
            complete(s);
        } else {
            pp = &s->next;
        }
    }
    if (!active)
        smap_p2p_progress_hook = NULL;
    pthread_mutex_unlock(&active_lock);
}

/* The tags of a schedule from its sequence number: all of it on an
 * intracommunicator; on an intercommunicator 2 seq within the local group
 * and 2 seq + 1 across (both groups share the context, so a member's
 * local and remote messages must not match each other).  Never negative:
 * the blocking intercommunicator collectives and other internal protocols
 * use negative tags, and user tags never reach this context. */
static void take_tags(struct smap_sched *s)
{
    if (s->nlanes) {   /* one per lane, in lane order */
        for (int k = 0; k < s->nlanes; k++) {
            take_tags(s->lanes[k]);
            s->lanes[k]->ctx = s->lanes[k]->c->ctx + SMAP_SCHED_CTX_OFFSET;
        }
        return;
    }
    uint32_t seq = s->c->nbc_seq++;
    if (!s->c->remote_group) {
        s->tag = (int)(seq & 0x7fffffffu);
        return;
    }
    s->tag = (int)((seq & 0x3fffffffu) << 1);
    s->rtag = s->tag | 1;
}

/* Closes the last round, takes the sequence number (unless the schedule
 * is persistent: its tags are its own from init) and runs what can run. */
static void activate(struct smap_sched *s, int take)
{
    (void)smap_sched_barrier(s);
    if (take)
        take_tags(s);
    s->ctx = s->c->ctx + SMAP_SCHED_CTX_OFFSET;
    pthread_mutex_lock(&active_lock);
    advance(s);
    if (s->done) {
        complete(s);
    } else {
        s->next = active;
        active = s;
        smap_p2p_progress_hook = progress_all;
    }
    pthread_mutex_unlock(&active_lock);
}

/* Set by smap_sched_persistent(req) around a persistent collective's
 * initialisation: smap_sched_start(s, req) with that very request pointer
 * then hands back an inactive persistent request instead of starting the
 * schedule (any other start meanwhile, e.g. from an error handler, is an
 * ordinary one). */
static _Thread_local MPI_Request *persist_req;

void smap_sched_persistent(MPI_Request *req)
{
    persist_req = req;
}

/* What a request does with the schedule it holds (mpi/request.h). */
static const struct smap_sched_ops req_ops = { smap_sched_restart, smap_sched_release };

int smap_sched_start(struct smap_sched *s, MPI_Request *req)
{
    if (s->err) {
        int err = s->err;
        smap_sched_free(s);
        return err;
    }
    struct MPI_ABI_Request *r = smap_req_new(s->c->handle);
    if (!r) {
        smap_sched_free(s);
        return MPI_ERR_NO_MEM;
    }
    r->p.kind = SMAP_PREQ_COLL;
    r->sched = s;
    r->sched_ops = &req_ops;
    s->req = r;
    if (persist_req && persist_req == req) {
        /* Built once, run at every MPI_Start (smap_sched_restart).  Its
         * sequence numbers are taken here, at init, which is ordered like
         * every collective call: MPI 4.1 lets members start persistent
         * collectives in different orders, so a number taken at start
         * would pair one request's messages with another's. */
        (void)smap_sched_barrier(s);
        take_tags(s);
        r->persist = SMAP_REQ_PCOLL;
        smap_req_set_active(r, 0);
        smap_preq_complete(&r->p);
    } else {
        activate(s, 1);
    }
    *req = (MPI_Request)r;
    return MPI_SUCCESS;
}

/* A persistent schedule runs again from its first round: its operations
 * keep their buffers, counts and types (and its scratch), only the state
 * of the run is reset.  The tags stay those taken at init: a start needs
 * no order with other starts, and the runs of one request cannot cross
 * (a member starts run k+1 only once its run k completed, and messages
 * between two members never overtake each other). */
/* Resets the state of a run (the lanes' too); MPI_ERR_REQUEST when a
 * failed run left messages in flight. */
static int reset_run(struct smap_sched *s)
{
    for (int k = 0; k < s->nlanes; k++) {
        int rc = reset_run(s->lanes[k]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (s->err) {
        /* a failed run may have left messages in flight that still point
         * into the operations: they cannot be posted again */
        for (int i = 0; i < s->nops; i++)
            if (s->ops[i]->posted && !smap_preq_done(&s->ops[i]->preq))
                return MPI_ERR_REQUEST;
    }
    for (int i = 0; i < s->nops; i++)
        s->ops[i]->posted = 0;
    s->round = 0;
    s->round_started = 0;
    s->done = 0;
    s->err = MPI_SUCCESS;
    s->pos = 0;
    s->posted_round = 0;
    s->next = NULL;
    return MPI_SUCCESS;
}

int smap_sched_restart(struct smap_sched *s)
{
    int rc = reset_run(s);
    if (rc != MPI_SUCCESS)
        return rc;
    s->req->p.err = MPI_SUCCESS;
    smap_preq_reset(&s->req->p);
    activate(s, 0);
    return MPI_SUCCESS;
}

int smap_sched_run(struct smap_sched *s)
{
    if (s->err) {
        int err = s->err;
        smap_sched_free(s);
        return err;
    }
    activate(s, 1);
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    while (!s->done) {
        smap_p2p_progress();   /* runs progress_all through the hook */
        if (s->done)
            break;
        smap_wait_step(&w);
    }
    int err = s->err;
    smap_sched_free(s);
    return err;
}

void smap_sched_release(struct smap_sched *s)
{
    smap_sched_free(s);
}

/* Drops what the operations hold.  Returns 1 when some message is still in
 * flight (a failed schedule): the operations must then stay allocated. */
static int drop_ops(struct smap_sched *s)
{
    int busy = 0;
    for (int i = 0; i < s->nops; i++) {
        struct sched_op *op = s->ops[i];
        if (op->posted && !op->preq.done &&
            !(op->kind == OP_RECV && smap_p2p_cancel_recv(&op->preq)))
            busy = 1;
        if (op->t1 && !(op->t1->flags & SMAP_DT_PREDEF))
            smap_dtype_release(op->t1);
        if (op->t2 && !(op->t2->flags & SMAP_DT_PREDEF))
            smap_dtype_release(op->t2);
        if (op->kind == OP_REDUCE)
            smap_op_release(op->opobj);
    }
    return busy;
}

void smap_sched_free(struct smap_sched *s)
{
    if (!s)
        return;
    for (int k = 0; k < s->nlanes; k++)
        smap_sched_free(s->lanes[k]);
    if (drop_ops(s))
        return;   /* leaked on purpose: p2p still points into it */
    sched_pool_put(s);
}
