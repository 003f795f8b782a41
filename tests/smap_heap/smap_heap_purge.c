/* Freed heap memory really returns to the system (findings §3.3): the
 * memfd behind the slot shrinks (holes are punched) once 256 MiB that were
 * allocated and written are freed, and so do 200 MiB of small objects.
 *   smap_heap_purge trim    free + malloc_trim(0), which purges at once
 *   smap_heap_purge decay   free only, with MALLOC_CONF=dirty_decay_ms:0
 * Under AddressSanitizer there is no heap memfd: assert that, and that the
 * same allocations and malloc_trim work. */
#define _GNU_SOURCE
#include "heap_test.h"
#include "smap_test.h"

#include <malloc.h>

#define MiB (1024LL * 1024)
#define SMALL_N 200000
#define SMALL_SZ 1000

static void release(int trim)
{
    if (trim)
        CHECK(malloc_trim(0) == 1 || HT_ASAN, "malloc_trim(0) released nothing");
}

int main(int argc, char **argv)
{
    CHECK(argc == 2 && (!strcmp(argv[1], "trim") || !strcmp(argv[1], "decay")),
          "usage: smap_heap_purge trim|decay");
    int trim = !strcmp(argv[1], "trim");
    int fd = ht_heap_fd();
    CHECK((fd >= 0) == !HT_ASAN, "heap memfd %s", fd >= 0 ? "present under ASan" : "missing");

    long long b0 = fd >= 0 ? ht_fd_bytes(fd) : 0;
    size_t n = (size_t)256 << 20;
    char *p = malloc(n);
    CHECK(p != NULL, "malloc(256 MiB)");
    memset(p, 1, n);
    long long b1 = fd >= 0 ? ht_fd_bytes(fd) : 0;
    free(p);
    release(trim);
    long long b2 = fd >= 0 ? ht_fd_bytes(fd) : 0;

    static char *small[SMALL_N];
    for (int i = 0; i < SMALL_N; i++) {
        small[i] = malloc(SMALL_SZ);
        CHECK(small[i] != NULL, "malloc(%d)", SMALL_SZ);
        memset(small[i], 2, SMALL_SZ);
    }
    long long b3 = fd >= 0 ? ht_fd_bytes(fd) : 0;
    for (int i = 0; i < SMALL_N; i++)
        free(small[i]);
    release(trim);
    long long b4 = fd >= 0 ? ht_fd_bytes(fd) : 0;

    printf("purge %s (local rank %d): memfd %lld -> %lld MiB (256 MiB written) -> %lld MiB "
           "(freed); small objects %lld -> %lld MiB%s\n",
           argv[1], ht_local_rank(), b0 / MiB, b1 / MiB, b2 / MiB, b3 / MiB, b4 / MiB,
           HT_ASAN ? " (ASan: no heap memfd)" : "");
    if (HT_ASAN)
        return 0;
    CHECK(b1 - b0 >= 250 * MiB, "writing 256 MiB grew the memfd by only %lld MiB",
          (b1 - b0) / MiB);
    CHECK(b1 - b2 >= 200 * MiB, "freeing 256 MiB shrank the memfd by only %lld MiB",
          (b1 - b2) / MiB);
    CHECK(b3 - b4 >= 150 * MiB, "freeing 200 MiB of small objects shrank the memfd by only %lld MiB",
          (b3 - b4) / MiB);
    return 0;
}
