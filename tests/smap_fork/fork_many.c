/* smap_fork_many: 50 forks in a row (12 under AddressSanitizer, whose
 * shadow memory makes each fork ~0.4 s); every child allocates and frees,
 * checks it got the parent's current values, and exits with a code the
 * parent checks.  The parent's heap, globals and allocator stay intact.
 * Also run with SMAP_EXPOSE=none, where fork() is glibc's, and with argv[1]
 * "bypass": glibc's own fork is called (as daemon() or forkpty() would,
 * without our wrapper) with the stack not exposed, where the atfork
 * handlers alone must keep the child apart. */
#include "fork_common.h"

/* glibc's fork under its exported internal name: not our wrapper. */
extern pid_t __fork(void);

static volatile int g_iter;

#ifdef __SANITIZE_ADDRESS__
#define FORKS 12
#else
#define FORKS 50
#endif

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *list = malloc(FORKS * sizeof *list);
    CHECK(list != NULL, "malloc");
    int bypass = argc > 1 && strcmp(argv[1], "bypass") == 0;
    volatile int on_stack = 0;
    fork_expect_exposure(list, (const void *)&g_iter, (const void *)&on_stack);
    for (int i = 0; i < FORKS; i++) {
        g_iter = i;
        on_stack = i * 3;
        list[i] = i * 7 + rank;
        pid_t pid = bypass ? __fork() : fork();
        CHECK(pid >= 0, "fork %d: %s", i, strerror(errno));
        if (pid == 0) {
            CHILD_CHECK(g_iter == i && on_stack == i * 3, 10);
            for (int j = 0; j <= i; j++)
                CHILD_CHECK(list[j] == j * 7 + rank, 11);
            CHILD_CHECK(fork_alloc_workout(2000) == 0, 12);
            char *s = strdup("child");
            CHILD_CHECK(s != NULL, 13);
            free(s);
            g_iter = -1;
            on_stack = -1;
            list[i] = -1;
            _exit(0);
        }
        int st = 0;
        CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork %d: child status 0x%x", i, st);
        CHECK(g_iter == i && on_stack == i * 3 && list[i] == i * 7 + rank,
              "fork %d: parent memory changed", i);
        CHECK(fork_alloc_workout(500) == 0, "fork %d: parent allocator broken", i);
    }
    free(list);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Finalize());
    if (rank == 0)
        printf("smap_fork_many: ok\n");
    return 0;
}
