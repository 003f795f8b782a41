/* Helpers of the heap tests: where this rank's heap slot is, found from
 * /proc/self/maps by the memfd's name ("smartmap-heap"), and how much of the
 * memfd is allocated.  Plain C, also used by the C++ test. */
#ifndef SMAP_HEAP_TEST_H
#define SMAP_HEAP_TEST_H

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HT_SLOT_BASE ((uintptr_t)1 << 44)

/* Under AddressSanitizer ASan's malloc comes first: the heap must not be
 * exposed, and the tests assert that instead. */
#if defined(__SANITIZE_ADDRESS__)
#define HT_ASAN 1
#else
#define HT_ASAN 0
#endif

/* SMAP_HEAP_SLOT as config.c reads it (whole GiB, default 64G). */
static inline size_t ht_slot_size(void)
{
    const char *v = getenv("SMAP_HEAP_SLOT");
    if (!v || !*v)
        return (size_t)64 << 30;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    int shift = *end == 'G' ? 30 : *end == 'T' ? 40 : *end == 'M' ? 20 : 0;
    size_t sz = (size_t)x << shift;
    return (sz + ((size_t)1 << 30) - 1) & ~(((size_t)1 << 30) - 1);
}

static inline int ht_local_rank(void)
{
    const char *v = getenv("SMAP_LOCAL_RANK");
    return v ? atoi(v) : 0;
}

/* The expected slot of this process: base + local rank * slot size. */
static inline uintptr_t ht_expected_base(void)
{
    return HT_SLOT_BASE + (uintptr_t)ht_local_rank() * ht_slot_size();
}

/* The contiguous run of "smartmap-heap" VMAs that contains addr; returns 1
 * and [*lo, *hi), or 0 when addr is in none.  Also counts all such VMAs of
 * the process in *nvma when not NULL. */
static inline int ht_heap_range(uintptr_t addr, uintptr_t *lo, uintptr_t *hi, int *nvma)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    char line[512];
    unsigned long a[256], b[256];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "/memfd:smartmap-heap") && n < 256 &&
            sscanf(line, "%lx-%lx", &a[n], &b[n]) == 2)
            n++;
    fclose(f);
    if (nvma)
        *nvma = n;
    for (int i = 0; i < n; i++) {
        if (addr < a[i] || addr >= b[i])
            continue;
        int s = i, e = i;
        while (s > 0 && b[s - 1] == a[s])
            s--;
        while (e + 1 < n && a[e + 1] == b[e])
            e++;
        *lo = a[s];
        *hi = b[e];
        return 1;
    }
    return 0;
}

/* Number of "smartmap-heap" VMAs in this process. */
static inline int ht_heap_vmas(void)
{
    uintptr_t lo, hi;
    int n = 0;
    ht_heap_range(0, &lo, &hi, &n);
    return n;
}

/* This process's own heap memfd (found among its fds by name), or -1. */
static inline int ht_heap_fd(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int fd = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[300], target[256];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strncmp(target, "/memfd:smartmap-heap", 20) == 0) {
            fd = atoi(e->d_name);
            break;
        }
    }
    closedir(d);
    return fd;
}

/* Bytes of the memfd that hold pages. */
static inline long long ht_fd_bytes(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? (long long)st.st_blocks * 512 : -1;
}

#endif
