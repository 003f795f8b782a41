/* The collectives the layer runs on a file's communicator (agreements,
 * rank 0's broadcasts, the ordered calls' counts).  A communicator with a
 * control block (a slot of src/coll) runs them there; one without (all
 * slots taken, or ranks on several nodes) runs a schedule of src/coll/nbc
 * and waits for it, as window creation does (src/rma/win.c). */
#include "base/wait.h"
#include "smap/smap.h"
#include "coll/coll.h"
#include "coll/nbc/nbc.h"
#include "io/io.h"
#include "mpi/request.h"

/* Waits for the schedule r that a call returning rc started (called
 * after that call: r is its output). */
static int wait_sched(int rc, MPI_Request r)
{
    if (rc)
        return smap_io_fail(rc, "a collective of the file failed: %s", smap_nbc_why());
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    while (!smap_req_ready(r)) {
        smap_p2p_progress();
        smap_wait_step(&w);
    }
    rc = smap_req_finish(&r, MPI_STATUS_IGNORE);
    return rc ? smap_io_fail(rc, "a collective of the file failed") : MPI_SUCCESS;
}

static int done(int rc)
{
    return rc ? smap_io_fail(rc, "a collective of the file failed: %s", smap_coll_why())
              : MPI_SUCCESS;
}

int smap_io_max(struct MPI_ABI_Comm *c, const long long *in, long long *out, int n)
{
    smap_dtype_t *t = smap_dtype_get(MPI_LONG_LONG);
    if (c->slot >= 0)
        return done(smap_coll_allreduce(in, out, n, t, MPI_LONG_LONG, MPI_MAX, c));
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = smap_nbc_allreduce(in, out, n, t, MPI_LONG_LONG, MPI_MAX, c, &r);
    return wait_sched(rc, r);
}

int smap_io_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root,
                  struct MPI_ABI_Comm *c)
{
    smap_dtype_t *t = smap_dtype_get(type);
    if (c->slot >= 0)
        return done(smap_coll_bcast(buf, count, t, root, c));
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = smap_nbc_bcast(buf, count, t, root, c, &r);
    return wait_sched(rc, r);
}

int smap_io_allgather(const long long *mine, long long *all, struct MPI_ABI_Comm *c)
{
    smap_dtype_t *t = smap_dtype_get(MPI_LONG_LONG);
    struct smap_cvec none = {NULL, 0};
    if (c->slot >= 0)
        return done(smap_coll_allgather(mine, 1, t, all, 1, none, none, t, c));
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = smap_nbc_allgather(mine, 1, t, all, 1, none, none, t, c, &r);
    return wait_sched(rc, r);
}
