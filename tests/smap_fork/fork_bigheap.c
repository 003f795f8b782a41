/* smap_fork_bigheap: fork() with 256 MiB of touched heap.  The child sees
 * all of it (sampled on every page), its writes stay private; the parent
 * prints how long fork() took (it waits while the child copies). */
#include "fork_common.h"

#include <time.h>

static volatile int g_marker = 1;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned char pattern(size_t i, int rank)
{
    return (unsigned char)((i >> 12) * 31u + (unsigned)rank * 7u + 1u);
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
    size_t len = mib << 20;
    unsigned char *h = malloc(len);
    CHECK(h != NULL, "malloc %zu MiB", mib);
    volatile int here = 0;
    fork_expect_exposure(h, (const void *)&g_marker, (const void *)&here);
    for (size_t i = 0; i < len; i += 4096)
        memset(h + i, pattern(i, rank), 4096);

    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        for (size_t i = 0; i < len; i += 4096) {
            CHILD_CHECK(h[i] == pattern(i, rank), 10);
            CHILD_CHECK(h[i + 4095] == pattern(i, rank), 11);
        }
        CHILD_CHECK(g_marker == 1, 12);
        memset(h, 0, len);
        g_marker = 2;
        _exit(0);
    }
    double t1 = now();
    CHECK(pid > 0, "fork: %s", strerror(errno));
    fork_expect_child_ok(pid, "bigheap child");
    for (size_t i = 0; i < len; i += 4096)
        CHECK(h[i] == pattern(i, rank) && h[i + 4095] == pattern(i, rank),
              "parent heap changed at %zu", i);
    CHECK(g_marker == 1, "parent global changed by the child");
    printf("smap_fork_bigheap: rank %d: fork() with %zu MiB of heap took %.1f ms\n", rank, mib,
           (t1 - t0) * 1e3);
    free(h);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Finalize());
    return 0;
}
