/* libmpi's view of libsmartmap_heap.so (src/smap/startup/api.h): found at
 * run time by its exported entry point, never linked, so that libmpi stays
 * loadable by dlopen (no jemalloc TLS) and works without it: then the heap,
 * globals and main stack are simply not exposed and the copy engine falls
 * back for them. */
#define _GNU_SOURCE
#include "smap/smap.h"
#include "smap/startup/api.h"

#include <dlfcn.h>
#include <stdatomic.h>

enum { UNRESOLVED, RESOLVED };
static _Atomic int state = UNRESOLVED;
static const struct smap_startup_api *found;

static const struct smap_startup_api *resolve(void)
{
    typedef const struct smap_startup_api *(*api_fn)(void);
    api_fn fn = (api_fn)dlsym(RTLD_DEFAULT, SMAP_STARTUP_API_SYMBOL);
    const struct smap_startup_api *a = fn ? fn() : NULL;
    if (a && (a->version != SMAP_STARTUP_API_VERSION ||
              a->region_size != sizeof(struct smap_region))) {
        smap_early_warn("libsmartmap_heap.so of another smartmap version is loaded: ignored "
                        "(heap, globals and stack not exposed)");
        a = NULL;
    }
    /* A fork child must drop its peer views; libsmartmap_heap runs the fork. */
    if (a)
        a->set_fork_child_hook(smap_peers_forget);
    return a;
}

const struct smap_startup_api *smap_startup(void)
{
    if (atomic_load_explicit(&state, memory_order_acquire) == RESOLVED)
        return found;
    /* Idempotent: two threads may both resolve; they find the same answer. */
    const struct smap_startup_api *a = resolve();
    found = a;
    atomic_store_explicit(&state, RESOLVED, memory_order_release);
    return a;
}

int smap_heap_exposed(void)
{
    const struct smap_startup_api *a = smap_startup();
    return a ? a->heap_exposed() : 0;
}

size_t smap_heap_used(void)
{
    const struct smap_startup_api *a = smap_startup();
    return a ? a->heap_used() : 0;
}

void smap_heap_purge(void)
{
    const struct smap_startup_api *a = smap_startup();
    if (a)
        a->heap_purge();
}

int smap_is_fork_child(void)
{
    const struct smap_startup_api *a = smap_startup();
    return a ? a->is_fork_child() : 0;
}
