/* A request's optional hook: what a binding must do when the request
 * starts (a persistent one, at each MPI_Start), completes and is freed.
 * The Fortran binding (mpi_f08) uses it for non-contiguous array sections
 * passed through a contiguous temporary: copy in at start, copy out at
 * completion, free the temporary with the request.  Requests without one
 * pay a pointer test on each path (an unlikely branch). */
#ifndef SMAP_MPI_REQUEST_HOOK_H
#define SMAP_MPI_REQUEST_HOOK_H

#include <mpi.h>

struct smap_req_hook {
    void (*start)(void *ctx);             /* a persistent request starts; may be NULL */
    void (*finish)(void *ctx, int err);   /* completed (err: its error class); may be NULL */
    void (*release)(void *ctx);           /* the request is freed; may be NULL */
};

/* Sets h's hook (one per request): MPI_ERR_REQUEST when h is no request,
 * MPI_ERR_INTERN when it has one already.  hook must outlive the request. */
int smap_req_hook_set(MPI_Request h, const struct smap_req_hook *hook, void *ctx);

#endif
