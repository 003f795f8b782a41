/* Scratch buffers of the layer (D15): the aggregators' window buffers
 * (twophase.c), the packing chunk and the sieve buffer of independent
 * accesses (access.c).  They are not taken from the heap: the heap is
 * shared memory (D3), whose pages cost a fault each on first touch and
 * come back fresh from the allocator for every large malloc (a 16 MiB
 * window was 4096 faults per collective call, a 4 MiB read sieve 1024 per
 * independent read).  Only this rank touches them, so they are private
 * anonymous memory (transparent huge pages where the kernel gives them),
 * and the process keeps the last few for the next access of any file (a
 * program typically opens, accesses and closes; accesses in flight at once
 * take buffers of their own). */
#include <pthread.h>
#include <stddef.h>
#include <sys/mman.h>

#include "io/io.h"

#define POOL 4

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static char *pool[POOL];
static size_t pool_len[POOL];

char *smap_io_scratch_get(size_t len, size_t *got)
{
    char *p = NULL;
    int best = -1;
    pthread_mutex_lock(&lk);
    for (int i = 0; i < POOL; i++)   /* the smallest that fits */
        if (pool[i] && pool_len[i] >= len && (best < 0 || pool_len[i] < pool_len[best]))
            best = i;
    if (best >= 0) {
        p = pool[best];
        *got = pool_len[best];
        pool[best] = NULL;
    }
    pthread_mutex_unlock(&lk);
    if (p)
        return p;
    if (len == 0)
        len = 1;
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, len, MADV_HUGEPAGE);
#endif
    *got = len;
    return p;
}

void smap_io_scratch_put(char *p, size_t len)
{
    if (!p)
        return;
    char *old = p;
    size_t olen = len;
    pthread_mutex_lock(&lk);
    int k = -1;
    for (int i = 0; i < POOL && k < 0; i++)
        if (!pool[i])
            k = i;
    if (k < 0) {   /* full: the smallest goes (or this one, when smaller) */
        k = 0;
        for (int i = 1; i < POOL; i++)
            if (pool_len[i] < pool_len[k])
                k = i;
        if (pool_len[k] >= len)
            k = -1;
    }
    if (k >= 0) {
        old = pool[k];
        olen = pool_len[k];
        pool[k] = p;
        pool_len[k] = len;
    }
    pthread_mutex_unlock(&lk);
    if (old)
        munmap(old, olen);
}
