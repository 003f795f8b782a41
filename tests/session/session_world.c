/* Sessions beside the world model: a session before MPI_Init (finalized
 * before it, so the runtime stays up idle for MPI_Init), a session during
 * the world model that outlives MPI_Finalize and keeps working, and the
 * errors: invalid session handles, and a session after the library's
 * final teardown (smartmap does not restart: MPI_ERR_OTHER, cleanly). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "smap_test.h"

#define OK(call)                                                             \
    do {                                                                     \
        int rc_ = (call);                                                    \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);             \
    } while (0)

static int class_of(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static MPI_Comm from_world(MPI_Session s, const char *tag)
{
    MPI_Group g;
    OK(MPI_Group_from_session_pset(s, "mpi://world", &g));   /* names ignore case */
    MPI_Comm c;
    OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    OK(MPI_Group_free(&g));
    return c;
}

static void ring(MPI_Comm c)
{
    int rank, size, got = -1;
    OK(MPI_Comm_rank(c, &rank));
    OK(MPI_Comm_size(c, &size));
    OK(MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 3, &got, 1, MPI_INT,
                    (rank + size - 1) % size, 3, c, MPI_STATUS_IGNORE));
    CHECK(got == (rank + size - 1) % size, "ring got %d", got);
    int sum = 0;
    OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size - 1) / 2, "allreduce %d", sum);
}

int main(int argc, char **argv)
{
    /* 1. A session first, finalized before MPI_Init. */
    MPI_Session s;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Comm c = from_world(s, "first");
    ring(c);
    OK(MPI_Comm_free(&c));
    OK(MPI_Session_finalize(&s));

    int provided, flag;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided));
    CHECK(provided == MPI_THREAD_SERIALIZED, "provided %d", provided);
    MPI_Initialized(&flag);
    CHECK(flag, "MPI_Initialized false after MPI_Init");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ring(MPI_COMM_WORLD);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* Invalid sessions: MPI_ERR_SESSION on MPI_COMM_SELF's handler. */
    int n, x = 0;
    CHECK(class_of(MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n)) ==
              MPI_ERR_SESSION, "MPI_SESSION_NULL accepted");
    CHECK(class_of(MPI_Session_get_num_psets((MPI_Session)&x, MPI_INFO_NULL, &n)) ==
              MPI_ERR_SESSION, "a made-up session accepted");
    MPI_Session dead = MPI_SESSION_NULL;
    CHECK(class_of(MPI_Session_finalize(&dead)) == MPI_ERR_SESSION, "finalize of NULL session");
    CHECK(class_of(MPI_Session_init(MPI_INFO_NULL, MPI_ERRHANDLER_NULL, &dead)) == MPI_ERR_ARG,
          "MPI_ERRHANDLER_NULL accepted");
    MPI_Info bad;
    MPI_Info_create(&bad);
    MPI_Info_set(bad, "thread_level", "MPI_THREAD_SOMETIMES");
    CHECK(class_of(MPI_Session_init(bad, MPI_ERRORS_RETURN, &dead)) == MPI_ERR_INFO,
          "a bad thread_level accepted");
    MPI_Info_free(&bad);

    /* 2. A session during the world model; it outlives MPI_Finalize. */
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    c = from_world(s, "second");
    int cmp;
    OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "the pset's communicator compares %d with WORLD", cmp);
    ring(c);
    /* a user tag on WORLD beside the internal agreement's */
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm cg;
    OK(MPI_Comm_create_group(MPI_COMM_WORLD, wg, 0, &cg));
    ring(cg);
    MPI_Comm_free(&cg);
    MPI_Group_free(&wg);
    MPI_Finalize();
    MPI_Finalized(&flag);
    CHECK(flag, "MPI_Finalized false after MPI_Finalize");
    /* Rank 0 comes late to the session's collectives: rank 1 waits in
     * them past its spin phase for a rank that has been through
     * MPI_Finalize, which must not read as having left them (the live
     * session keeps it in). */
    if (rank == 0)
        usleep(300000);
    int one = 1, ranks = 0;
    OK(MPI_Allreduce(&one, &ranks, 1, MPI_INT, MPI_SUM, c));
    CHECK(ranks == size, "allreduce after MPI_Finalize: %d", ranks);
    ring(c);   /* the session keeps the library up */
    OK(MPI_Comm_free(&c));
    OK(MPI_Session_finalize(&s));

    /* 3. After the last user: no restart, an error and no crash. */
    int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    CHECK(class_of(rc) == MPI_ERR_OTHER, "a session after the final teardown gave %d", rc);
    if (rank == 0)
        printf("session_world: OK (%d ranks)\n", size);
    return 0;
}
