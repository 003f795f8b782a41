/* probe.c — cache-line ping-pong probe of the machine's current state.
 *
 * Not an MPI program: two processes (fork) pinned to two CPUs of the
 * current affinity mask bounce one shared cache line (each side waits for its
 * value, then writes the next one) and report the one-way time in ns,
 * median of --trials trials of --round-trips round trips.  On the project VM
 * it reads about 25-33 ns in the normal state and 70-220 ns in the slow state
 * (docs: ../shared/notes/baseline-peers.md); scripts/bench.sh runs it before
 * every group of runs and flags the runs taken while it reads slow.
 *
 * Output: PROBE one_way_ns=<median> min_ns=<min> max_ns=<max> cpus=<a>,<b>
 * With fewer than two CPUs: PROBE one_way_ns=nan ... note=... (exit 0). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return sched_setaffinity(0, sizeof s, &s);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long trials = 5, rounds = 20000;
    int cpu_a = -1, cpu_b = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trials") && i + 1 < argc)
            trials = atol(argv[++i]);
        else if (!strcmp(argv[i], "--round-trips") && i + 1 < argc)
            rounds = atol(argv[++i]);
        else if (!strcmp(argv[i], "--cpus") && i + 1 < argc) {
            if (sscanf(argv[++i], "%d,%d", &cpu_a, &cpu_b) != 2) {
                fprintf(stderr, "probe: --cpus A,B\n");
                return 2;
            }
        } else {
            fprintf(stderr, "usage: probe [--trials N] [--round-trips N] [--cpus A,B]\n");
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    if (trials < 1 || trials > 1000 || rounds < 1) {
        fprintf(stderr, "probe: bad --trials/--round-trips\n");
        return 2;
    }
    if (cpu_a < 0) {
        cpu_set_t s;
        if (sched_getaffinity(0, sizeof s, &s) == 0) {
            for (int c = 0; c < CPU_SETSIZE && cpu_b < 0; c++) {
                if (!CPU_ISSET(c, &s))
                    continue;
                if (cpu_a < 0)
                    cpu_a = c;
                else
                    cpu_b = c;
            }
        }
    }
    if (cpu_a < 0 || cpu_b < 0) {
        printf("PROBE one_way_ns=nan min_ns=nan max_ns=nan cpus=%d note=fewer-than-2-cpus\n", cpu_a);
        return 0;
    }

    /* One cache line, shared by the two processes. */
    void *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        perror("probe: mmap");
        return 1;
    }
    _Atomic uint64_t *line = mem;
    atomic_store(line, 0);
    long total = trials * rounds;

    pid_t child = fork();
    if (child < 0) {
        perror("probe: fork");
        return 1;
    }
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        alarm(30);
        if (pin(cpu_b))
            _exit(3);
        for (uint64_t k = 0; k < (uint64_t)total; k++) {
            while (atomic_load_explicit(line, memory_order_acquire) != 2 * k + 1)
                ;
            atomic_store_explicit(line, 2 * k + 2, memory_order_release);
        }
        _exit(0);
    }
    alarm(30);
    if (pin(cpu_a)) {
        fprintf(stderr, "probe: cannot pin to cpu %d: %s\n", cpu_a, strerror(errno));
        kill(child, SIGKILL);
        return 1;
    }
    double *t = calloc((size_t)trials, sizeof *t);
    uint64_t k = 0;
    /* A short untimed warm-up lets both sides settle on their CPUs. */
    for (long tr = 0; tr < trials; tr++) {
        double t0 = now_ns();
        for (long r = 0; r < rounds; r++, k++) {
            atomic_store_explicit(line, 2 * k + 1, memory_order_release);
            while (atomic_load_explicit(line, memory_order_acquire) != 2 * k + 2)
                ;
        }
        t[tr] = (now_ns() - t0) / (2.0 * (double)rounds);
    }
    int st = 0;
    waitpid(child, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "probe: partner process failed (status %d)\n", st);
        return 1;
    }
    qsort(t, (size_t)trials, sizeof *t, cmp_double);
    printf("PROBE one_way_ns=%.1f min_ns=%.1f max_ns=%.1f cpus=%d,%d trials=%ld round_trips=%ld\n",
           t[trials / 2], t[0], t[trials - 1], cpu_a, cpu_b, trials, rounds);
    free(t);
    return 0;
}
