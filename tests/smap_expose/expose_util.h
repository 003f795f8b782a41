/* Helpers for the exposure tests: find the smartmap memfd mappings in
 * /proc/self/maps and their descriptors in /proc/self/fd, count VMAs, and
 * say whether this test was built with AddressSanitizer (heap and thread
 * stacks are then not exposed: ASan's malloc and pthread_create win). */
#ifndef SMAP_EXPOSE_UTIL_H
#define SMAP_EXPOSE_UTIL_H

#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smap_test.h"

#if defined(__SANITIZE_ADDRESS__)
#define EXPOSE_ASAN 1
#else
#define EXPOSE_ASAN 0
#endif

struct xmap {
    uintptr_t lo, hi;
    unsigned long long off;
};

/* Finds the mapping of memfd `name` ("smartmap-stack", ...) that contains
 * addr (addr 0: the first one).  Returns 1 when found. */
static inline int xmap_find(const char *name, uintptr_t addr, struct xmap *m)
{
    char want[64], line[512];
    snprintf(want, sizeof want, "/memfd:%s ", name);
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL, "cannot open /proc/self/maps");
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        unsigned long long off;
        if (sscanf(line, "%lx-%lx %*s %llx", &lo, &hi, &off) != 3 || !strstr(line, want))
            continue;
        if (addr == 0 || (addr >= lo && addr < hi)) {
            m->lo = lo;
            m->hi = hi;
            m->off = off;
            found = 1;
        }
    }
    fclose(f);
    return found;
}

static inline int xmap_contains(const char *name, const void *p)
{
    struct xmap m;
    return xmap_find(name, (uintptr_t)p, &m);
}

/* Whether addr is in any smartmap memfd mapping. */
static inline int xmap_in_any(const void *p)
{
    static const char *const names[] = { "smartmap-heap", "smartmap-data", "smartmap-stack",
                                         "smartmap-ctl" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (xmap_contains(names[i], p))
            return 1;
    return 0;
}

/* The descriptor of memfd `name` in this process, or -1. */
static inline int xmap_fd(const char *name)
{
    char want[64], path[300], target[256];
    snprintf(want, sizeof want, "/memfd:%s (deleted)", name);
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL, "cannot open /proc/self/fd");
    int fd = -1;
    struct dirent *e;
    while (fd < 0 && (e = readdir(d)) != NULL) {
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strcmp(target, want) == 0)
            fd = atoi(e->d_name);
    }
    closedir(d);
    return fd;
}

static inline int xmap_count_vmas(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL, "cannot open /proc/self/maps");
    int n = 0, c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

#endif
