/* A program that uses only sessions (no MPI_Init): the runtime starts at
 * the first MPI_Session_init and is torn down at exit.  Process sets,
 * groups from them, MPI_Comm_create_from_group and traffic on the result,
 * MPI_Intercomm_create_from_groups, several sessions at once, a session
 * after the last one was finalized, session info and error handlers. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "smap_test.h"

#define OK(call)                                                             \
    do {                                                                     \
        int rc_ = (call);                                                    \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);             \
    } while (0)

static int handler_calls, handler_code;
static MPI_Session handler_session;

static void on_error(MPI_Session *s, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_session = *s;
}

static void psets(MPI_Session s, int size)
{
    int n = 0;
    OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n >= 2, "%d process sets", n);
    int seen_world = 0, seen_self = 0;
    for (int i = 0; i < n; i++) {
        int len = 0;
        OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        char name[MPI_MAX_PSET_NAME_LEN];
        CHECK(len > 1 && len <= (int)sizeof name, "pset %d length %d", i, len);
        OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        CHECK((int)strlen(name) + 1 == len, "pset '%s' len %d", name, len);
        seen_world += !strcmp(name, "mpi://WORLD");
        seen_self += !strcmp(name, "mpi://SELF");
        MPI_Info info;
        OK(MPI_Session_get_pset_info(s, name, &info));
        char v[32];
        int flag = 0;
        OK(MPI_Info_get_string(info, "mpi_size", &(int){ sizeof v }, v, &flag));
        CHECK(flag, "no mpi_size for %s", name);
        int want = !strcmp(name, "mpi://SELF") ? 1 : size;
        CHECK(atoi(v) == want, "%s mpi_size %s, expected %d", name, v, want);
        MPI_Info_free(&info);
    }
    CHECK(seen_world == 1 && seen_self == 1, "psets world %d self %d", seen_world, seen_self);
    /* truncated into a short buffer, the full length back */
    char shortname[5];
    int len = sizeof shortname;
    OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, shortname));
    CHECK(strlen(shortname) == 4 && len == (int)strlen("mpi://WORLD") + 1, "'%s' %d", shortname,
          len);
}

/* A communicator of the pset's group, and traffic on it. */
static MPI_Comm world_comm(MPI_Session s, const char *tag)
{
    MPI_Group g;
    OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_Comm c;
    OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    OK(MPI_Group_free(&g));
    return c;
}

static void traffic(MPI_Comm c)
{
    int rank, size;
    OK(MPI_Comm_rank(c, &rank));
    OK(MPI_Comm_size(c, &size));
    int sum = 0, one = rank + 1;
    OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size + 1) / 2, "allreduce %d", sum);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    OK(MPI_Sendrecv(&rank, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5, c, MPI_STATUS_IGNORE));
    CHECK(got == left, "ring got %d from %d", got, left);
    MPI_Errhandler eh;
    OK(MPI_Comm_get_errhandler(c, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "the new communicator's error handler");
    MPI_Errhandler_free(&eh);
}

/* Even and odd ranks of WORLD as the two groups of an intercommunicator. */
static void intercomm(MPI_Session s, int rank, int size)
{
    MPI_Group world, even, odd;
    OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
    int range[1][3] = { { 0, size - 1, 2 } };
    OK(MPI_Group_range_incl(world, 1, range, &even));
    OK(MPI_Group_difference(world, even, &odd));
    MPI_Group mine = rank % 2 ? odd : even, other = rank % 2 ? even : odd;
    MPI_Comm ic;
    OK(MPI_Intercomm_create_from_groups(mine, 0, other, 0, "org.smartmap.test.inter",
                                        MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic));
    int flag = 0, rsize = 0, lsize = 0;
    OK(MPI_Comm_test_inter(ic, &flag));
    OK(MPI_Comm_remote_size(ic, &rsize));
    OK(MPI_Comm_size(ic, &lsize));
    CHECK(flag && lsize == (size + 1 - rank % 2) / 2 && lsize + rsize == size,
          "intercomm inter %d local %d remote %d", flag, lsize, rsize);
    /* rank 0 of each side swaps with rank 0 of the other */
    int lrank;
    OK(MPI_Comm_rank(ic, &lrank));
    if (lrank == 0) {
        int mine_w = rank, theirs = -1;
        OK(MPI_Sendrecv(&mine_w, 1, MPI_INT, 0, 9, &theirs, 1, MPI_INT, 0, 9, ic,
                        MPI_STATUS_IGNORE));
        CHECK(theirs == (rank % 2 ? 0 : 1), "the other leader is world rank %d", theirs);
    }
    OK(MPI_Barrier(ic));
    OK(MPI_Comm_free(&ic));
    OK(MPI_Group_free(&world));
    OK(MPI_Group_free(&even));
    OK(MPI_Group_free(&odd));
}

static void errhandlers(MPI_Session s)
{
    MPI_Errhandler eh, got;
    OK(MPI_Session_create_errhandler(on_error, &eh));
    OK(MPI_Session_set_errhandler(s, eh));
    OK(MPI_Session_get_errhandler(s, &got));
    CHECK(got == eh, "get_errhandler gave another handler");
    OK(MPI_Errhandler_free(&got));
    OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER && handler_session == s,
          "handler calls %d code %d", handler_calls, handler_code);
    /* an error in a session call goes to the session's handler */
    MPI_Group g;
    int rc = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
    CHECK(rc != MPI_SUCCESS && handler_calls == 2, "bad pset: rc %d, %d calls", rc,
          handler_calls);
    int cls;
    MPI_Error_class(handler_code, &cls);
    CHECK(cls == MPI_ERR_ARG, "bad pset gave class %d", cls);
    OK(MPI_Errhandler_free(&eh));
    OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    int n = 0;
    rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 99, &n, NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "pset 99 gave class %d", cls);
    MPI_Comm c;
    rc = MPI_Comm_create_from_group(MPI_GROUP_EMPTY, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "NULL stringtag gave class %d", cls);
    rc = MPI_Comm_create_from_group(MPI_GROUP_NULL, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_GROUP, "MPI_GROUP_NULL gave class %d", cls);
    OK(MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    CHECK(c == MPI_COMM_NULL, "an empty group gives MPI_COMM_NULL");
}

int main(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_FUNNELED");
    MPI_Info_set(info, "org.smartmap.test", "yes");
    MPI_Session s;
    OK(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
    MPI_Info_free(&info);
    int flag = 1;
    MPI_Initialized(&flag);
    CHECK(!flag, "MPI_Initialized is true in a sessions-only program");

    MPI_Info used;
    OK(MPI_Session_get_info(s, &used));
    char v[64];
    int vlen = sizeof v;
    OK(MPI_Info_get_string(used, "thread_level", &vlen, v, &flag));
    CHECK(flag && !strcmp(v, "MPI_THREAD_FUNNELED"), "thread_level '%s'", v);
    vlen = sizeof v;
    OK(MPI_Info_get_string(used, "org.smartmap.test", &vlen, v, &flag));
    CHECK(flag && !strcmp(v, "yes"), "the session's own key is lost");
    MPI_Info_free(&used);

    MPI_Comm c = world_comm(s, "org.smartmap.test.world");
    int rank, size;
    OK(MPI_Comm_rank(c, &rank));
    OK(MPI_Comm_size(c, &size));
    psets(s, size);
    traffic(c);

    /* SELF: a communicator of one */
    MPI_Group self;
    OK(MPI_Group_from_session_pset(s, "mpi://SELF", &self));
    MPI_Comm sc;
    OK(MPI_Comm_create_from_group(self, "org.smartmap.test.self", MPI_INFO_NULL,
                                  MPI_ERRORS_RETURN, &sc));
    OK(MPI_Group_free(&self));
    int ssize = 0;
    OK(MPI_Comm_size(sc, &ssize));
    CHECK(ssize == 1, "SELF communicator of size %d", ssize);
    traffic(sc);

    /* A second session at the same time, its own communicators. */
    MPI_Session s2;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
    CHECK(s2 != s, "two sessions share a handle");
    MPI_Comm c2 = world_comm(s2, "org.smartmap.test.second");
    traffic(c2);
    if (size >= 2)
        intercomm(s2, rank, size);
    errhandlers(s2);
    OK(MPI_Comm_free(&c2));
    OK(MPI_Session_finalize(&s2));
    CHECK(s2 == MPI_SESSION_NULL, "finalize does not reset the handle");

    traffic(c);
    OK(MPI_Comm_free(&c));
    OK(MPI_Comm_free(&sc));
    OK(MPI_Session_finalize(&s));

    /* The last session is gone; a new one finds the library ready. */
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    c = world_comm(s, "org.smartmap.test.again");
    traffic(c);
    OK(MPI_Comm_free(&c));
    OK(MPI_Session_finalize(&s));
    MPI_Initialized(&flag);
    CHECK(!flag, "MPI_Initialized is true after sessions only");
    if (rank == 0)
        printf("session_only: OK (%d ranks)\n", size);
    return 0;
}
