/* Errors go to the handler of the object the function works on (MPI 5.0
 * §9.3), as the generated binding's error target says: a window's errors
 * to the window's handler, a window's creation's to the communicator's,
 * a session's to the session's, errors that leave no valid object to
 * MPI_COMM_SELF's.  Each handler here counts its calls and the object it
 * was given; the others stay MPI_ERRORS_ARE_FATAL, so an error raised on
 * the wrong one ends the job. */
#include <string.h>

#include "smap_test.h"

static int win_calls, comm_calls, self_calls, session_calls;
static MPI_Win win_seen;
static MPI_Session session_seen;

static void on_win(MPI_Win *w, int *code, ...)
{
    (void)code;
    win_calls++;
    win_seen = *w;
}

static void on_comm(MPI_Comm *c, int *code, ...)
{
    (void)code;
    if (*c == MPI_COMM_SELF)
        self_calls++;
    else
        comm_calls++;
}

static void on_session(MPI_Session *s, int *code, ...)
{
    (void)code;
    session_calls++;
    session_seen = *s;
}

/* Window errors: the generated pointer checks, the rules below (rma/). */
static void window_target(void)
{
    MPI_Errhandler eh;
    CHECK_RC(MPI_Win_create_errhandler(on_win, &eh));
    double *base;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(8 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                              &base, &win));
    CHECK_RC(MPI_Win_set_errhandler(win, eh));
    int n = win_calls;
    MPI_Aint size;
    EXPECT_CLASS(MPI_Win_test(win, NULL), MPI_ERR_ARG);                       /* kinds */
    EXPECT_CLASS(MPI_Win_shared_query(win, 0, &size, NULL, &base), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Win_lock(12345, 0, 0, win), MPI_ERR_LOCKTYPE);            /* sync.c */
    EXPECT_CLASS(MPI_Win_flush(99, win), MPI_ERR_RANK);
    EXPECT_CLASS(MPI_Win_fence(1 << 20, win), MPI_ERR_ASSERT);
    EXPECT_CLASS(MPI_Win_attach(win, base, 8), MPI_ERR_RMA_FLAVOR);            /* win.c */
    EXPECT_CLASS(MPI_Win_set_attr(win, MPI_WIN_BASE, NULL), MPI_ERR_KEYVAL);   /* props */
    double x = 0;
    MPI_Request r;
    EXPECT_CLASS(MPI_Rput(&x, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Rput(&x, -1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win, &r), MPI_ERR_COUNT);
    CHECK(r == MPI_REQUEST_NULL, "a failed MPI_Rput left a request");
    CHECK(win_calls == n + 9 && win_seen == win, "window handler: %d calls, want %d",
          win_calls - n, 9);
    CHECK_RC(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free left the handle");
    /* no valid window: MPI_COMM_SELF's handler, with MPI_ERR_WIN */
    n = self_calls;
    EXPECT_CLASS(MPI_Win_free(&win), MPI_ERR_WIN);
    EXPECT_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
    CHECK(self_calls == n + 2, "MPI_COMM_SELF's handler: %d calls, want 2", self_calls - n);
    CHECK_RC(MPI_Errhandler_free(&eh));
}

/* A window's creation: no window yet, the communicator's handler. */
static void creation_target(void)
{
    MPI_Comm dup;
    MPI_Errhandler eh;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_RC(MPI_Comm_create_errhandler(on_comm, &eh));
    CHECK_RC(MPI_Comm_set_errhandler(dup, eh));
    int n = comm_calls;
    MPI_Win win = (MPI_Win)(void *)&win;
    EXPECT_CLASS(MPI_Win_create(NULL, -8, 1, MPI_INFO_NULL, dup, &win), MPI_ERR_SIZE);
    CHECK(win == MPI_WIN_NULL, "a failed MPI_Win_create did not set MPI_WIN_NULL");
    EXPECT_CLASS(MPI_Win_allocate(8, 0, MPI_INFO_NULL, dup, NULL, &win), MPI_ERR_DISP);
    EXPECT_CLASS(MPI_Win_create_dynamic(MPI_INFO_NULL, dup, NULL), MPI_ERR_ARG);
    CHECK(comm_calls == n + 3, "communicator handler: %d calls, want 3", comm_calls - n);
    CHECK_RC(MPI_Errhandler_free(&eh));
    CHECK_RC(MPI_Comm_free(&dup));
}

/* A session's errors: the session's handler, with the session. */
static void session_target(void)
{
    MPI_Errhandler eh;
    CHECK_RC(MPI_Session_create_errhandler(on_session, &eh));
    MPI_Session s;
    CHECK_RC(MPI_Session_init(MPI_INFO_NULL, eh, &s));
    int n = session_calls;
    EXPECT_CLASS(MPI_Session_get_info(s, NULL), MPI_ERR_ARG);                  /* kinds */
    EXPECT_CLASS(MPI_Session_get_num_psets(s, (MPI_Info)(void *)&n, &n), MPI_ERR_INFO);
    int len = 0;
    EXPECT_CLASS(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 99, &len, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Session_attach_buffer(s, NULL, -1), MPI_ERR_ARG);         /* bsend_api */
    CHECK(session_calls == n + 4 && session_seen == s, "session handler: %d calls, want 4",
          session_calls - n);
    len = 0;   /* *pset_len 0: the length alone, pset_name may be NULL */
    CHECK_RC(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, NULL));
    CHECK(len == (int)strlen("mpi://WORLD") + 1, "pset 0's length %d", len);
    CHECK_RC(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL, "MPI_Session_finalize left the handle");
    n = self_calls;
    EXPECT_CLASS(MPI_Session_get_info(MPI_SESSION_NULL, NULL), MPI_ERR_SESSION);
    CHECK(self_calls == n + 1, "MPI_COMM_SELF's handler: %d calls, want 1", self_calls - n);
    CHECK_RC(MPI_Errhandler_free(&eh));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Errhandler self_eh;
    CHECK_RC(MPI_Comm_create_errhandler(on_comm, &self_eh));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, self_eh));
    window_target();
    creation_target();
    session_target();
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Errhandler_free(&self_eh));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("rma_err_target: ok\n");
    MPI_Finalize();
    return 0;
}
