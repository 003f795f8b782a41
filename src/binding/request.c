/* Completion of requests, the measured path of every non-blocking
 * operation: MPI_Wait/Test on one, any, some or all: the checks, and
 * finishing what is ready.  The waits themselves (progress loops) are
 * src/mpi/request.c's (smap_req_wait*); starting, freeing, cancelling and
 * the status queries are generated (gen/request.c, src/mpi/request_api.c). */
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
        if (SMAP_UNLIKELY(!smap_req_array_ok(n, reqs)))                                  \
            return smap_req_array_error(func, n, reqs);                                  \
    } while (0)

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

SMAP_HOT int PMPI_Wait(MPI_Request *request, MPI_Status *status)
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
