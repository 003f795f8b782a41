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

#include "boot/boot.h"

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
static size_t rma_size;

size_t smap_rma_region_size(void)
{
    if (rma_size)
        return rma_size;
    /* memcheck's leak scan reads (and so allocates) every page of our region
     * and of every peer's view: MPI_Win_allocate falls back to the heap
     * beyond this, MPI_Win_allocate_shared fails with MPI_ERR_NO_MEM. */
    if (smap_under_valgrind())
        return SMAP_RMA_REGION_VALGRIND;
    const size_t gib = (size_t)1 << 30;
    long pages = sysconf(_SC_PHYS_PAGES), pg = sysconf(_SC_PAGESIZE);
    size_t mem = pages > 0 && pg > 0 ? (size_t)pages * (size_t)pg : gib;
    size_t peers = smap_job.local_size > 0 ? (size_t)smap_job.local_size : 1;
    size_t cap = SMAP_RMA_VIEWS_MAX / peers;
    size_t s = (mem + gib - 1) & ~(gib - 1);
    if (s > cap)
        s = cap & ~(gib - 1);
    return s < gib ? gib : s;
}

int smap_rma_region_create(char *err, size_t errlen)
{
    if (!rma_base) {
        size_t size = smap_rma_region_size();
        rma_base = smap_shared_region_create(SMAP_REGION_RMA, "smartmap-rma", size, err, errlen);
        if (rma_base) {
            rma_size = size;
            /* A core dump reads every page of a shared mapping and so
             * allocates every hole: the whole region (as large as the
             * machine's memory) would be written.  The arena marks what it
             * hands out dumpable again (rma/arena.c). */
            (void)madvise(rma_base, size, MADV_DONTDUMP);
        }
    }
    return rma_base ? 0 : -1;
}

void *smap_rma_region(void)
{
    return rma_base;
}
