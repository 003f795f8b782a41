/* smap_fork_thread: fork() from a second thread while the main thread is
 * blocked.  With thread stacks exposed, the forking thread runs on a stack in
 * the heap slot; the child must still get private copies of that stack, the
 * main thread's stack, the heap and the globals, and the parent's threads
 * must be intact afterwards. */
#include "fork_common.h"

#include <pthread.h>

static volatile long g_value;

struct arg {
    volatile long *main_stack_val;
    char *heap;
    int rank;
    int status;         /* 0 when everything checked out */
};

#define HEAP_LEN (256 << 10)

static int heap_is(const char *h, char c)
{
    for (size_t i = 0; i < HEAP_LEN; i++)
        if (h[i] != c)
            return 0;
    return 1;
}

static void *forker(void *p)
{
    struct arg *a = p;
    a->status = 0;
    volatile long thread_val = 77 + a->rank;
    char *theap = malloc(4096);
    memset(theap, 't', 4096);
#ifdef __SANITIZE_ADDRESS__
    int stack_expected = 0;   /* ASan's pthread_create comes first */
#else
    int stack_expected = fork_expose_wants("threads") && fork_expose_wants("heap");
#endif
    if (fork_addr_exposed((const void *)&thread_val) != stack_expected) {
        fprintf(stderr, "thread stack exposed %d, expected %d\n",
                fork_addr_exposed((const void *)&thread_val), stack_expected);
        a->status = 5;
        return NULL;
    }
    pid_t pid = fork();
    if (pid < 0) {
        a->status = 1;
        return NULL;
    }
    if (pid == 0) {
        CHILD_CHECK(thread_val == 77 + a->rank, 10);
        CHILD_CHECK(*a->main_stack_val == 11 + a->rank, 11);
        CHILD_CHECK(g_value == 300 + a->rank, 12);
        CHILD_CHECK(heap_is(a->heap, 'm'), 13);
        CHILD_CHECK(theap[0] == 't' && theap[4095] == 't', 14);
        CHILD_CHECK(fork_count_smap_mappings() == 0, 15);
        thread_val = -1;
        *a->main_stack_val = -1;
        g_value = -1;
        memset(a->heap, 'C', HEAP_LEN);
        memset(theap, 'C', 4096);
        CHILD_CHECK(fork_alloc_workout(5000) == 0, 16);
        _exit(0);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "child of the thread: status 0x%x\n", st);
        a->status = 2;
    } else if (thread_val != 77 + a->rank || theap[0] != 't' || theap[4095] != 't') {
        a->status = 3;
    } else if (fork_alloc_workout(5000) != 0) {
        a->status = 4;
    }
    free(theap);
    return NULL;
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    volatile long main_stack_val = 11 + rank;
    char canary[8192];
    memset(canary, 'k', sizeof canary);
    g_value = 300 + rank;
    char *heap = malloc(HEAP_LEN);
    CHECK(heap != NULL, "malloc");
    memset(heap, 'm', HEAP_LEN);
    fork_expect_exposure(heap, (const void *)&g_value, (const void *)&main_stack_val);

    for (int round = 0; round < 3; round++) {
        struct arg a = { &main_stack_val, heap, rank, -1 };
        pthread_t t;
        CHECK(pthread_create(&t, NULL, forker, &a) == 0, "pthread_create");
        /* The main thread stays blocked here while the thread forks. */
        CHECK(pthread_join(t, NULL) == 0, "pthread_join");
        CHECK(a.status == 0, "round %d: forking thread reported %d", round, a.status);
        CHECK(main_stack_val == 11 + rank, "main stack value %ld", main_stack_val);
        CHECK(g_value == 300 + rank, "global %ld", g_value);
        CHECK(heap_is(heap, 'm'), "heap changed by the child");
        for (size_t i = 0; i < sizeof canary; i++)
            CHECK(canary[i] == 'k', "main stack canary changed at %zu", i);
    }
    CHECK(fork_alloc_workout(20000) == 0, "parent allocator broken after fork");
    free(heap);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Finalize());
    if (rank == 0)
        printf("smap_fork_thread: ok\n");
    return 0;
}
