/* smap_fork_system_popen_spawn: the other ways a rank starts processes.
 * system(), popen() and posix_spawn() use CLONE_VM|CLONE_VFORK and exec at
 * once, so they must work unchanged; a fork child that execs a program
 * linked with libmpi (inheriting SMAP_* and PMI_*) must not disturb the
 * rank.  Each is checked for its result and for the parent's memory and
 * allocator afterwards, and system() also from a second thread.
 * argv[1]: the helper program (fork_spawn_helper). */
#include "fork_common.h"

#include <pthread.h>
#include <spawn.h>

extern char **environ;

static volatile long g_value;
static char *g_heap;
#define HEAP_LEN (64 << 10)

static void expect_intact(int rank, const char *after)
{
    CHECK(g_value == 600 + rank, "after %s: global %ld", after, g_value);
    for (size_t i = 0; i < HEAP_LEN; i++)
        CHECK(g_heap[i] == 'z', "after %s: heap changed at %zu", after, i);
    CHECK(fork_alloc_workout(3000) == 0, "after %s: allocator broken", after);
}

static void test_system(void)
{
    int st = system("exit 3");
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3, "system(exit 3) gave 0x%x", st);
    st = system("true");
    CHECK(st == 0, "system(true) gave 0x%x", st);
}

static void test_popen(void)
{
    FILE *p = popen("echo hello-from-popen", "r");
    CHECK(p != NULL, "popen: %s", strerror(errno));
    char buf[64] = "";
    CHECK(fgets(buf, sizeof buf, p) != NULL, "popen read");
    CHECK(strcmp(buf, "hello-from-popen\n") == 0, "popen read '%s'", buf);
    CHECK(pclose(p) == 0, "pclose");
}

static void spawn_and_wait(const char *path, char *const argv[], const char *what)
{
    pid_t pid;
    int rc = posix_spawn(&pid, path, NULL, NULL, argv, environ);
    CHECK(rc == 0, "posix_spawn %s: %s", path, strerror(rc));
    fork_expect_child_ok(pid, what);
}

static void test_spawn(const char *helper)
{
    char *t_argv[] = { "true", NULL };
    spawn_and_wait("/bin/true", t_argv, "posix_spawn /bin/true");
    char *h_argv[] = { (char *)helper, "spawned", NULL };
    spawn_and_wait(helper, h_argv, "posix_spawn of a libmpi program");
}

/* fork + exec of a libmpi program; its output comes back through a pipe. */
static void test_fork_exec(const char *helper)
{
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe");
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl(helper, helper, "exec-ok", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[64] = "";
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    fork_expect_child_ok(pid, "fork+exec of a libmpi program");
    CHECK(n > 0 && strncmp(buf, "exec-ok ", 8) == 0, "helper printed '%s'", buf);
}

static void *thread_system(void *arg)
{
    (void)arg;
    test_system();
    test_popen();
    return NULL;
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(argc > 1, "usage: %s helper", argv[0]);
    g_value = 600 + rank;
    g_heap = malloc(HEAP_LEN);
    CHECK(g_heap != NULL, "malloc");
    memset(g_heap, 'z', HEAP_LEN);
    volatile int here = 0;
    fork_expect_exposure(g_heap, (const void *)&g_value, (const void *)&here);

    test_system();
    expect_intact(rank, "system");
    test_popen();
    expect_intact(rank, "popen");
    test_spawn(argv[1]);
    expect_intact(rank, "posix_spawn");
    test_fork_exec(argv[1]);
    expect_intact(rank, "fork+exec");
    pthread_t t;
    CHECK(pthread_create(&t, NULL, thread_system, NULL) == 0, "pthread_create");
    CHECK(pthread_join(t, NULL) == 0, "pthread_join");
    expect_intact(rank, "system and popen from a thread");

    free(g_heap);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Finalize());
    if (rank == 0)
        printf("smap_fork_system_popen_spawn: ok\n");
    return 0;
}
