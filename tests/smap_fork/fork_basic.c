/* smap_fork_basic: fork() in a rank whose heap, globals and stack are
 * exposed.  The child sees the parent's values at fork time and owns private
 * copies (its writes are invisible to the parent and the parent's later
 * writes invisible to it, it maps no smartmap memory any more); the parent's
 * stack, globals and allocator are intact afterwards and its peers still
 * read its memory.  Also _Fork(), which runs no atfork handlers.
 * argv[1]: a directory for swapping addresses with the peer. */
#include "fork_common.h"

#include <smartmap.h>
#include <sys/stat.h>

static volatile long g_value = 1000;
static char g_bss[1 << 16];

#define HEAP_LEN (1 << 20)

static void fill(char *p, size_t n, char c)
{
    memset(p, c, n);
}

static int all_are(const volatile char *p, size_t n, char c)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != c)
            return 0;
    return 1;
}

static void xwrite(int fd)
{
    char c = 1;
    CHILD_CHECK(write(fd, &c, 1) == 1, 90);
}

static void xread(int fd)
{
    char c;
    CHILD_CHECK(read(fd, &c, 1) == 1, 91);
}

/* The child: checks the snapshot, writes its own values, lets the parent
 * write, checks its values did not change, works the allocator. */
static void child(volatile long *stack_val, volatile char *stack_buf, char *heap, int rank,
                  int to_parent, int from_parent)
{
    CHILD_CHECK(*stack_val == 42 + rank, 10);
    CHILD_CHECK(all_are(stack_buf, 4096, 's'), 11);
    CHILD_CHECK(g_value == 2000 + rank, 12);
    CHILD_CHECK(all_are(g_bss, sizeof g_bss, 'b'), 13);
    CHILD_CHECK(all_are(heap, HEAP_LEN, 'h'), 14);
    CHILD_CHECK(fork_count_smap_mappings() == 0, 15);
    *stack_val = -1;
    memset((char *)stack_buf, 'C', 4096);
    g_value = -1;
    fill(g_bss, sizeof g_bss, 'C');
    fill(heap, HEAP_LEN, 'C');
    xwrite(to_parent);
    xread(from_parent);
    CHILD_CHECK(*stack_val == -1, 20);
    CHILD_CHECK(all_are(stack_buf, 4096, 'C'), 21);
    CHILD_CHECK(g_value == -1, 22);
    CHILD_CHECK(all_are(g_bss, sizeof g_bss, 'C'), 23);
    CHILD_CHECK(all_are(heap, HEAP_LEN, 'C'), 24);
    CHILD_CHECK(fork_alloc_workout(20000) == 0, 25);
    free(heap);
    _exit(0);
}

static void test_fork(int rank, char *heap)
{
    volatile long stack_val = 42 + rank;
    volatile char stack_buf[4096];
    memset((char *)stack_buf, 's', sizeof stack_buf);
    int up[2], down[2];
    CHECK(pipe(up) == 0 && pipe(down) == 0, "pipe");
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0)
        child(&stack_val, stack_buf, heap, rank, up[1], down[0]);
    char c;
    CHECK(read(up[0], &c, 1) == 1, "child did not report (it failed or died)");
    /* The child has written everything: none of it may show here. */
    CHECK(stack_val == 42 + rank, "stack value %ld", stack_val);
    CHECK(all_are(stack_buf, sizeof stack_buf, 's'), "stack buffer changed by the child");
    CHECK(g_value == 2000 + rank, "global %ld", g_value);
    CHECK(all_are(g_bss, sizeof g_bss, 'b'), ".bss changed by the child");
    CHECK(all_are(heap, HEAP_LEN, 'h'), "heap changed by the child");
    stack_val = 7;
    memset((char *)stack_buf, 'P', sizeof stack_buf);
    g_value = 3000 + rank;
    fill(g_bss, sizeof g_bss, 'P');
    fill(heap, HEAP_LEN, 'P');
    CHECK(write(down[1], &c, 1) == 1, "pipe write");
    fork_expect_child_ok(pid, "fork child");
    CHECK(stack_val == 7 && all_are(stack_buf, sizeof stack_buf, 'P'), "parent stack");
    CHECK(g_value == 3000 + rank && all_are(g_bss, sizeof g_bss, 'P'), "parent globals");
    CHECK(all_are(heap, HEAP_LEN, 'P'), "parent heap");
    close(up[0]); close(up[1]); close(down[0]); close(down[1]);
}

/* _Fork runs no atfork handlers: the wrapper must still privatise.  The
 * child only reads, writes and _exits (async-signal-safe only). */
static void test_underscore_fork(int rank, char *heap)
{
    volatile long stack_val = 5 + rank;
    fill(heap, HEAP_LEN, 'u');
    g_value = 4000 + rank;
    pid_t pid = _Fork();
    CHECK(pid >= 0, "_Fork: %s", strerror(errno));
    if (pid == 0) {
        int bad = stack_val != 5 + rank || g_value != 4000 + rank || !all_are(heap, HEAP_LEN, 'u');
        stack_val = -5;
        g_value = -5;
        memset(heap, 'X', HEAP_LEN);
        _exit(bad ? 30 : 0);
    }
    fork_expect_child_ok(pid, "_Fork child");
    CHECK(stack_val == 5 + rank, "stack value after _Fork %ld", stack_val);
    CHECK(g_value == 4000 + rank, "global after _Fork %ld", g_value);
    CHECK(all_are(heap, HEAP_LEN, 'u'), "heap changed by the _Fork child");
}

/* Publishes this rank's &g_value and heap in dir/addr.<rank> and reads the
 * peer's (there is no point-to-point yet to do it with). */
static void exchange_addresses(const char *dir, int rank, int peer, void **g, void **h, char *heap)
{
    char path[4096];
    (void)mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/addr.%d", dir, rank);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    fprintf(f, "%p %p\n", (void *)&g_value, (void *)heap);
    CHECK(fclose(f) == 0, "write %s", path);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    snprintf(path, sizeof path, "%s/addr.%d", dir, peer);
    f = fopen(path, "r");
    CHECK(f != NULL && fscanf(f, "%p %p", g, h) == 2, "cannot read %s", path);
    fclose(f);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    snprintf(path, sizeof path, "%s/addr.%d", dir, rank);
    unlink(path);
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    volatile long here = 0;
    char *heap = malloc(HEAP_LEN);
    CHECK(heap != NULL, "malloc");
    fork_expect_exposure(heap, (const void *)&g_value, (const void *)&here);
    fill(heap, HEAP_LEN, 'h');
    fill(g_bss, sizeof g_bss, 'b');
    g_value = 2000 + rank;

    test_fork(rank, heap);
    CHECK(fork_alloc_workout(20000) == 0, "parent allocator broken after fork");
    test_underscore_fork(rank, heap);
    CHECK(fork_alloc_workout(20000) == 0, "parent allocator broken after _Fork");

    /* The parent is still a rank: its peers read its globals and heap
     * directly.  Addresses are swapped through files in argv[1]. */
    g_value = 5000 + rank;
    int peer = (smap_local_rank() + 1) % smap_local_size();
    void *peer_g, *peer_h;
    exchange_addresses(argc > 1 ? argv[1] : ".", rank, (rank + 1) % size, &peer_g, &peer_h, heap);
    volatile long *pv = smap_remote(peer, peer_g, sizeof g_value);
    CHECK(pv != NULL, "peer %d's global is not reachable after fork", peer);
    CHECK(*pv == 5000 + (rank + 1) % size, "peer's global reads %ld", *pv);
    const char *ph = smap_remote(peer, peer_h, HEAP_LEN);
#ifdef __SANITIZE_ADDRESS__
    CHECK(ph == NULL, "peer heap reachable under ASan");
#else
    CHECK(ph != NULL && all_are(ph, HEAP_LEN, 'u'), "peer %d's heap not readable after fork", peer);
#endif
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    free(heap);
    CHECK_RC(MPI_Finalize());
    if (rank == 0)
        printf("smap_fork_basic: ok\n");
    return 0;
}
