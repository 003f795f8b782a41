/* The chunk pipeline every large hierarchical collective shares: chunk k's
 * front half (its on-node phase, then the start of its inter-node phase as
 * a request) runs while chunk k-1's inter-node phase is still in flight;
 * then chunk k-1's request is waited for and its back half (the on-node
 * phase after the leaders') runs.  So the slower of the two phases sets
 * the time, not their sum (DESIGN.md D13). */
#include "coll/hier/internal.h"

int hier_pipeline(const struct hier_pipe *p, MPI_Count count, smap_dtype_t *t)
{
    return hier_pipeline_n(p, count, hier_chunk(t));
}

int hier_pipeline_n(const struct hier_pipe *p, MPI_Count count, MPI_Count ce)
{
    MPI_Count nchunks = (count + ce - 1) / ce;
    MPI_Request prev = MPI_REQUEST_NULL;
    MPI_Count pstart = 0, plen = 0;
    int rc = MPI_SUCCESS;
    for (MPI_Count k = 0; k <= nchunks && rc == MPI_SUCCESS; k++) {
        MPI_Request cur = MPI_REQUEST_NULL;
        MPI_Count start = k * ce, len = count - start < ce ? count - start : ce;
        if (k < nchunks)
            rc = p->front(p->arg, start, len, &cur);
        if (k > 0 && rc == MPI_SUCCESS) {
            if (prev != MPI_REQUEST_NULL)
                rc = hier_wait(&prev);
            if (rc == MPI_SUCCESS && p->back)
                rc = p->back(p->arg, pstart, plen);
        }
        if (prev != MPI_REQUEST_NULL)   /* a failed chunk: still drain k-1 */
            (void)hier_wait(&prev);
        prev = cur;
        pstart = start;
        plen = len;
    }
    if (prev != MPI_REQUEST_NULL)
        (void)hier_wait(&prev);
    return rc;
}
