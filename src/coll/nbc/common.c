/* Launching a built schedule, and the reason of the last failure. */
#include "coll/nbc/internal.h"

static _Thread_local const char *why = "";

const char *smap_nbc_why(void)
{
    return why;
}

struct smap_sched *nbc_new(smap_comm_t *c)
{
    struct smap_sched *s = smap_sched_new(c);
    if (!s)
        why = "out of memory building the collective's schedule";
    return s;
}

int nbc_launch(struct smap_sched *s, MPI_Request *req)
{
    if (smap_sched_failed(s)) {
        smap_sched_free(s);
        why = "out of memory building the collective's schedule";
        return MPI_ERR_NO_MEM;
    }
    int rc = req ? smap_sched_start(s, req) : smap_sched_run(s);
    if (rc == MPI_ERR_TRUNCATE)
        why = "a member sent more data than another expected (counts or types differ "
              "between the members)";
    else if (rc != MPI_SUCCESS)
        why = "a step of the collective's schedule failed";
    return rc;
}
