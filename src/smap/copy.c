/* The copy engine (DESIGN.md D4): one entry point per direction between
 * this rank's memory and a node peer's.  It tries, in order and never
 * above the level SMAP_COPY allows:
 *   direct  memcpy through the peer's view (smap_remote_inline),
 *   CMA     process_vm_readv/writev on the peer's pid (the kernel copies
 *           once; works for any mapped memory of the peer: TLS, user mmap,
 *           shared-library globals),
 * and otherwise answers SMAP_COPY_BOUNCE so that the caller moves the data
 * through shared cells.  The direct path is inline-cheap; everything else
 * is out of line.  Also home of smap_caps_probe, which needs the peer
 * table (caps.c must stay free of it for smartmap_info). */
#define _GNU_SOURCE
#include "smap/smap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/tunables.h"
#include "smap/remote.h"

/* Moves len bytes between local and the peer's remote address with one
 * kernel copy.  The kernel stops at the first unmapped page and reports
 * how far it got, so partial transfers are resumed until an error says
 * the rest is unreachable.  0, or -1 with errno (EFAULT, EPERM, ESRCH...). */
static int cma_move(pid_t pid, void *local, uintptr_t remote, size_t len, int to_peer)
{
    if (remote + len < remote) {
        errno = EFAULT;
        return -1;
    }
    size_t done = 0;
    while (done < len) {
        struct iovec l = { (char *)local + done, len - done };
        struct iovec r = { (void *)(remote + done), len - done };
        ssize_t n = to_peer ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                            : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0) {
            errno = EFAULT;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

/* The levels below direct.  On SMAP_COPY_BOUNCE errno says why: EPERM (CMA
 * switched off by SMAP_COPY or refused by the kernel), EFAULT (the range is
 * not mapped in the peer), ESRCH (the peer is gone), EINVAL (no such local
 * rank, or the peers are not attached).  A CMA failure after
 * a partial transfer leaves those bytes copied; the caller's bounce copy
 * then moves the whole range again. */
static SMAP_COLD int copy_slow(int lr, void *local, uintptr_t remote, size_t len, int to_peer)
{
    if ((unsigned)lr >= (unsigned)smap_npeers || !smap_peers) {
        errno = EINVAL;
        return SMAP_COPY_BOUNCE;
    }
    if (smap_caps.copy_level > SMAP_COPY_CMA || !smap_caps.cma_ok) {
        errno = EPERM;
        return SMAP_COPY_BOUNCE;
    }
    const struct smap_peer *p = &smap_peers[lr];
    if (!p->alive || p->pid <= 0) {
        errno = ESRCH;
        return SMAP_COPY_BOUNCE;
    }
    if (cma_move(p->pid, local, remote, len, to_peer) != 0) {
        if (errno == EACCES)
            errno = EPERM;
        return SMAP_COPY_BOUNCE;
    }
    return SMAP_COPY_CMA;
}

int smap_copy_from(int lr, void *dst, const void *src, size_t len)
{
    if (SMAP_UNLIKELY(len == 0))
        return SMAP_COPY_DIRECT;
    /* Our own memory is always reachable, whatever SMAP_COPY says. */
    if (SMAP_UNLIKELY(lr == smap_my_local_rank)) {
        memmove(dst, src, len);
        return SMAP_COPY_DIRECT;
    }
    if (SMAP_LIKELY(smap_caps.copy_level == SMAP_COPY_DIRECT)) {
        const void *view = smap_remote_inline(lr, src, len);
        if (SMAP_LIKELY(view != NULL)) {
            memcpy(dst, view, len);
            return SMAP_COPY_DIRECT;
        }
    }
    return copy_slow(lr, dst, (uintptr_t)src, len, 0);
}

int smap_copy_to(int lr, void *dst, const void *src, size_t len)
{
    if (SMAP_UNLIKELY(len == 0))
        return SMAP_COPY_DIRECT;
    if (SMAP_UNLIKELY(lr == smap_my_local_rank)) {
        memmove(dst, src, len);
        return SMAP_COPY_DIRECT;
    }
    if (SMAP_LIKELY(smap_caps.copy_level == SMAP_COPY_DIRECT)) {
        void *view = smap_remote_inline(lr, dst, len);
        if (SMAP_LIKELY(view != NULL)) {
            memcpy(view, src, len);
            return SMAP_COPY_DIRECT;
        }
    }
    return copy_slow(lr, (void *)(uintptr_t)src, (uintptr_t)dst, len, 1);
}

/* ---- start-up probe -------------------------------------------------------- */

/* An address that is mapped in peer p: the start of one of its views (the
 * control region first: it is always there and already populated, so the
 * probe allocates nothing in the peer).  0 when it exposes nothing. */
static uintptr_t probe_address(const struct smap_peer *p)
{
    static const enum smap_region_kind order[] = { SMAP_REGION_CTL, SMAP_REGION_DATA,
                                                   SMAP_REGION_STACK, SMAP_REGION_HEAP };
    for (size_t i = 0; i < SMAP_ARRAY_SIZE(order); i++)
        if (p->view[order[i]].len)
            return p->view[order[i]].base;
    return 0;
}

/* CMA is probed on the next local rank: permission is decided per pair of
 * processes (ptrace rules, Yama), and the same rules hold for every pair of
 * one job.  Without a peer, a probe on ourselves still catches seccomp
 * filters and kernels built without CONFIG_CROSS_MEMORY_ATTACH. */
static void probe_cma(void)
{
    struct smap_caps *c = &smap_caps;
    char why[sizeof c->cma_why];
    if (smap_nlocal <= 1 || !smap_peers) {
        volatile long probe = 42;
        c->cma_ok = smap_cma_try(getpid(), (const void *)&probe, sizeof probe, why, sizeof why);
        snprintf(c->cma_why, sizeof c->cma_why, "%.80s (probed on this process: no node peer)",
                 why);
        return;
    }
    int lr = (smap_my_local_rank + 1) % smap_nlocal;
    const struct smap_peer *p = &smap_peers[lr];
    uintptr_t addr = probe_address(p);
    if (!p->alive || !addr) {
        c->cma_ok = 0;
        snprintf(c->cma_why, sizeof c->cma_why, "not probed (local rank %d exposes no region)", lr);
        return;
    }
    c->cma_ok = smap_cma_try(p->pid, (const void *)addr, 8, why, sizeof why);
    snprintf(c->cma_why, sizeof c->cma_why, "%.80s (probed on local rank %d)", why, lr);
}

int smap_caps_probe(char *err, size_t errlen)
{
    if (smap_caps_configure(smap_tun.copy, smap_tun.expose, err, errlen) != 0)
        return -1;
    probe_cma();
    const struct smap_caps *c = &smap_caps;
    smap_info("copy engine: SMAP_COPY=%s; CMA: %s; shmem THP: %s",
              smap_copy_level_name(c->copy_level), c->cma_why, c->thp_why);
    if (c->copy_level == SMAP_COPY_CMA && !c->cma_ok)
        smap_warn("SMAP_COPY=cma but CMA is %s: every copy between ranks will go through "
                  "bounce buffers", c->cma_why);
    return 0;
}
