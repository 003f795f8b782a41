/* Generalized requests: MPI_Grequest_start, MPI_Grequest_complete (the
 * request machinery is src/mpi/grequest.c; waits, tests, MPI_Cancel and
 * MPI_Request_free handle them in request.c). */
#include "binding/p2p_common.h"

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    static const char F[] = "MPI_Grequest_start";
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, request);
    int rc = smap_greq_start(query_fn, free_fn, cancel_fn, extra_state, request);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(MPI_COMM_NULL, rc, F, "%s", "out of memory");
    return MPI_SUCCESS;
}

int PMPI_Grequest_complete(MPI_Request request)
{
    static const char F[] = "MPI_Grequest_complete";
    SMAP_CHECK_RUNNING(F);
    struct MPI_ABI_Request *r = smap_req_get(request);
    if (!r || r->p.kind != SMAP_PREQ_GREQ)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_REQUEST, F, "%s",
                              "request is not a generalized request (MPI_Grequest_start)");
    if (smap_preq_done(&r->p))
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_REQUEST, F, "%s",
                              "the generalized request is already complete");
    int rc = smap_greq_complete(r);
    return rc == MPI_SUCCESS ? rc : p2p_request_error(F, MPI_COMM_NULL, rc);
}
