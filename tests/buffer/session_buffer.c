/* MPI 4.1 session buffers (MPI_Session_attach_buffer ...), in a program
 * that uses only sessions (no MPI_Init): buffered sends on communicators
 * derived from the session (MPI_Comm_create_from_group, and MPI_Comm_dup
 * of that) use the session's buffer, sized exactly n * (size +
 * MPI_BSEND_OVERHEAD); another session's communicators do not; a
 * communicator's own buffer takes precedence; the flushes wait for the
 * messages; detach hands back the buffer; errors. */
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

enum { BIG = 1 << 18 };   /* ints: past the eager size, so completion waits for the receiver */
enum { ONE = BIG * (int)sizeof(int) + MPI_BSEND_OVERHEAD };   /* what one message costs */

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

#define FAILS(call, cls)                                                               \
    do {                                                                               \
        int c_ = err_class(call);                                                      \
        CHECK(c_ == (cls), "%s: class %d, expected %s", #call, c_, #cls);              \
    } while (0)

static MPI_Comm world_comm(MPI_Session s, const char *tag)
{
    MPI_Group g;
    CHECK_RC(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_Comm c;
    CHECK_RC(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    CHECK_RC(MPI_Group_free(&g));
    return c;
}

static int *big_msg(int k)
{
    int *v = malloc(BIG * sizeof(int));
    CHECK(v, "malloc");
    for (int i = 0; i < BIG; i++)
        v[i] = i + k;
    return v;
}

static void recv_big(MPI_Comm c, int src, int tag, int k)
{
    int *v = malloc(BIG * sizeof(int));
    CHECK(v, "malloc");
    CHECK_RC(MPI_Recv(v, BIG, MPI_INT, src, tag, c, MPI_STATUS_IGNORE));
    for (int i = 0; i < BIG; i += 997)
        CHECK(v[i] == i + k, "tag %d: v[%d] = %d", tag, i, v[i]);
    free(v);
}

static void bad_sessions(void)
{
    int x = 0, isz;
    MPI_Count csz;
    void *a;
    MPI_Request r;
    MPI_Session bad[2] = { MPI_SESSION_NULL, (MPI_Session)&x };
    for (int i = 0; i < 2; i++) {
        FAILS(MPI_Session_attach_buffer(bad[i], &x, 4), MPI_ERR_SESSION);
        FAILS(MPI_Session_attach_buffer_c(bad[i], &x, 4), MPI_ERR_SESSION);
        FAILS(MPI_Session_detach_buffer(bad[i], &a, &isz), MPI_ERR_SESSION);
        FAILS(MPI_Session_detach_buffer_c(bad[i], &a, &csz), MPI_ERR_SESSION);
        FAILS(MPI_Session_flush_buffer(bad[i]), MPI_ERR_SESSION);
        FAILS(MPI_Session_iflush_buffer(bad[i], &r), MPI_ERR_SESSION);
    }
}

int main(void)
{
    MPI_Session s, other;
    CHECK_RC(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    CHECK_RC(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &other));
    int flag = 1;
    MPI_Initialized(&flag);
    CHECK(!flag, "MPI_Initialized is true in a sessions-only program");
    /* errors tied to no session go to MPI_COMM_SELF's handler */
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    bad_sessions();

    MPI_Comm c = world_comm(s, "org.smartmap.test.sbuf");
    MPI_Comm oc = world_comm(other, "org.smartmap.test.sbuf.other");
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(c, &dup));
    int me, np;
    CHECK_RC(MPI_Comm_rank(c, &me));
    CHECK_RC(MPI_Comm_size(c, &np));
    int dest = (me + 1) % np, src = (me + np - 1) % np, x = 7;

    /* No buffer anywhere: buffered sends fail; detach of nothing fails;
     * the flushes have nothing to wait for. */
    FAILS(MPI_Bsend(&x, 1, MPI_INT, dest, 0, c), MPI_ERR_BUFFER);
    void *a;
    int isz;
    MPI_Count csz;
    FAILS(MPI_Session_detach_buffer(s, &a, &isz), MPI_ERR_BUFFER);
    FAILS(MPI_Session_detach_buffer_c(s, &a, &csz), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Session_flush_buffer(s));
    MPI_Request fr;
    CHECK_RC(MPI_Session_iflush_buffer(s, &fr));
    CHECK_RC(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    CHECK(fr == MPI_REQUEST_NULL, "iflush request not freed");

    /* Argument errors go to the session's handler. */
    char *sbuf = malloc(2 * ONE);
    CHECK(sbuf, "malloc");
    FAILS(MPI_Session_attach_buffer(s, sbuf, -1), MPI_ERR_ARG);
    FAILS(MPI_Session_attach_buffer(s, NULL, 8), MPI_ERR_BUFFER);
    FAILS(MPI_Session_detach_buffer(s, NULL, &isz), MPI_ERR_ARG);
    FAILS(MPI_Session_detach_buffer(s, &a, NULL), MPI_ERR_ARG);
    FAILS(MPI_Session_iflush_buffer(s, NULL), MPI_ERR_ARG);

    /* Exactly two messages' worth, on the session. */
    CHECK_RC(MPI_Session_attach_buffer(s, sbuf, 2 * ONE));
    FAILS(MPI_Session_attach_buffer(s, sbuf, 2 * ONE), MPI_ERR_BUFFER);
    int *m1 = big_msg(1), *m2 = big_msg(2);
    CHECK_RC(MPI_Bsend(m1, BIG, MPI_INT, dest, 1, c));
    CHECK_RC(MPI_Bsend(m2, BIG, MPI_INT, dest, 2, dup));   /* a dup inherits the session */
    memset(m1, 0, BIG * sizeof(int));   /* buffered: ours again */
    memset(m2, 0, BIG * sizeof(int));
    /* full now (no receiver has asked yet) */
    FAILS(MPI_Bsend(&x, 1, MPI_INT, dest, 3, c), MPI_ERR_BUFFER);
    /* another session's communicator does not use this buffer */
    FAILS(MPI_Bsend(&x, 1, MPI_INT, dest, 3, oc), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Session_iflush_buffer(s, &fr));
    for (int i = 0; i < 50; i++) {
        CHECK_RC(MPI_Test(&fr, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "iflush complete while the receiver has not received");
    }
    CHECK_RC(MPI_Barrier(c));   /* everyone has sent and tested */
    recv_big(c, src, 1, 1);
    recv_big(dup, src, 2, 2);
    CHECK_RC(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Session_flush_buffer(s));

    /* A communicator buffer of one message takes precedence: the second
     * Bsend on c fails although the session's buffer has room, which a
     * Bsend on dup still uses. */
    char *cbuf = malloc(ONE);
    CHECK(cbuf, "malloc");
    CHECK_RC(MPI_Comm_attach_buffer(c, cbuf, ONE));
    int *m3 = big_msg(3), *m4 = big_msg(4);
    CHECK_RC(MPI_Bsend(m3, BIG, MPI_INT, dest, 3, c));
    FAILS(MPI_Bsend(m4, BIG, MPI_INT, dest, 4, c), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Bsend(m4, BIG, MPI_INT, dest, 4, dup));
    CHECK_RC(MPI_Barrier(c));
    recv_big(c, src, 3, 3);
    recv_big(dup, src, 4, 4);
    CHECK_RC(MPI_Comm_detach_buffer(c, &a, &isz));
    CHECK(a == cbuf && isz == ONE, "comm detach: %p %d", a, isz);

    /* Detach hands back the same buffer and size; afterwards the session
     * has none. */
    CHECK_RC(MPI_Session_detach_buffer(s, &a, &isz));
    CHECK(a == sbuf && isz == 2 * ONE, "session detach: %p %d (want %p %d)", a, isz,
          (void *)sbuf, 2 * ONE);
    FAILS(MPI_Bsend(&x, 1, MPI_INT, dest, 5, c), MPI_ERR_BUFFER);
    FAILS(MPI_Session_detach_buffer(s, &a, &isz), MPI_ERR_BUFFER);

    /* The large-count forms, and MPI_BUFFER_AUTOMATIC. */
    CHECK_RC(MPI_Session_attach_buffer_c(s, sbuf, (MPI_Count)ONE));
    free(m1);
    m1 = big_msg(6);
    CHECK_RC(MPI_Bsend(m1, BIG, MPI_INT, dest, 6, c));
    recv_big(c, src, 6, 6);
    CHECK_RC(MPI_Session_detach_buffer_c(s, &a, &csz));
    CHECK(a == sbuf && csz == ONE, "session detach_c: %p %lld", a, (long long)csz);
    CHECK_RC(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0));
    /* a communicator made from groups made from the communicator's group
     * (MPI_Group_incl, MPI_Group_union) belongs to the session too */
    MPI_Group cg, ig, ug;
    CHECK_RC(MPI_Comm_group(c, &cg));
    int *rev = malloc((size_t)np * sizeof *rev);
    CHECK(rev, "malloc");
    for (int i = 0; i < np; i++)
        rev[i] = np - 1 - i;
    CHECK_RC(MPI_Group_incl(cg, np, rev, &ig));
    CHECK_RC(MPI_Group_union(MPI_GROUP_EMPTY, ig, &ug));
    MPI_Comm gc;
    CHECK_RC(MPI_Comm_create_from_group(ug, "org.smartmap.test.sbuf.derived", MPI_INFO_NULL,
                                        MPI_ERRORS_RETURN, &gc));
    CHECK_RC(MPI_Group_free(&ug));
    CHECK_RC(MPI_Group_free(&ig));
    CHECK_RC(MPI_Group_free(&cg));
    free(rev);
    int gme;
    CHECK_RC(MPI_Comm_rank(gc, &gme));
    int gdest = (gme + 1) % np, gsrc = (gme + np - 1) % np;
    for (int i = 0; i < 3; i++) {
        CHECK_RC(MPI_Bsend(&x, 1, MPI_INT, dest, 7, dup));
        CHECK_RC(MPI_Bsend(&x, 1, MPI_INT, gdest, 7, gc));
    }
    for (int i = 0; i < 3; i++) {
        int y = 0, z = 0;
        CHECK_RC(MPI_Recv(&y, 1, MPI_INT, src, 7, dup, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Recv(&z, 1, MPI_INT, gsrc, 7, gc, MPI_STATUS_IGNORE));
        CHECK(y == 7 && z == 7, "automatic: %d %d", y, z);
    }
    CHECK_RC(MPI_Comm_free(&gc));
    CHECK_RC(MPI_Session_detach_buffer(s, &a, &isz));
    CHECK(a == MPI_BUFFER_AUTOMATIC, "detach of the automatic buffer: %p", a);

    /* MPI_Session_finalize flushes and frees a buffer still attached. */
    CHECK_RC(MPI_Session_attach_buffer(s, sbuf, ONE));
    CHECK_RC(MPI_Bsend(&x, 1, MPI_INT, dest, 8, c));
    int y = 0;
    CHECK_RC(MPI_Recv(&y, 1, MPI_INT, src, 8, c, MPI_STATUS_IGNORE));
    CHECK(y == 7, "last message: %d", y);
    CHECK_RC(MPI_Comm_free(&dup));
    CHECK_RC(MPI_Comm_free(&c));
    CHECK_RC(MPI_Comm_free(&oc));
    CHECK_RC(MPI_Session_finalize(&s));
    CHECK_RC(MPI_Session_finalize(&other));
    free(m1);
    free(m2);
    free(m3);
    free(m4);
    free(cbuf);
    free(sbuf);
    if (me == 0)
        printf("session_buffer: OK (%d ranks)\n", np);
    return 0;
}
