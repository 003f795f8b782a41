/* smap_fork: the cost of fork() in a rank, against the amount of touched
 * heap.  With the heap exposed, the child copies the populated part of it
 * (and the globals and stack) before the parent's fork() returns, so the
 * time grows with the heap; without exposure it is glibc's fork.
 *
 * Usage: smrun -n 2 smap_fork [--quick] [--reps N]
 * Rank 0 measures (the other ranks wait, so the cores are quiet); it prints
 * one row per heap size: median and min of fork() as seen by the parent,
 * and of fork()+waitpid() for a child that exits at once. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One measurement: fork() return time in the parent, and until reaped. */
static int one_fork(double *t_fork, double *t_total)
{
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    double t1 = now_ms();
    if (pid < 0)
        return -1;
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    *t_fork = t1 - t0;
    *t_total = now_ms() - t0;
    return 0;
}

static int measure(size_t mib, int reps)
{
    size_t len = mib << 20;
    char *h = len ? malloc(len) : NULL;
    if (len && !h) {
        fprintf(stderr, "smap_fork: cannot allocate %zu MiB\n", mib);
        return -1;
    }
    for (size_t i = 0; i < len; i += 4096)
        h[i] = (char)i;  /* populate every page */
    double tf[64], tt[64];
    for (int r = 0; r < reps; r++)
        if (one_fork(&tf[r], &tt[r]) != 0) {
            fprintf(stderr, "smap_fork: fork failed\n");
            free(h);
            return -1;
        }
    qsort(tf, (size_t)reps, sizeof tf[0], cmp_double);
    qsort(tt, (size_t)reps, sizeof tt[0], cmp_double);
    printf("%10zu %12.2f %12.2f %14.2f %8.3f\n", mib, tf[reps / 2], tf[0], tt[reps / 2],
           mib ? tf[reps / 2] / (double)mib : 0.0);
    free(h);
    return 0;
}

int main(int argc, char **argv)
{
    int quick = 0, reps = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--quick] [--reps N]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > 64)
        reps = 5;
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static const size_t full[] = { 0, 16, 64, 256 };
    static const size_t small[] = { 0, 4 };
    const size_t *sizes = quick ? small : full;
    int nsizes = quick ? 2 : 4;
    if (quick)
        reps = 1;
    int rc = 0;
    if (rank == 0) {
        printf("# fork() cost in rank 0 (SMAP_EXPOSE=%s), %d reps\n",
               getenv("SMAP_EXPOSE") ? getenv("SMAP_EXPOSE") : "default", reps);
        printf("%10s %12s %12s %14s %8s\n", "heap_MiB", "fork_med_ms", "fork_min_ms",
               "fork+wait_ms", "ms/MiB");
        for (int i = 0; i < nsizes && rc == 0; i++)
            rc = measure(sizes[i], reps);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return rc ? 1 : 0;
}
