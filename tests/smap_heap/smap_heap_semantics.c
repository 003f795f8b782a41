/* What changes for the application when its heap is a shared memfd
 * (findings §3.11), asserted so that docs/smartmap-heap.md stays true:
 *  - MADV_DONTNEED on heap memory does not zero it (the file keeps the
 *    page; only this process's mapping of it is dropped);
 *  - MADV_FREE fails with EINVAL (shared mapping);
 *  - reading never-written heap memory allocates it.
 * Under AddressSanitizer the heap is private anonymous memory again, and
 * the usual Linux semantics hold: assert those instead. */
#define _GNU_SOURCE
#include "heap_test.h"
#include "smap_test.h"

#include <errno.h>
#include <sys/mman.h>

#ifndef MADV_FREE
#define MADV_FREE 8
#endif

int main(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *buf = malloc(4 << 20);
    CHECK(buf != NULL, "malloc");
    char *pg = (char *)(((uintptr_t)buf + page - 1) & ~(uintptr_t)(page - 1));
    memset(pg, 7, page);
    CHECK(madvise(pg, page, MADV_DONTNEED) == 0, "MADV_DONTNEED: %s", strerror(errno));
    int after_dontneed = ((volatile char *)pg)[100];
    errno = 0;
    int free_rc = madvise(pg, page, MADV_FREE), free_errno = errno;

    if (HT_ASAN) {
        CHECK(ht_heap_vmas() == 0, "ASan build: the heap must not be exposed");
        CHECK(after_dontneed == 0, "private memory: DONTNEED must zero (read %d)", after_dontneed);
        CHECK(free_rc == 0, "private memory: MADV_FREE must work (%s)", strerror(free_errno));
        printf("semantics: ASan build, private heap: DONTNEED zeroes, MADV_FREE works\n");
        free(buf);
        return 0;
    }
    CHECK(after_dontneed == 7, "heap slot: DONTNEED must keep the data (read %d)", after_dontneed);
    CHECK(free_rc == -1 && free_errno == EINVAL, "heap slot: MADV_FREE must fail EINVAL (rc %d, %s)",
          free_rc, strerror(free_errno));

    int fd = ht_heap_fd();
    CHECK(fd >= 0, "no heap memfd");
    size_t n = (size_t)64 << 20;
    unsigned char *z = calloc(1, n);
    CHECK(z != NULL, "calloc");
    long long b0 = ht_fd_bytes(fd);
    unsigned long sum = 0;
    for (size_t i = 0; i < n; i += page)
        sum += ((volatile unsigned char *)z)[i];
    long long b1 = ht_fd_bytes(fd);
    CHECK(sum == 0, "calloc memory not zero");
    CHECK(b1 - b0 >= (long long)(n - (n >> 4)), "reading 64 MiB of holes allocated only %lld KiB",
          (b1 - b0) >> 10);
    printf("semantics (local rank %d): DONTNEED keeps data, MADV_FREE EINVAL, reading 64 MiB "
           "of holes allocated %lld MiB\n",
           ht_local_rank(), (b1 - b0) >> 20);
    free(z);
    free(buf);
    return 0;
}
