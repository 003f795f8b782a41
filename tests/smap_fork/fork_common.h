/* Shared helpers of the smap_fork tests: which of this process's memory is
 * an exposed (memfd-backed) region, checks on a fork child's exit status and
 * a small allocator workout. */
#ifndef SMAP_FORK_COMMON_H
#define SMAP_FORK_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "smap_test.h"

/* 1 when addr lies in a mapping of one of smartmap's memfds
 * ("/memfd:smartmap-heap (deleted)", ...), 0 otherwise. */
static inline int fork_addr_exposed(const void *addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL, "cannot open /proc/self/maps");
    char line[512];
    int found = 0;
    uintptr_t a = (uintptr_t)addr;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
            continue;
        if (a >= lo && a < hi) {
            found = strstr(line, "/memfd:smartmap-") != NULL;
            break;
        }
    }
    fclose(f);
    return found;
}

/* Number of smartmap memfd mappings in this process (own regions and peer
 * views alike). */
static inline int fork_count_smap_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL, "cannot open /proc/self/maps");
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "/memfd:smartmap-"))
            n++;
    fclose(f);
    return n;
}

/* True when SMAP_EXPOSE (unset: all) names `what` or "all". */
static inline int fork_expose_wants(const char *what)
{
    const char *e = getenv("SMAP_EXPOSE");
    return !e || strstr(e, "all") || strstr(e, what);
}

/* Asserts what this process exposes: what SMAP_EXPOSE asks for, except the
 * heap under AddressSanitizer (whose malloc interposes first). */
static inline void fork_expect_exposure(const void *heap, const void *global, const void *stack)
{
#ifdef __SANITIZE_ADDRESS__
    int heap_expected = 0;
#else
    int heap_expected = fork_expose_wants("heap");
#endif
    CHECK(fork_addr_exposed(heap) == heap_expected, "heap %p: exposed %d, expected %d", heap,
          fork_addr_exposed(heap), heap_expected);
    CHECK(fork_addr_exposed(global) == fork_expose_wants("data"), "global %p: exposed %d", global,
          fork_addr_exposed(global));
    CHECK(fork_addr_exposed(stack) == fork_expose_wants("stack"), "stack %p: exposed %d", stack,
          fork_addr_exposed(stack));
}

/* Mixed malloc/realloc/free, contents checked: a corrupted allocator
 * crashes or trips a check here. */
static inline int fork_alloc_workout(int rounds)
{
    void *p[64] = { 0 };
    size_t sz[64] = { 0 };
    unsigned seed = 12345;
    for (int i = 0; i < rounds; i++) {
        seed = seed * 1103515245u + 12345u;
        int k = (int)((seed >> 16) % 64);
        if (p[k]) {
            unsigned char *c = p[k];
            for (size_t j = 0; j < sz[k]; j += 97)
                if (c[j] != (unsigned char)k)
                    return -1;
            free(p[k]);
            p[k] = NULL;
        } else {
            sz[k] = 1 + (seed >> 8) % (i % 10 == 0 ? 300000 : 2000);
            p[k] = malloc(sz[k]);
            if (!p[k])
                return -1;
            memset(p[k], k, sz[k]);
        }
    }
    for (int k = 0; k < 64; k++)
        free(p[k]);
    return 0;
}

/* Waits for pid and asserts it exited with status 0. */
static inline void fork_expect_child_ok(pid_t pid, const char *what)
{
    int st = 0;
    pid_t w;
    while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    CHECK(w == pid, "%s: waitpid: %s", what, strerror(errno));
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: child status 0x%x (exit %d, signal %d)",
          what, st, WIFEXITED(st) ? WEXITSTATUS(st) : -1, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* In a fork child: report a failure through the exit code (no MPI). */
#define CHILD_CHECK(cond, code)                                                   \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "FAIL child of pid %d %s:%d: %s\n", (int)getppid(),   \
                    __FILE__, __LINE__, #cond);                                   \
            _exit(code);                                                          \
        }                                                                         \
    } while (0)

#endif
