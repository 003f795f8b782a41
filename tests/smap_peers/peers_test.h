/* Shared helpers of the peer-attachment tests.
 *
 * Addresses are exchanged through one small file per rank in the job's
 * session directory (smrun creates and removes it): with ASLR on, a peer's
 * globals and stack sit at addresses we cannot guess, and the translation
 * needs the peer's own address.  smap_node_barrier() orders the writes
 * before the reads.
 *
 * What is exposed depends on the build: under AddressSanitizer the heap is
 * never exposed (ASan's malloc comes first) and data/stack may not be, so
 * the tests look at their own /proc/self/maps: a kind is exposed when a
 * "/memfd:smartmap-<kind>" mapping exists (all ranks run the same binary,
 * so a peer exposes the same kinds). */
#ifndef SMAP_PEERS_TEST_H
#define SMAP_PEERS_TEST_H

#define _GNU_SOURCE
#include <smartmap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smap_test.h"

#ifdef __SANITIZE_ADDRESS__
#define PEERS_ASAN 1
#else
#define PEERS_ASAN 0
#endif

#define PEERS_MAXADDR 16

struct peer_info {
    long pid;
    int n;
    uintptr_t addr[PEERS_MAXADDR];
};

static const char *session_dir(void)
{
    const char *d = getenv("SMAP_SESSION_DIR");
    CHECK(d && *d, "SMAP_SESSION_DIR is not set (run under smrun)");
    return d;
}

static void info_path(char *buf, size_t len, const char *tag, int lr)
{
    snprintf(buf, len, "%s/%s.%d", session_dir(), tag, lr);
}

/* Publishes pid and addresses; complete before the next node barrier. */
static inline void info_write(const char *tag, int lr, const uintptr_t *addr, int n)
{
    char path[512], tmp[520];
    info_path(path, sizeof path, tag, lr);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    CHECK(f != NULL, "cannot create %s", tmp);
    fprintf(f, "%ld %d", (long)getpid(), n);
    for (int i = 0; i < n; i++)
        fprintf(f, " %lx", (unsigned long)addr[i]);
    fprintf(f, "\n");
    CHECK(fclose(f) == 0, "cannot write %s", tmp);
    CHECK(rename(tmp, path) == 0, "cannot rename %s", tmp);
}

static inline struct peer_info info_read(const char *tag, int lr)
{
    char path[512];
    struct peer_info pi;
    memset(&pi, 0, sizeof pi);
    info_path(path, sizeof path, tag, lr);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    CHECK(fscanf(f, "%ld %d", &pi.pid, &pi.n) == 2 && pi.n <= PEERS_MAXADDR, "bad %s", path);
    for (int i = 0; i < pi.n; i++) {
        unsigned long a;
        CHECK(fscanf(f, " %lx", &a) == 1, "bad %s", path);
        pi.addr[i] = a;
    }
    fclose(f);
    return pi;
}

/* Range [lo, hi) of the mapping named "/memfd:smartmap-<kind>" that holds
 * addr (pieces of the same file at consecutive offsets merged: flags may
 * split one region; heap slots of neighbouring ranks touch but are other
 * files), or 0 when addr is not in such a mapping. */
static inline int region_of(uintptr_t addr, const char *kind, uintptr_t *lo, uintptr_t *hi)
{
    char want[64], line[512];
    snprintf(want, sizeof want, "/memfd:smartmap-%s", kind);
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL, "cannot read /proc/self/maps");
    uintptr_t clo = 0, chi = 0;
    unsigned long long cino = 0, cend = 0;
    int found = 0, run = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        unsigned long long off, ino;
        if (sscanf(line, "%lx-%lx %*s %llx %*s %llu", &a, &b, &off, &ino) != 4)
            continue;
        int named = strstr(line, want) != NULL;
        if (named && run && a == chi && ino == cino && off == cend) {
            chi = b;        /* continuation of the same region */
        } else {
            if (found)
                break;
            run = named;
            clo = a, chi = b, cino = ino;
        }
        cend = off + (b - a);
        if (run && addr >= clo && addr < chi)
            found = 1;
    }
    fclose(f);
    if (found && lo)
        *lo = clo, *hi = chi;
    return found;
}

/* Waits (at most 30 s) until the session file tag.lr exists. */
static inline void wait_file(const char *tag, int lr)
{
    char path[512];
    info_path(path, sizeof path, tag, lr);
    for (int i = 0; i < 3000 && access(path, F_OK) != 0; i++)
        usleep(10000);
    CHECK(access(path, F_OK) == 0, "%s did not appear", path);
}

/* This process exposes that kind at all. */
static inline int kind_exposed(const char *kind)
{
    char want[64], line[512];
    snprintf(want, sizeof want, "/memfd:smartmap-%s", kind);
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL, "cannot read /proc/self/maps");
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, want) != NULL;
    fclose(f);
    return found;
}

static inline int count_maps(const char *needle)
{
    char line[512];
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL, "cannot read /proc/self/maps");
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += needle == NULL || strstr(line, needle) != NULL;
    fclose(f);
    return n;
}

#endif
