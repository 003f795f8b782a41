/* When the heap is not exposed (SMAP_EXPOSE without "heap", or a program
 * not started by a launcher) there is no heap slot, and the same allocator
 * still serves every call: allocations from several threads, aligned ones,
 * realloc across sizes and libc's own allocations all work, and none of
 * them is in a smartmap-heap mapping. */
#define _GNU_SOURCE
#include "heap_test.h"
#include "smap_test.h"

#include <malloc.h>
#include <pthread.h>

static void *worker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg + 1;
    void *pool[64] = { 0 };
    for (int i = 0; i < 5000; i++) {
        int k = rand_r(&seed) % 64;
        size_t n = 1 + (size_t)rand_r(&seed) % ((rand_r(&seed) % 50) ? 2048 : (4 << 20));
        pool[k] = realloc(pool[k], n);
        CHECK(pool[k] != NULL, "realloc(%zu)", n);
        ((char *)pool[k])[n - 1] = 1;
    }
    for (int k = 0; k < 64; k++)
        free(pool[k]);
    return NULL;
}

int main(void)
{
    pthread_t th[3];
    for (int i = 0; i < 3; i++)
        CHECK(pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i) == 0, "pthread_create");
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    void *a = NULL;
    CHECK(posix_memalign(&a, 1 << 20, 100) == 0 && (uintptr_t)a % (1 << 20) == 0, "posix_memalign");
    char *s = strdup("unexposed"), *big = calloc(1, 64 << 20);
    CHECK(s && big && big[(64 << 20) - 1] == 0, "strdup/calloc");
    CHECK(malloc_usable_size(s) >= 10, "malloc_usable_size");
    CHECK(malloc_trim(0) >= 0, "malloc_trim");
    uintptr_t lo, hi;
    CHECK(!ht_heap_range((uintptr_t)s, &lo, &hi, NULL) && !ht_heap_range((uintptr_t)big, &lo, &hi, NULL),
          "allocations in a smartmap-heap mapping");
    CHECK(ht_heap_vmas() == 0 && ht_heap_fd() < 0, "a heap slot exists (%d VMAs)", ht_heap_vmas());
    const char *e = getenv("SMAP_EXPOSE");
    printf("unexposed (%s, SMAP_EXPOSE=%s): no heap slot, allocations work (%p)\n",
           getenv("PMI_RANK") ? "rank" : "no launcher", e ? e : "unset", (void *)s);
    free(s), free(big), free(a);
    return 0;
}
