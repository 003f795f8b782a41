/* This rank's own exposed regions: one slot per kind, written once during
 * start-up (constructor, first malloc, MPI_Init) and read by peers.c (to
 * describe them to the node), fork.c (to privatise them in a child) and
 * smartmap_info. */
#include "smap/smap.h"

#include <string.h>

static struct smap_region regions[SMAP_REGION_KINDS] = {
    [SMAP_REGION_HEAP] = { .fd = -1, .why = "not set up yet" },
    [SMAP_REGION_DATA] = { .fd = -1, .why = "not set up yet" },
    [SMAP_REGION_STACK] = { .fd = -1, .why = "not set up yet" },
    [SMAP_REGION_CTL] = { .fd = -1, .why = "not set up yet" },
    [SMAP_REGION_COLL] = { .fd = -1, .why = "not set up yet" },
    [SMAP_REGION_RMA] = { .fd = -1, .why = "not set up yet" },
};

const char *smap_region_name(enum smap_region_kind k)
{
    static const char *const names[SMAP_REGION_KINDS] = { "heap", "data", "stack", "ctl", "coll", "rma" };
    return (unsigned)k < SMAP_REGION_KINDS ? names[k] : "?";
}

void smap_region_set(enum smap_region_kind k, uintptr_t base, size_t len, int fd, size_t file_off)
{
    struct smap_region *r = &regions[k];
    r->base = base;
    r->len = len;
    r->fd = fd;
    r->file_off = file_off;
    r->why[0] = '\0';
}

void smap_region_unexposed(enum smap_region_kind k, const char *why)
{
    struct smap_region *r = &regions[k];
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
    return &regions[k];
}
