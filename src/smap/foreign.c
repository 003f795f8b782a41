/* Processes of other jobs on this node as node peers (DESIGN D17; issue
 * 34).  A spawned child, its parents, or a job met through a port or
 * MPI_Comm_join, when it runs on this node, is attached like a node peer
 * of the job (peers.c), at a spare index of smap_peers: every process
 * keeps SMAP_SPAWN_PEERS of them (smap_peers_capacity), each handed out
 * once, so that a queue in the control region is never used by two
 * processes in turn (its cells' sequence words would be stale).
 *
 * Only what point-to-point needs is mapped: the control region (the shm
 * queues and completion words) and the heap, globals and stack (the
 * single-copy rendezvous).  The collectives' and one-sided regions are
 * not: communicators holding processes of another job get no control
 * block and their windows go through point-to-point (src/mpi/comm.c,
 * smap_comm_group_on_node), and their views would cost address space
 * the one-sided region's size was computed without.
 *
 * The memory files come through /proc/<pid>/fd (same uid, dumpable) or
 * pidfd_getfd; the SCM_RIGHTS exchange of peers.c needs a listening
 * socket published before the job's bootstrap fence, which a process of
 * another job never saw: without those two, the bridge stays on the
 * network (src/spawn/bridge.c: one verdict for the whole bridge). */
#define _GNU_SOURCE
#include "smap/smap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"

static int spare_next;   /* first spare index never handed out */

void smap_peers_reserve(int next)
{
    if (next > spare_next)
        spare_next = next;
}

/* The node's identity as the kernel sees it: two processes can map each
 * other's memory files and find each other's pids when the boot, the
 * UTS namespace's host name (an emulated host of tests/netns has its
 * own) and the pid namespace are the same. */
static void node_key(char *out, size_t len)
{
    char boot[64] = "";
    struct utsname u;
    struct stat st;
    (void)smap_read_small_file("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
    if (uname(&u) != 0)
        u.nodename[0] = 0;
    unsigned long long ns = stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
    snprintf(out, len, "%.40s/%.40s/%llx", boot, u.nodename, ns);
}

void smap_node_rec_self(struct smap_node_rec *r)
{
    memset(r, 0, sizeof *r);
    node_key(r->node, sizeof r->node);
    r->pid = (int64_t)getpid();
    r->uid = (int32_t)geteuid();
    r->dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1;
    r->next = spare_next;
    r->cap = smap_peers_attached() && !smap_is_fork_child() && smap_ctl_base() ? smap_peers_capacity()
                                                                               : 0;
    for (int k = 0; k < SMAP_REGION_KINDS; k++) {
        const struct smap_region *g = smap_region_self((enum smap_region_kind)k);
        struct stat st;
        r->r[k].fd = -1;
        if (k == SMAP_REGION_COLL || k == SMAP_REGION_RMA || !g->base || !g->len || g->fd < 0 ||
            fstat(g->fd, &st) != 0)
            continue;
        r->r[k].base = g->base;
        r->r[k].len = g->len;
        r->r[k].off = g->file_off;
        r->r[k].ino = (uint64_t)st.st_ino;
        r->r[k].fd = g->fd;
    }
    if (r->r[SMAP_REGION_CTL].fd < 0)
        r->cap = 0;
}

int smap_node_rec_same(const struct smap_node_rec *r)
{
    char mine[sizeof r->node];
    node_key(mine, sizeof mine);
    return memchr(r->node, 0, sizeof r->node) && strcmp(mine, r->node) == 0 &&
           r->pid != (int64_t)getpid() && r->pid > 0;
}

int smap_node_rec_job_peer(const struct smap_node_rec *r)
{
    for (int lr = 0; smap_peers && lr < smap_nlocal; lr++)
        if (smap_peers[lr].pid == (pid_t)r->pid)
            return lr;
    return -1;
}

static int map_one(struct smap_peer *p, const struct smap_node_rec *r, int k, char *err,
                   size_t errlen)
{
    char why[200];
    int fd = r->uid == (int32_t)geteuid() && r->dumpable
                 ? smap_fd_from_proc((pid_t)r->pid, r->r[k].fd, why, sizeof why)
                 : -1;
    if (fd < 0 && p->pidfd >= 0)
        fd = smap_fd_from_pidfd(p->pidfd, r->r[k].fd, why, sizeof why);
    if (fd < 0) {
        snprintf(err, errlen, "cannot get the %s region of pid %ld: %s",
                 smap_region_name((enum smap_region_kind)k), (long)r->pid, why);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_ino != r->r[k].ino) {
        snprintf(err, errlen, "pid %ld's fd %d is not its %s region any more", (long)r->pid,
                 r->r[k].fd, smap_region_name((enum smap_region_kind)k));
        close(fd);
        return -1;
    }
    void *v = smap_view_mmap(fd, k, (uintptr_t)r->r[k].base, r->r[k].off, r->r[k].len);
    if (v == MAP_FAILED) {
        snprintf(err, errlen, "cannot map pid %ld's %s region (%zu bytes): %s", (long)r->pid,
                 smap_region_name((enum smap_region_kind)k), (size_t)r->r[k].len,
                 strerror(errno));
        close(fd);
        return -1;
    }
    if (k == SMAP_REGION_CTL)
        smap_prefault_file(fd, r->r[k].off, r->r[k].len, v);
    close(fd);
    p->view[k] = (struct smap_view){ (uintptr_t)r->r[k].base, (uintptr_t)r->r[k].len,
                                     (intptr_t)((uintptr_t)v - (uintptr_t)r->r[k].base) };
    return 0;
}

int smap_peers_attach_at(int idx, const struct smap_node_rec *r, char *err, size_t errlen)
{
    if (!smap_peers_attached() || idx < smap_nlocal || idx < spare_next ||
        idx >= smap_peers_capacity()) {
        snprintf(err, errlen, "node-peer index %d is not a free spare index (%d..%d)", idx,
                 spare_next, smap_peers_capacity() - 1);
        return -1;
    }
    struct smap_peer *p = &smap_peers[idx];
    if (p->alive || p->pid) {
        snprintf(err, errlen, "node-peer index %d is in use", idx);
        return -1;
    }
    if (r->r[SMAP_REGION_CTL].fd < 0) {
        snprintf(err, errlen, "pid %ld has no control region", (long)r->pid);
        return -1;
    }
    memset(p->view, 0, sizeof p->view);
    p->pidfd = smap_under_valgrind() ? -1 : (int)syscall(SYS_pidfd_open, (pid_t)r->pid, 0);
    for (int k = 0; k < SMAP_REGION_KINDS; k++)
        if (r->r[k].fd >= 0 && r->r[k].len && map_one(p, r, k, err, errlen) != 0) {
            smap_views_unmap(p);
            if (p->pidfd >= 0)
                close(p->pidfd);
            p->pidfd = -1;
            return -1;
        }
    p->pid = (pid_t)r->pid;
    p->alive = 1;
    /* the views before the bound that lets translation reach them */
    if (idx >= smap_npeers)
        smap_npeers = idx + 1;
    return 0;
}

void smap_peers_detach_at(int idx)
{
    if (!smap_peers || idx < smap_nlocal || idx >= smap_npeers)
        return;
    struct smap_peer *p = &smap_peers[idx];
    smap_views_unmap(p);
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->pidfd = -1;
    p->alive = 0;   /* p->pid stays: the index is not handed out again */
    if (!p->pid)
        p->pid = -1;
}
