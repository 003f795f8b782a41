/* MPI_THREAD_MULTIPLE, after MPICH's threads/comm/comm_create_group_threads
 * and comm_create_group_threads2 (issue 36): four threads per rank create
 * communicators with MPI_Comm_create_group at once, told apart by their
 * tag (the thread's number).
 *   own:  thread t on its own duplicate of WORLD, the whole group, then a
 *         dup of MPI_COMM_SELF under an application mutex;
 *   same: every thread on MPI_COMM_WORLD itself, first the lower half of
 *         the ranks (0 .. size/2, so groups overlap), then all of them.
 * Used to hang in the context-id agreement.  argv[1]: own or same;
 * argv[2]: rounds (default 8). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

enum { NT = 4 };
static MPI_Comm comms[NT];
static pthread_mutex_t app_lock = PTHREAD_MUTEX_INITIALIZER;
static int rank, size, rounds = 8;

/* The new communicator is g's: an allreduce of ranks of WORLD over it sums
 * the members' ranks. */
static void check_comm(MPI_Comm c, MPI_Group g, int t, int i)
{
    int n, me, want = 0, got = 0;
    MPI_Group_size(g, &n);
    MPI_Group_rank(g, &me);
    int cs, cr;
    CHECK_RC(MPI_Comm_size(c, &cs));
    CHECK_RC(MPI_Comm_rank(c, &cr));
    CHECK(cs == n && cr == me, "thread %d round %d: size %d rank %d, want %d %d", t, i, cs, cr,
          n, me);
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int k = 0; k < n; k++) {
        int w;
        MPI_Group_translate_ranks(g, 1, &k, wg, &w);
        want += w;
    }
    MPI_Group_free(&wg);
    CHECK_RC(MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, c));
    CHECK(got == want, "thread %d round %d: sum of ranks %d, want %d", t, i, got, want);
}

static void create_check_free(MPI_Comm parent, MPI_Group g, int t, int i)
{
    MPI_Comm c;
    CHECK_RC(MPI_Comm_create_group(parent, g, t, &c));
    CHECK(c != MPI_COMM_NULL, "thread %d round %d: MPI_COMM_NULL", t, i);
    check_comm(c, g, t, i);
    CHECK_RC(MPI_Comm_free(&c));
}

static void *own_parent(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < rounds; i++) {
        MPI_Group g;
        CHECK_RC(MPI_Comm_group(comms[t], &g));
        create_check_free(comms[t], g, t, i);
        MPI_Group_free(&g);
        MPI_Comm self_dup;
        pthread_mutex_lock(&app_lock);
        CHECK_RC(MPI_Comm_dup(MPI_COMM_SELF, &self_dup));
        pthread_mutex_unlock(&app_lock);
        CHECK_RC(MPI_Barrier(self_dup));
        CHECK_RC(MPI_Comm_free(&self_dup));
    }
    return NULL;
}

static void *same_parent(void *arg)
{
    int t = (int)(long)arg;
    MPI_Group world, half;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int range[1][3] = {{0, size / 2, 1}};
    MPI_Group_range_incl(world, 1, range, &half);
    for (int i = 0; i < rounds; i++) {
        if (rank <= size / 2)
            create_check_free(MPI_COMM_WORLD, half, t, i);
        create_check_free(MPI_COMM_WORLD, world, t, i);
    }
    MPI_Group_free(&half);
    MPI_Group_free(&world);
    return NULL;
}

static void run(void *(*fn)(void *))
{
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, fn, (void *)(long)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc > 1, "usage: comm_create_group_threads own|same [rounds]");
    int own = !strcmp(argv[1], "own");
    CHECK(own || !strcmp(argv[1], "same"), "unknown pattern %s", argv[1]);
    if (argc > 2)
        rounds = atoi(argv[2]);
    if (own) {
        for (int t = 0; t < NT; t++)
            CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
        run(own_parent);
        for (int t = 0; t < NT; t++)
            CHECK_RC(MPI_Comm_free(&comms[t]));
    } else {
        run(same_parent);
    }
    if (rank == 0)
        printf("comm_create_group_threads %s: ok (%d rounds)\n", argv[1], rounds);
    MPI_Finalize();
    return 0;
}
