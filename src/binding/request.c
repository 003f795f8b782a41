/* Completion of requests: MPI_Wait/Test on one, any, some or all, request
 * status, free, cancel, and starting persistent requests: the checks,
 * and finishing what is ready.  The waits themselves (progress loops)
 * are src/mpi/request.c's (smap_req_wait*). */
#include <stdlib.h>

#include "binding/p2p_common.h"
#include "io/io.h"

/* The request behind *h is ours, or NULL (MPI_REQUEST_NULL is fine). */
static inline int bad_request(MPI_Request h)
{
    return h != MPI_REQUEST_NULL && !smap_req_get(h);
}

static SMAP_COLD int request_error(const char *func)
{
    return smap_err_raise(MPI_COMM_NULL, MPI_ERR_REQUEST, func, "%s",
                          "request is not a valid request handle");
}

#define CHECK_ARRAY(func, n, reqs)                                                       \
    do {                                                                                 \
        if ((n) < 0)                                                                     \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_COUNT, func, "count %d is negative", n); \
        if ((n) > 0)                                                                     \
            SMAP_CHECK_PTR(func, MPI_COMM_NULL, reqs);                                   \
        for (int i_ = 0; i_ < (n); i_++)                                                 \
            if (bad_request((reqs)[i_]))                                                 \
                return request_error(func);                                              \
    } while (0)

static inline int is_active(MPI_Request h)
{
    return smap_req_active(h);
}

/* Finishes *h and raises its error on its communicator (a file's access:
 * on the file). */
static int finish_one(const char *func, MPI_Request *h, MPI_Status *st)
{
    MPI_Comm comm = *h == MPI_REQUEST_NULL ? MPI_COMM_NULL : ((struct MPI_ABI_Request *)*h)->comm;
    MPI_File file = *h == MPI_REQUEST_NULL ? NULL : ((struct MPI_ABI_Request *)*h)->file;
    int err = smap_req_finish(h, st);
    if (SMAP_UNLIKELY(err != MPI_SUCCESS && file))
        return smap_file_raise(file, err, func, "%s", smap_why());
    return SMAP_LIKELY(err == MPI_SUCCESS) ? MPI_SUCCESS : p2p_request_error(func, comm, err);
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    SMAP_CHECK_RUNNING("MPI_Wait");
    SMAP_CHECK_PTR("MPI_Wait", MPI_COMM_NULL, request);
    if (SMAP_UNLIKELY(bad_request(*request)))
        return request_error("MPI_Wait");
    if (!smap_req_ready(*request))
        smap_req_wait(*request);
    return finish_one("MPI_Wait", request, status);
}

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    SMAP_CHECK_RUNNING("MPI_Test");
    SMAP_CHECK_PTR("MPI_Test", MPI_COMM_NULL, request);
    SMAP_CHECK_PTR("MPI_Test", MPI_COMM_NULL, flag);
    if (SMAP_UNLIKELY(bad_request(*request)))
        return request_error("MPI_Test");
    if (!smap_req_ready(*request)) {
        smap_p2p_progress();
        if (!smap_req_ready(*request)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return finish_one("MPI_Test", request, status);
}

/* Completes every ready request of the array that is in `which` (all when
 * NULL); errors go into the statuses; returns the first failing
 * communicator's MPI_ERR_IN_STATUS, or MPI_SUCCESS. */
static int finish_set(const char *func, int n, MPI_Request reqs[], MPI_Status sts[],
                      const int *which, int nwhich)
{
    MPI_Comm bad = MPI_COMM_NULL;
    int failed = 0, m = which ? nwhich : n;
    for (int k = 0; k < m; k++) {
        int i = which ? which[k] : k;
        MPI_Status *st = sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[which ? k : i];
        MPI_Comm comm = reqs[i] == MPI_REQUEST_NULL ? MPI_COMM_NULL
                                                    : ((struct MPI_ABI_Request *)reqs[i])->comm;
        int err = smap_req_finish(&reqs[i], st);
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err;
        if (err != MPI_SUCCESS && !failed) {
            failed = 1;
            bad = comm;
        }
    }
    if (!failed)
        return MPI_SUCCESS;
    return smap_err_raise(bad, MPI_ERR_IN_STATUS, func, "%s",
                          "a request failed: see the MPI_ERROR field of its status");
}

static int all_ready(int n, MPI_Request reqs[])
{
    return smap_req_first_pending(0, n, reqs) == n;
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    SMAP_CHECK_RUNNING("MPI_Waitall");
    CHECK_ARRAY("MPI_Waitall", count, array_of_requests);
    smap_req_wait_all(count, array_of_requests);
    return finish_set("MPI_Waitall", count, array_of_requests, array_of_statuses, NULL, 0);
}

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status array_of_statuses[])
{
    SMAP_CHECK_RUNNING("MPI_Testall");
    CHECK_ARRAY("MPI_Testall", count, array_of_requests);
    SMAP_CHECK_PTR("MPI_Testall", MPI_COMM_NULL, flag);
    smap_p2p_progress();
    *flag = all_ready(count, array_of_requests);
    if (!*flag)
        return MPI_SUCCESS;
    return finish_set("MPI_Testall", count, array_of_requests, array_of_statuses, NULL, 0);
}

static int any_common(const char *func, int count, MPI_Request reqs[], int *index, int *flag,
                      MPI_Status *status, int blocking)
{
    SMAP_CHECK_RUNNING(func);
    CHECK_ARRAY(func, count, reqs);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, index);
    int i = smap_req_wait_any(count, reqs, blocking);
    if (i == -2) {
        *index = MPI_UNDEFINED;
        if (flag)
            *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            smap_status_set_empty(status);
        return MPI_SUCCESS;
    }
    if (flag)
        *flag = i >= 0;
    if (i < 0) {
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *index = i;
    return finish_one(func, &reqs[i], status);
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    return any_common("MPI_Waitany", count, array_of_requests, index, NULL, status, 1);
}

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                 MPI_Status *status)
{
    SMAP_CHECK_PTR("MPI_Testany", MPI_COMM_NULL, flag);
    return any_common("MPI_Testany", count, array_of_requests, index, flag, status, 0);
}

static int some_common(const char *func, int incount, MPI_Request reqs[], int *outcount,
                       int indices[], MPI_Status sts[], int blocking)
{
    SMAP_CHECK_RUNNING(func);
    CHECK_ARRAY(func, incount, reqs);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, outcount);
    int n = smap_req_wait_some(incount, reqs, indices, blocking);
    if (n < 0) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *outcount = n;
    return finish_set(func, incount, reqs, sts, indices, n);
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    if (incount > 0)
        SMAP_CHECK_PTR("MPI_Waitsome", MPI_COMM_NULL, array_of_indices);
    return some_common("MPI_Waitsome", incount, array_of_requests, outcount, array_of_indices,
                       array_of_statuses, 1);
}

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    if (incount > 0)
        SMAP_CHECK_PTR("MPI_Testsome", MPI_COMM_NULL, array_of_indices);
    return some_common("MPI_Testsome", incount, array_of_requests, outcount, array_of_indices,
                       array_of_statuses, 0);
}

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    SMAP_CHECK_RUNNING("MPI_Request_get_status");
    SMAP_CHECK_PTR("MPI_Request_get_status", MPI_COMM_NULL, flag);
    if (bad_request(request))
        return request_error("MPI_Request_get_status");
    if (!smap_req_ready(request))
        smap_p2p_progress();
    *flag = smap_req_ready(request);
    if (!*flag)
        return MPI_SUCCESS;
    if (!is_active(request)) {
        if (status != MPI_STATUS_IGNORE)
            smap_status_set_empty(status);
        return MPI_SUCCESS;
    }
    struct MPI_ABI_Request *r = (struct MPI_ABI_Request *)request;
    if (r->p.kind == SMAP_PREQ_GREQ) {
        int err = smap_greq_query(r, status);
        return err == MPI_SUCCESS ? err
                                  : p2p_request_error("MPI_Request_get_status", r->comm, err);
    }
    smap_preq_status(&r->p, status);
    return MPI_SUCCESS;
}

/* Status of a request without freeing it: empty for a null or inactive
 * one.  Returns the request's error class. */
static int peek_status(MPI_Request h, MPI_Status *st)
{
    if (!is_active(h)) {
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

/* The non-destructive twins of Testall/any/some (MPI 4.1): requests stay
 * allocated and active; only the statuses are filled in. */
int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                MPI_Status array_of_statuses[])
{
    const char *func = "MPI_Request_get_status_all";
    SMAP_CHECK_RUNNING(func);
    CHECK_ARRAY(func, count, array_of_requests);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, flag);
    MPI_Request *reqs = (MPI_Request *)(uintptr_t)array_of_requests;
    if (!all_ready(count, reqs)) {
        smap_p2p_progress();
        if (!all_ready(count, reqs)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    MPI_Comm bad = MPI_COMM_NULL;
    int failed = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE
                                                                   : &array_of_statuses[i];
        int err = peek_status(reqs[i], st);
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err;
        if (err != MPI_SUCCESS && !failed) {
            failed = 1;
            bad = ((struct MPI_ABI_Request *)reqs[i])->comm;
        }
    }
    if (!failed)
        return MPI_SUCCESS;
    return smap_err_raise(bad, MPI_ERR_IN_STATUS, func, "%s",
                          "a request failed: see the MPI_ERROR field of its status");
}

int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index,
                                int *flag, MPI_Status *status)
{
    const char *func = "MPI_Request_get_status_any";
    SMAP_CHECK_RUNNING(func);
    CHECK_ARRAY(func, count, array_of_requests);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, index);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, flag);
    MPI_Request *reqs = (MPI_Request *)(uintptr_t)array_of_requests;
    int i = smap_req_wait_any(count, reqs, 0);
    *flag = i != -1;
    *index = i >= 0 ? i : MPI_UNDEFINED;
    if (i == -2 && status != MPI_STATUS_IGNORE)
        smap_status_set_empty(status);
    if (i < 0)
        return MPI_SUCCESS;
    int err = peek_status(reqs[i], status);
    return err == MPI_SUCCESS ? err
                              : p2p_request_error(func, ((struct MPI_ABI_Request *)reqs[i])->comm,
                                                  err);
}

int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[],
                                 int *outcount, int array_of_indices[],
                                 MPI_Status array_of_statuses[])
{
    const char *func = "MPI_Request_get_status_some";
    SMAP_CHECK_RUNNING(func);
    CHECK_ARRAY(func, incount, array_of_requests);
    SMAP_CHECK_PTR(func, MPI_COMM_NULL, outcount);
    if (incount > 0)
        SMAP_CHECK_PTR(func, MPI_COMM_NULL, array_of_indices);
    MPI_Request *reqs = (MPI_Request *)(uintptr_t)array_of_requests;
    smap_p2p_progress();
    int n = 0, active = 0, failed = 0;
    MPI_Comm bad = MPI_COMM_NULL;
    for (int i = 0; i < incount; i++) {
        if (!is_active(reqs[i]))
            continue;
        active = 1;
        if (!smap_req_ready(reqs[i]))
            continue;
        MPI_Status *st = array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE
                                                                   : &array_of_statuses[n];
        int err = peek_status(reqs[i], st);
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err;
        if (err != MPI_SUCCESS && !failed) {
            failed = 1;
            bad = ((struct MPI_ABI_Request *)reqs[i])->comm;
        }
        array_of_indices[n++] = i;
    }
    *outcount = active ? n : MPI_UNDEFINED;
    if (!failed)
        return MPI_SUCCESS;
    return smap_err_raise(bad, MPI_ERR_IN_STATUS, func, "%s",
                          "a request failed: see the MPI_ERROR field of its status");
}

int PMPI_Request_free(MPI_Request *request)
{
    SMAP_CHECK_RUNNING("MPI_Request_free");
    SMAP_CHECK_PTR("MPI_Request_free", MPI_COMM_NULL, request);
    struct MPI_ABI_Request *r = smap_req_get(*request);
    if (!r)
        return request_error("MPI_Request_free");
    if (r->p.kind == SMAP_PREQ_GREQ) {
        *request = MPI_REQUEST_NULL;
        int err = smap_greq_free(r);   /* free_fn now, or at MPI_Grequest_complete */
        return err == MPI_SUCCESS ? err : p2p_request_error("MPI_Request_free", MPI_COMM_NULL, err);
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
int PMPI_Cancel(MPI_Request *request)
{
    SMAP_CHECK_RUNNING("MPI_Cancel");
    SMAP_CHECK_PTR("MPI_Cancel", MPI_COMM_NULL, request);
    struct MPI_ABI_Request *r = smap_req_get(*request);
    if (!r)
        return request_error("MPI_Cancel");
    if (r->p.kind == SMAP_PREQ_COLL)   /* MPI 5.0 3.8.4: not for collectives */
        return smap_err_raise(r->comm, MPI_ERR_REQUEST, "MPI_Cancel", "%s",
                              "a collective operation cannot be cancelled");
    if (r->p.kind == SMAP_PREQ_GREQ) {   /* the application cancels it (or not) */
        int err = smap_greq_cancel(r);
        return err == MPI_SUCCESS ? err : p2p_request_error("MPI_Cancel", MPI_COMM_NULL, err);
    }
    if (!is_active(*request))
        return MPI_SUCCESS;
    if (r->p.kind == SMAP_PREQ_SEND)
        (void)smap_p2p_cancel_send(&r->p);
    else if (r->p.kind == SMAP_PREQ_RECV && !r->p.done)
        (void)smap_p2p_cancel_recv(&r->p);
    return MPI_SUCCESS;
}

static int start_one(const char *func, MPI_Request *request)
{
    struct MPI_ABI_Request *r = smap_req_get(*request);
    if (!r)
        return request_error(func);
    if (!r->persist)
        return smap_err_raise(r->comm, MPI_ERR_REQUEST, func, "%s",
                              "request is not persistent (MPI_Send_init, MPI_Recv_init, ...)");
    if (r->active)
        return smap_err_raise(r->comm, MPI_ERR_REQUEST, func, "%s",
                              "request is already active (started and not completed)");
    int rc = smap_req_start(r);
    return rc == MPI_SUCCESS ? rc : smap_err_raise(r->comm, rc, func, "%s", "cannot start");
}

int PMPI_Start(MPI_Request *request)
{
    SMAP_CHECK_RUNNING("MPI_Start");
    SMAP_CHECK_PTR("MPI_Start", MPI_COMM_NULL, request);
    return start_one("MPI_Start", request);
}

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    SMAP_CHECK_RUNNING("MPI_Startall");
    CHECK_ARRAY("MPI_Startall", count, array_of_requests);
    for (int i = 0; i < count; i++) {
        int rc = start_one("MPI_Startall", &array_of_requests[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}
