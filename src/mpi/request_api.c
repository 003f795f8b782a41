/* The request operations off the completion fast path, as the entry
 * points make them (MPI 5.0 §3.7.3-3.9, §12.4.2 of MPI 4.1's
 * MPI_Request_get_status_*): starting persistent requests, freeing,
 * cancelling, and the non-destructive status queries.  The handles are
 * checked here and errors raised on the request's communicator
 * (MPI_COMM_SELF's handler when there is none), as MPI_Wait/MPI_Test do
 * (binding/request.c, which shares smap_req_raise and the request-array
 * check). */
#include <stdint.h>

#include "mpi/errors.h"
#include "mpi/request.h"
#include "mpi/status.h"
#include "p2p/p2p.h"

/* The request behind h is ours, or NULL (MPI_REQUEST_NULL is fine). */
static inline int bad_request(MPI_Request h)
{
    return h != MPI_REQUEST_NULL && !smap_req_get(h);
}

static SMAP_COLD int request_error(const char *F)
{
    return smap_err_raise(MPI_COMM_NULL, MPI_ERR_REQUEST, F, "%s",
                          "request is not a valid request handle");
}

int smap_req_raise(const char *F, MPI_Comm comm, int err)
{
    if (err == MPI_ERR_TRUNCATE)
        return smap_err_raise(comm, err, F, "%s",
                              "the message is longer than the receive buffer (only the "
                              "buffer's size was received)");
    return smap_err_raise(comm, err, F, "%s", "the operation failed");
}

int smap_req_array_error(const char *F, int n, const MPI_Request reqs[])
{
    if (n < 0)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_COUNT, F, "count %d is negative", n);
    if (n > 0 && !reqs)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F, "%s is NULL", "array_of_requests");
    return request_error(F);
}

static inline __attribute__((always_inline)) int check_array(const char *F, int n,
                                                               const MPI_Request reqs[])
{
    return SMAP_LIKELY(smap_req_array_ok(n, reqs)) ? MPI_SUCCESS
                                                   : smap_req_array_error(F, n, reqs);
}

/* MPI_ERR_IN_STATUS on the first failing request's communicator. */
static int in_status(const char *F, MPI_Comm bad)
{
    return smap_err_raise(bad, MPI_ERR_IN_STATUS, F, "%s",
                          "a request failed: see the MPI_ERROR field of its status");
}

/* ---- starting persistent requests ---- */

static int start_one(const char *F, MPI_Request *request)
{
    struct MPI_ABI_Request *r = smap_req_get(*request);
    if (!r)
        return request_error(F);
    if (!r->persist)
        return smap_err_raise(r->comm, MPI_ERR_REQUEST, F, "%s",
                              "request is not persistent (MPI_Send_init, MPI_Recv_init, ...)");
    if (r->active)
        return smap_err_raise(r->comm, MPI_ERR_REQUEST, F, "%s",
                              "request is already active (started and not completed)");
    int rc = smap_req_start(r);
    return rc == MPI_SUCCESS ? rc : smap_err_raise(r->comm, rc, F, "%s", "cannot start");
}

int smap_req_start_handle(MPI_Request *request, const char *F)
{
    return start_one(F, request);
}

int smap_req_startall(int count, MPI_Request reqs[], const char *F)
{
    int rc = check_array(F, count, reqs);
    for (int i = 0; rc == MPI_SUCCESS && i < count; i++)
        rc = start_one(F, &reqs[i]);
    return rc;
}

/* ---- freeing and cancelling ---- */

int smap_req_free_handle(MPI_Request *request, const char *F)
{
    struct MPI_ABI_Request *r = smap_req_get(*request);
    if (!r)
        return request_error(F);
    if (r->p.kind == SMAP_PREQ_GREQ) {
        *request = MPI_REQUEST_NULL;
        int err = smap_greq_free(r);   /* free_fn now, or at MPI_Grequest_complete */
        return err == MPI_SUCCESS ? err : smap_req_raise(F, MPI_COMM_NULL, err);
    }
    if (r->persist && !r->active) {
        /* inactive: nothing completes (a hook's finish must not run again) */
        smap_req_free(r);
    } else if (smap_req_ready(*request)) {
        r->persist = SMAP_REQ_ONCE;   /* finish frees it whatever it was */
        r->active = 1;
        (void)smap_req_finish(request, MPI_STATUS_IGNORE);
    } else {
        smap_req_orphan(r);
    }
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* Receives that have not matched are cancelled.  A send to a peer on
 * another node that its receiver has not matched is too (even an eager
 * one that is complete already: the receiver drops it, src/p2p/remote.c);
 * one to a node peer cannot be recalled (MPI allows a cancel to fail:
 * the status then says not cancelled). */
int smap_req_cancel_handle(MPI_Request *request, const char *F)
{
    if (!request)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F, "%s is NULL", "request");
    struct MPI_ABI_Request *r = smap_req_get(*request);
    if (!r)
        return request_error(F);
    if (r->p.kind == SMAP_PREQ_COLL)   /* MPI 5.0 3.8.4: not for collectives */
        return smap_err_raise(r->comm, MPI_ERR_REQUEST, F, "%s",
                              "a collective operation cannot be cancelled");
    if (r->p.kind == SMAP_PREQ_GREQ) {   /* the application cancels it (or not) */
        int err = smap_greq_cancel(r);
        return err == MPI_SUCCESS ? err : smap_req_raise(F, MPI_COMM_NULL, err);
    }
    if (!smap_req_active(*request))
        return MPI_SUCCESS;
    if (r->p.kind == SMAP_PREQ_SEND)
        (void)smap_p2p_cancel_send(&r->p);
    else if (r->p.kind == SMAP_PREQ_RECV && !r->p.done)
        (void)smap_p2p_cancel_recv(&r->p);
    return MPI_SUCCESS;
}

/* ---- statuses without freeing (MPI 4.1) ---- */

/* Status of a request without freeing it: empty for a null or inactive
 * one.  Returns the request's error class. */
static int peek_status(MPI_Request h, MPI_Status *st)
{
    if (!smap_req_active(h)) {
        if (st != MPI_STATUS_IGNORE)
            smap_status_set_empty(st);
        return MPI_SUCCESS;
    }
    struct MPI_ABI_Request *r = (struct MPI_ABI_Request *)h;
    if (r->p.kind == SMAP_PREQ_GREQ)
        return smap_greq_query(r, st);
    smap_preq_status(&r->p, st);
    return r->p.err;
}

static MPI_Comm comm_of(MPI_Request h)
{
    return ((struct MPI_ABI_Request *)h)->comm;
}

int smap_req_get_status(MPI_Request request, int *flag, MPI_Status *status, const char *F)
{
    if (!flag)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F, "%s is NULL", "flag");
    if (bad_request(request))
        return request_error(F);
    if (!smap_req_ready(request))
        smap_p2p_progress();
    *flag = smap_req_ready(request);
    if (!*flag)
        return MPI_SUCCESS;
    if (!smap_req_active(request)) {
        if (status != MPI_STATUS_IGNORE)
            smap_status_set_empty(status);
        return MPI_SUCCESS;
    }
    /* the request's own error shows in the status only (MPI_Wait raises it) */
    struct MPI_ABI_Request *r = (struct MPI_ABI_Request *)request;
    if (r->p.kind == SMAP_PREQ_GREQ) {
        int err = smap_greq_query(r, status);
        return err == MPI_SUCCESS ? err : smap_req_raise(F, r->comm, err);
    }
    smap_preq_status(&r->p, status);
    return MPI_SUCCESS;
}

int smap_req_get_status_all(int count, const MPI_Request reqs_in[], int *flag,
                            MPI_Status sts[], const char *F)
{
    int rc = check_array(F, count, reqs_in);
    if (rc)
        return rc;
    if (!flag)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F, "%s is NULL", "flag");
    MPI_Request *reqs = (MPI_Request *)(uintptr_t)reqs_in;
    if (smap_req_first_pending(0, count, reqs) != count) {
        smap_p2p_progress();
        if (smap_req_first_pending(0, count, reqs) != count) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    MPI_Comm bad = MPI_COMM_NULL;
    int failed = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i];
        int err = peek_status(reqs[i], st);
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err;
        if (err != MPI_SUCCESS && !failed) {
            failed = 1;
            bad = comm_of(reqs[i]);
        }
    }
    return failed ? in_status(F, bad) : MPI_SUCCESS;
}

int smap_req_get_status_any(int count, const MPI_Request reqs_in[], int *index, int *flag,
                            MPI_Status *status, const char *F)
{
    int rc = check_array(F, count, reqs_in);
    if (rc)
        return rc;
    if (!index || !flag)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F, "%s is NULL",
                              index ? "flag" : "index");
    MPI_Request *reqs = (MPI_Request *)(uintptr_t)reqs_in;
    int i = smap_req_wait_any(count, reqs, 0);
    *flag = i != -1;
    *index = i >= 0 ? i : MPI_UNDEFINED;
    if (i == -2 && status != MPI_STATUS_IGNORE)
        smap_status_set_empty(status);
    if (i < 0)
        return MPI_SUCCESS;
    int err = peek_status(reqs[i], status);
    return err == MPI_SUCCESS ? err : smap_req_raise(F, comm_of(reqs[i]), err);
}

int smap_req_get_status_some(int incount, const MPI_Request reqs_in[], int *outcount,
                             int indices[], MPI_Status sts[], const char *F)
{
    int rc = check_array(F, incount, reqs_in);
    if (rc)
        return rc;
    if (!outcount || (incount > 0 && !indices))
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F, "%s is NULL",
                              outcount ? "array_of_indices" : "outcount");
    MPI_Request *reqs = (MPI_Request *)(uintptr_t)reqs_in;
    smap_p2p_progress();
    int n = 0, active = 0, failed = 0;
    MPI_Comm bad = MPI_COMM_NULL;
    for (int i = 0; i < incount; i++) {
        if (!smap_req_active(reqs[i]))
            continue;
        active = 1;
        if (!smap_req_ready(reqs[i]))
            continue;
        MPI_Status *st = sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[n];
        int err = peek_status(reqs[i], st);
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err;
        if (err != MPI_SUCCESS && !failed) {
            failed = 1;
            bad = comm_of(reqs[i]);
        }
        indices[n++] = i;
    }
    *outcount = active ? n : MPI_UNDEFINED;
    return failed ? in_status(F, bad) : MPI_SUCCESS;
}
