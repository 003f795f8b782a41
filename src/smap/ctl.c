/* This rank's control region: a small memfd ("smartmap-ctl") that every
 * node peer maps like the other regions.  It always exists, whatever
 * SMAP_EXPOSE says, because the node barrier (first cache lines of local
 * rank 0's region) and the shared-memory queues (src/shm/) live in it. */
#define _GNU_SOURCE
#include "smap/smap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "boot/boot.h"

static void *ctl_base;
static size_t ctl_size;

size_t smap_ctl_size(void)
{
    return ctl_size;
}

void *smap_ctl_base(void)
{
    return ctl_base;
}

int smap_ctl_create(char *err, size_t errlen)
{
    if (ctl_base)
        return 0;
    /* One queue per node peer (ourselves included: send-to-self uses the
     * same path) and per spare index (processes of other jobs, foreign.c).
     * Created after the bootstrap, so the count is known. */
    size_t n = (size_t)smap_peers_capacity();
    size_t size = SMAP_CTL_FIXED + n * SMAP_CTL_PER_PEER;
    int fd = memfd_create("smartmap-ctl", MFD_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "memfd_create(smartmap-ctl) failed: %s", strerror(errno));
        return -1;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        snprintf(err, errlen, "cannot size the control region: %s", strerror(errno));
        close(fd);
        return -1;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "cannot map the control region: %s", strerror(errno));
        close(fd);
        return -1;
    }
    ctl_base = p;
    smap_region_set(SMAP_REGION_CTL, (uintptr_t)p, size, fd, 0);
    ctl_size = size;
    return 0;
}
