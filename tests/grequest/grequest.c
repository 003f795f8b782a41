/* Generalized requests (MPI 5.0 §13.2): the callbacks are called as the
 * standard says — query_fn fills the status when a wait/test completes the
 * request (and for MPI_Request_get_status), then free_fn; MPI_Request_free
 * calls free_fn only (at once when complete, else at MPI_Grequest_complete);
 * MPI_Cancel calls cancel_fn with the `complete` flag; query_fn's error is
 * what the wait returns.  Also the status setters a query_fn uses. */
#include <string.h>

#include "smap_test.h"

struct state {
    int queries, frees, cancels, last_complete, fail_query, fail_free;
    MPI_Count elements;
};

static int query(void *extra, MPI_Status *st)
{
    struct state *s = extra;
    s->queries++;
    CHECK(st != MPI_STATUS_IGNORE, "query_fn gets a real status");
    MPI_Status_set_elements_c(st, MPI_INT, s->elements);
    MPI_Status_set_cancelled(st, s->cancels > 0);
    MPI_Status_set_source(st, 3);
    MPI_Status_set_tag(st, 17);
    return s->fail_query ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    struct state *s = extra;
    s->frees++;
    return s->fail_free ? MPI_ERR_INTERN : MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    struct state *s = extra;
    s->cancels++;
    s->last_complete = complete;
    return MPI_SUCCESS;
}

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    /* wait: query then free, once each, status from the query */
    struct state s = {.elements = 5};
    MPI_Request r;
    CHECK_RC(MPI_Grequest_start(query, free_fn, cancel_fn, &s, &r));
    int flag = 1;
    CHECK_RC(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag && s.queries == 0, "incomplete generalized request tested complete");
    CHECK_RC(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag && s.queries == 0, "Request_get_status before completion");
    CHECK_RC(MPI_Grequest_complete(r));
    MPI_Status st;
    CHECK_RC(MPI_Request_get_status(r, &flag, &st));
    CHECK(flag && s.queries == 1 && s.frees == 0, "Request_get_status: queries %d frees %d",
          s.queries, s.frees);
    CHECK(r != MPI_REQUEST_NULL, "Request_get_status frees nothing");
    memset(&st, 0, sizeof st);
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL, "Wait frees the request");
    CHECK(s.queries == 2 && s.frees == 1, "Wait: queries %d frees %d", s.queries, s.frees);
    int count = -1;
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 5 && st.MPI_SOURCE == 3 && st.MPI_TAG == 17, "status count %d src %d tag %d",
          count, st.MPI_SOURCE, st.MPI_TAG);
    MPI_Count elems = -1;
    CHECK_RC(MPI_Get_elements_x(&st, MPI_INT, &elems));
    CHECK(elems == 5, "elements %lld", (long long)elems);

    /* test, with MPI_STATUS_IGNORE: the query still runs */
    s = (struct state){.elements = 1};
    CHECK_RC(MPI_Grequest_start(query, free_fn, cancel_fn, &s, &r));
    CHECK_RC(MPI_Grequest_complete(r));
    CHECK_RC(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && r == MPI_REQUEST_NULL && s.queries == 1 && s.frees == 1, "Test: %d %d",
          s.queries, s.frees);

    /* Request_free before completion: free_fn at MPI_Grequest_complete */
    s = (struct state){0};
    CHECK_RC(MPI_Grequest_start(query, free_fn, cancel_fn, &s, &r));
    MPI_Request keep = r;
    CHECK_RC(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL && s.frees == 0, "free_fn before completion");
    CHECK_RC(MPI_Grequest_complete(keep));
    CHECK(s.frees == 1 && s.queries == 0, "free after complete: frees %d queries %d", s.frees,
          s.queries);

    /* Request_free after completion: free_fn at once, no query */
    s = (struct state){0};
    CHECK_RC(MPI_Grequest_start(query, free_fn, cancel_fn, &s, &r));
    CHECK_RC(MPI_Grequest_complete(r));
    CHECK_RC(MPI_Request_free(&r));
    CHECK(s.frees == 1 && s.queries == 0, "free of a complete one: %d %d", s.frees, s.queries);

    /* cancel before and after completion; the query reports it */
    s = (struct state){0};
    CHECK_RC(MPI_Grequest_start(query, free_fn, cancel_fn, &s, &r));
    CHECK_RC(MPI_Cancel(&r));
    CHECK(s.cancels == 1 && s.last_complete == 0, "cancel_fn(complete=0)");
    CHECK_RC(MPI_Grequest_complete(r));
    CHECK_RC(MPI_Cancel(&r));
    CHECK(s.cancels == 2 && s.last_complete == 1, "cancel_fn(complete=1)");
    CHECK_RC(MPI_Wait(&r, &st));
    int cancelled = 0;
    CHECK_RC(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled, "cancelled flag set by the query");

    /* NULL callbacks are allowed */
    CHECK_RC(MPI_Grequest_start(NULL, NULL, NULL, NULL, &r));
    CHECK_RC(MPI_Cancel(&r));
    CHECK_RC(MPI_Grequest_complete(r));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));

    /* query_fn's error is the wait's; free_fn runs anyway */
    s = (struct state){.fail_query = 1};
    CHECK_RC(MPI_Grequest_start(query, free_fn, cancel_fn, &s, &r));
    CHECK_RC(MPI_Grequest_complete(r));
    int rc = MPI_Wait(&r, &st);
    CHECK(err_class(rc) == MPI_ERR_OTHER && s.frees == 1, "query error: class %d frees %d",
          err_class(rc), s.frees);

    /* in Waitall among point-to-point requests: MPI_ERR_IN_STATUS, the
     * failing one's MPI_ERROR */
    struct state a = {.elements = 2}, b = {.fail_query = 1};
    MPI_Request rs[3];
    int x = 1, y = 0;
    CHECK_RC(MPI_Grequest_start(query, free_fn, cancel_fn, &a, &rs[0]));
    CHECK_RC(MPI_Irecv(&y, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &rs[1]));
    CHECK_RC(MPI_Grequest_start(query, free_fn, cancel_fn, &b, &rs[2]));
    CHECK_RC(MPI_Send(&x, 1, MPI_INT, 0, 9, MPI_COMM_SELF));
    CHECK_RC(MPI_Grequest_complete(rs[2]));
    CHECK_RC(MPI_Grequest_complete(rs[0]));
    MPI_Status sts[3];
    rc = MPI_Waitall(3, rs, sts);
    CHECK(err_class(rc) == MPI_ERR_IN_STATUS, "Waitall class %d", err_class(rc));
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR == MPI_SUCCESS &&
              err_class(sts[2].MPI_ERROR) == MPI_ERR_OTHER && y == 1,
          "Waitall statuses");
    CHECK(a.frees == 1 && b.frees == 1 && a.queries == 1, "Waitall callbacks");

    /* Waitany picks the completed one */
    s = (struct state){.elements = 3};
    struct state s2 = {0};
    MPI_Request two[2];
    CHECK_RC(MPI_Grequest_start(query, free_fn, cancel_fn, &s2, &two[0]));
    CHECK_RC(MPI_Grequest_start(query, free_fn, cancel_fn, &s, &two[1]));
    CHECK_RC(MPI_Grequest_complete(two[1]));
    int idx = -1;
    CHECK_RC(MPI_Waitany(2, two, &idx, &st));
    CHECK(idx == 1 && s.queries == 1 && s2.queries == 0, "Waitany index %d", idx);
    CHECK_RC(MPI_Grequest_complete(two[0]));
    CHECK_RC(MPI_Wait(&two[0], MPI_STATUS_IGNORE));

    /* errors: completing twice, completing what is no generalized request */
    CHECK_RC(MPI_Grequest_start(NULL, NULL, NULL, NULL, &r));
    CHECK_RC(MPI_Grequest_complete(r));
    rc = MPI_Grequest_complete(r);
    CHECK(err_class(rc) == MPI_ERR_REQUEST, "second complete: class %d", err_class(rc));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Irecv(&y, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &r));
    rc = MPI_Grequest_complete(r);
    CHECK(err_class(rc) == MPI_ERR_REQUEST, "complete of a receive: class %d", err_class(rc));
    CHECK_RC(MPI_Send(&x, 1, MPI_INT, 0, 9, MPI_COMM_SELF));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    rc = MPI_Grequest_start(NULL, NULL, NULL, NULL, NULL);
    CHECK(rc != MPI_SUCCESS, "NULL request pointer accepted");

    /* the status setters on their own */
    MPI_Status t;
    CHECK_RC(MPI_Status_set_elements(&t, MPI_DOUBLE, 4));
    CHECK_RC(MPI_Get_count(&t, MPI_DOUBLE, &count));
    CHECK(count == 4, "set_elements/get_count %d", count);
    CHECK_RC(MPI_Status_set_elements_x(&t, MPI_CHAR, 6));
    CHECK_RC(MPI_Get_count(&t, MPI_SHORT, &count));
    CHECK(count == 3, "6 chars are 3 shorts: %d", count);
    CHECK_RC(MPI_Status_set_cancelled(&t, 1));
    CHECK_RC(MPI_Test_cancelled(&t, &flag));
    CHECK(flag, "set_cancelled");
    CHECK_RC(MPI_Status_set_cancelled(&t, 0));
    CHECK_RC(MPI_Test_cancelled(&t, &flag));
    CHECK(!flag, "set_cancelled 0");

    CHECK_RC(MPI_Finalize());
    return 0;
}
