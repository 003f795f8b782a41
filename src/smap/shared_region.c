/* Regions that are shared whatever SMAP_EXPOSE says: small sparse memfds
 * that node peers map like the exposed ones (views, fork privatisation and
 * fd passing treat every region kind alike).  The collectives' region
 * lives here; the control region (ctl.c) has the same shape. */
#define _GNU_SOURCE
#include "smap/smap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *smap_shared_region_create(enum smap_region_kind k, const char *name, size_t size,
                                char *err, size_t errlen)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "memfd_create(%s) failed: %s", name, strerror(errno));
        return NULL;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        snprintf(err, errlen, "cannot size %s to %zu bytes: %s", name, size, strerror(errno));
        close(fd);
        return NULL;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "cannot map %s: %s", name, strerror(errno));
        close(fd);
        return NULL;
    }
    smap_region_set(k, (uintptr_t)p, size, fd, 0);
    return p;
}

static void *coll_base;

int smap_coll_region_create(char *err, size_t errlen)
{
    if (!coll_base)
        coll_base = smap_shared_region_create(SMAP_REGION_COLL, "smartmap-coll",
                                              SMAP_COLL_REGION_SIZE, err, errlen);
    return coll_base ? 0 : -1;
}

void *smap_coll_region(void)
{
    return coll_base;
}

static void *rma_base;

int smap_rma_region_create(char *err, size_t errlen)
{
    if (!rma_base)
        rma_base = smap_shared_region_create(SMAP_REGION_RMA, "smartmap-rma", SMAP_RMA_REGION_SIZE,
                                             err, errlen);
    return rma_base ? 0 : -1;
}

void *smap_rma_region(void)
{
    return rma_base;
}
