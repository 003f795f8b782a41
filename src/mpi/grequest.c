/* Generalized requests (MPI 5.0 §13.2): an operation the application runs
 * itself, completed with MPI_Grequest_complete, and whose status, release
 * and cancellation are the application's callbacks.  The request is an
 * ordinary MPI_Request (kind SMAP_PREQ_GREQ) so that every wait and test
 * form handles it: p.done is set by MPI_Grequest_complete; the callbacks
 * run in the thread that completes, frees or cancels it, never under a
 * library lock (they may call MPI). */
#include <stdlib.h>

#include "base/why.h"
#include "mpi/request.h"
#include "mpi/status.h"

struct smap_greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
    int freed;   /* MPI_Request_free came before MPI_Grequest_complete */
    int (*poll)(void *);   /* internal ones (smap_greq_start_polled): completes them */
};

int smap_greq_start(MPI_Grequest_query_function *query, MPI_Grequest_free_function *free_fn,
                    MPI_Grequest_cancel_function *cancel, void *extra, MPI_Request *req)
{
    struct smap_greq *g = malloc(sizeof *g);
    if (!g)
        return MPI_ERR_NO_MEM;
    struct MPI_ABI_Request *r = smap_req_new(MPI_COMM_NULL);
    if (!r) {
        free(g);
        return MPI_ERR_NO_MEM;
    }
    *g = (struct smap_greq){query, free_fn, cancel, extra, 0, NULL};
    r->p.kind = SMAP_PREQ_GREQ;
    r->greq = g;
    *req = (MPI_Request)r;
    return MPI_SUCCESS;
}

static int call_free(struct smap_greq *g)
{
    return g->free_fn ? g->free_fn(g->extra) : MPI_SUCCESS;
}

int smap_greq_complete(struct MPI_ABI_Request *r)
{
    if (r->p.kind != SMAP_PREQ_GREQ || smap_preq_done(&r->p))
        return MPI_ERR_REQUEST;
    if (r->greq->freed) {
        int err = call_free(r->greq);
        smap_req_free(r);
        return err;
    }
    smap_preq_complete(&r->p);
    return MPI_SUCCESS;
}

int smap_greq_query(struct MPI_ABI_Request *r, MPI_Status *st)
{
    MPI_Status tmp;
    if (st == MPI_STATUS_IGNORE) {
        st = &tmp;   /* query_fn gets a real status to fill, as MPI says */
        tmp.MPI_ERROR = MPI_SUCCESS;
    }
    smap_status_fill(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);   /* MPI_ERROR left alone */
    struct smap_greq *g = r->greq;
    return g->query ? g->query(g->extra, st) : MPI_SUCCESS;
}

int smap_greq_finish(struct MPI_ABI_Request *r, MPI_Status *st)
{
    int err = smap_greq_query(r, st);
    int ferr = call_free(r->greq);
    return err != MPI_SUCCESS ? err : ferr;
}

int smap_greq_cancel(struct MPI_ABI_Request *r)
{
    struct smap_greq *g = r->greq;
    return g->cancel ? g->cancel(g->extra, smap_preq_done(&r->p)) : MPI_SUCCESS;
}

int smap_greq_free(struct MPI_ABI_Request *r)
{
    if (r->greq->poll) {   /* internal, still running: reaped when its poll says done */
        smap_req_orphan(r);
        return MPI_SUCCESS;
    }
    if (!smap_preq_done(&r->p)) {
        r->greq->freed = 1;   /* released by MPI_Grequest_complete */
        return MPI_SUCCESS;
    }
    int err = call_free(r->greq);
    smap_req_free(r);
    return err;
}

int smap_greq_start_polled(int (*poll)(void *), MPI_Grequest_free_function *free_fn, void *arg,
                           MPI_Request *req)
{
    int rc = smap_greq_start(NULL, free_fn, NULL, arg, req);
    if (rc != MPI_SUCCESS)
        return rc;
    struct MPI_ABI_Request *r = (struct MPI_ABI_Request *)*req;
    r->greq->poll = poll;
    if (!poll)
        smap_preq_complete(&r->p);   /* nothing to wait for */
    return MPI_SUCCESS;
}

int smap_greq_start_polled_query(int (*poll)(void *), MPI_Grequest_query_function *query,
                                 MPI_Grequest_free_function *free_fn, void *arg,
                                 MPI_Request *req)
{
    int rc = smap_greq_start(query, free_fn, NULL, arg, req);
    if (rc != MPI_SUCCESS)
        return rc;
    ((struct MPI_ABI_Request *)*req)->greq->poll = poll;
    return MPI_SUCCESS;
}

int smap_greq_poll(struct MPI_ABI_Request *r)
{
    struct smap_greq *g = r->greq;
    if (!g->poll || !g->poll(g->extra))
        return 0;
    g->poll = NULL;
    smap_preq_complete(&r->p);
    return 1;
}

/* ---- MPI_Grequest_start / MPI_Grequest_complete (their generated stubs in
 * src/binding/gen/request.c check the request pointer): MPI_SUCCESS or an
 * error class, the reason recorded (base/why.h). ---- */

int smap_greq_start_checked(MPI_Grequest_query_function *query_fn,
                            MPI_Grequest_free_function *free_fn,
                            MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                            MPI_Request *request)
{
    int rc = smap_greq_start(query_fn, free_fn, cancel_fn, extra_state, request);
    return rc == MPI_SUCCESS ? rc : smap_fail(rc, "out of memory");
}

int smap_greq_complete_checked(MPI_Request request)
{
    struct MPI_ABI_Request *r = smap_req_get(request);
    if (!r || r->p.kind != SMAP_PREQ_GREQ)
        return smap_fail(MPI_ERR_REQUEST,
                         "request is not a generalized request (MPI_Grequest_start)");
    if (smap_preq_done(&r->p))
        return smap_fail(MPI_ERR_REQUEST, "the generalized request is already complete");
    int rc = smap_greq_complete(r);
    return rc == MPI_SUCCESS ? rc : smap_fail(rc, "the operation failed");
}
