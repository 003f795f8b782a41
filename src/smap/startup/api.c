/* The start-up library's one exported entry point for libmpi (api.h). */
#include "base/compiler.h"
#include "smap/smap.h"
#include "smap/startup/api.h"

/* The region table lives in region.c (built into both libraries; this
 * library's copy is the process's table). */
struct smap_region *smap_region_table(void);

static const struct smap_startup_api api = {
    .version = SMAP_STARTUP_API_VERSION,
    .region_size = sizeof(struct smap_region),
    .regions = NULL,   /* filled in by smartmap_startup_api() */
    .heap_exposed = smap_heap_exposed,
    .heap_used = smap_heap_used,
    .heap_purge = smap_heap_purge,
    .is_fork_child = smap_is_fork_child,
    .set_fork_child_hook = smap_fork_set_child_hook,
    .expose_stats = &smap_expose_stats,
};

SMAP_EXPORT const struct smap_startup_api *smartmap_startup_api(void)
{
    static struct smap_startup_api filled;
    if (!filled.version) {
        filled = api;
        filled.regions = smap_region_table();
    }
    return &filled;
}
