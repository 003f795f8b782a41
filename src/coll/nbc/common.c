/* Launching a built schedule. */
#include "coll/nbc/internal.h"

struct smap_sched *nbc_new(smap_comm_t *c)
{
    struct smap_sched *s = smap_sched_new(c);
    if (!s)
        smap_fail(MPI_ERR_NO_MEM, "out of memory building the collective's schedule");
    return s;
}

int nbc_launch(struct smap_sched *s, MPI_Request *req)
{
    if (smap_sched_failed(s)) {
        smap_sched_free(s);
        return smap_fail(MPI_ERR_NO_MEM, "out of memory building the collective's schedule");
    }
    int rc = req ? smap_sched_start(s, req) : smap_sched_run(s);
    if (rc == MPI_ERR_TRUNCATE)
        return smap_fail(rc, "a member sent more data than another expected (counts or types "
                             "differ between the members)");
    if (rc != MPI_SUCCESS)
        return smap_fail(rc, "a step of the collective's schedule failed");
    return rc;
}
