/* This rank's own exposed regions: one slot per kind, written once during
 * start-up (constructor, first malloc, MPI_Init) and read by peers.c (to
 * describe them to the node), fork.c (to privatise them in a child) and
 * smartmap_info.
 *
 * Built into both libraries.  In libsmartmap_heap (SMAP_STARTUP_LIBRARY)
 * the table below is the process's table.  In libmpi it is used only when
 * the start-up library is not loaded (libmpi dlopen'ed by an interpreter
 * without smrun's preload); otherwise libmpi reads and writes the start-up
 * library's table, so that heap, data and stack exposed before main and the
 * ctl/coll regions created at MPI_Init are one table that fork() privatises. */
#include "smap/smap.h"
#include "smap/startup/api.h"

#include <string.h>

#ifdef SMAP_STARTUP_LIBRARY
#define NOT_YET "not set up yet"
#define NOT_LOADED NOT_YET
#else
#define NOT_YET "not set up yet"
#define NOT_LOADED "libsmartmap_heap.so is not loaded (libmpi was dlopen'ed; smrun preloads it)"
#endif

static struct smap_region regions[SMAP_REGION_KINDS] = {
    [SMAP_REGION_HEAP] = { .fd = -1, .why = NOT_LOADED },
    [SMAP_REGION_DATA] = { .fd = -1, .why = NOT_LOADED },
    [SMAP_REGION_STACK] = { .fd = -1, .why = NOT_LOADED },
    [SMAP_REGION_CTL] = { .fd = -1, .why = NOT_YET },
    [SMAP_REGION_COLL] = { .fd = -1, .why = NOT_YET },
    [SMAP_REGION_RMA] = { .fd = -1, .why = NOT_YET },
};

struct smap_region *smap_region_table(void);
struct smap_region *smap_region_table(void)
{
#ifndef SMAP_STARTUP_LIBRARY
    const struct smap_startup_api *a = smap_startup();
    if (a)
        return a->regions;
#endif
    return regions;
}

const char *smap_region_name(enum smap_region_kind k)
{
    static const char *const names[SMAP_REGION_KINDS] = { "heap", "data", "stack", "ctl", "coll", "rma" };
    return (unsigned)k < SMAP_REGION_KINDS ? names[k] : "?";
}

void smap_region_set(enum smap_region_kind k, uintptr_t base, size_t len, int fd, size_t file_off)
{
    struct smap_region *r = &smap_region_table()[k];
    r->base = base;
    r->len = len;
    r->fd = fd;
    r->file_off = file_off;
    r->why[0] = '\0';
}

void smap_region_unexposed(enum smap_region_kind k, const char *why)
{
    struct smap_region *r = &smap_region_table()[k];
    r->base = 0;
    r->len = 0;
    r->fd = -1;
    size_t n = strlen(why);
    if (n >= sizeof r->why)
        n = sizeof r->why - 1;
    memcpy(r->why, why, n);
    r->why[n] = '\0';
}

const struct smap_region *smap_region_self(enum smap_region_kind k)
{
    return &smap_region_table()[k];
}
