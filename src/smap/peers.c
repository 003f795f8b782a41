/* Attaching node peers (findings §2 items 2, 9, 10; §3.6-§3.10).
 *
 * At MPI_Init every rank publishes a description of its regions through
 * the bootstrap KVS (pid, dumpable flag, uid, and per region: base, length,
 * fd number, file offset, inode), obtains each node peer's fds (fdpass.c),
 * and maps them: the heap at the peer's own address (a symmetric heap:
 * heap pointers need no translation), the others where the kernel likes
 * (remote.h translates).  Each view is prefaulted over the populated parts
 * of the file only, because reading a hole of shmem allocates it, and is
 * marked MADV_DONTDUMP, because a core dump would read, and so allocate,
 * every hole of every peer's 64 GiB slot (§3.9).
 *
 * Every rank of the job runs the same two bootstrap fences whatever
 * happens, so a failure anywhere becomes an agreed failure of the node
 * instead of a hang: fence 1 publishes the descriptions, fence 2 the
 * outcome (which also keeps owners alive until all peers have opened their
 * fds).  In auto mode a failed /proc attach falls back to the socket
 * exchange, which needs no further fence.
 *
 * A peer that dies stays mapped (its memory is not freed while we map it,
 * §3.7): smap_peers_reap() notices through the pidfd and unmaps it.
 * MPI_Finalize leaves the views to the process's exit, or to a thread
 * SMAP_UNMAP_DELAY ms later (see "unmapping at MPI_Finalize" below). */
#define _GNU_SOURCE
#include "smap/smap.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"

struct smap_peer *smap_peers;
int smap_my_local_rank = -1, smap_nlocal, smap_npeers;

int smap_peers_capacity(void)
{
    /* fixed at the first call (the control region and the tables of
     * src/p2p are sized by it): SMAP_SPAWN_PEERS may change later */
    static int cap;
    if (!cap) {
        int n = smap_job.local_size > 0 ? smap_job.local_size : 1;
        int r = smap_tun.spawn_peers > 0 ? (int)smap_tun.spawn_peers : 0;
        cap = n + r;
    }
    return cap;
}
static int attached;

struct rdesc {
    uintptr_t base;
    size_t len;
    int fd;
    size_t off;
    unsigned long long ino;
};
struct pdesc {
    long pid;
    int dumpable;
    unsigned uid;
    unsigned long long sock;   /* the attach socket's random name (fdpass.c), 0: none */
    struct rdesc r[SMAP_REGION_KINDS];
};

/* Outcome flags of fence 2. */
enum { ATTACH_OK = 0, ATTACH_SOFT = 1 /* a socket round may help */, ATTACH_HARD = 2 };

struct attach {
    int n, me, mode;      /* mode: resolved (never auto) */
    int requested;        /* SMAP_ATTACH as parsed */
    int lsock;
    struct pdesc *d;      /* by local rank */
    int *fds;             /* [lr * SMAP_REGION_KINDS + k], -1: none */
    pid_t *pids;
    char *err;
    size_t errlen;
    double map_ms;        /* getting fds and mapping, fences excluded */
};

int smap_peers_attached(void)
{
    return attached;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static size_t page_round(size_t len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (len + pg - 1) & ~(pg - 1);
}

/* ---- descriptions ------------------------------------------------------ */

static void describe_self(struct pdesc *d)
{
    memset(d, 0, sizeof *d);
    d->pid = (long)getpid();
    d->dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1;
    d->uid = (unsigned)geteuid();
    for (int k = 0; k < SMAP_REGION_KINDS; k++) {
        const struct smap_region *r = smap_region_self((enum smap_region_kind)k);
        struct stat st;
        if (!r->base || !r->len || r->fd < 0 || fstat(r->fd, &st) != 0) {
            d->r[k].fd = -1;
            continue;
        }
        d->r[k] = (struct rdesc){ r->base, r->len, r->fd, r->file_off, (unsigned long long)st.st_ino };
    }
}

/* PMI values may not contain blanks: fields are ':'/';'/','-separated hex. */
static void encode(const struct pdesc *d, char *s, size_t len)
{
    size_t n = (size_t)snprintf(s, len, "%lx:%d:%x:%llx", d->pid, d->dumpable, d->uid, d->sock);
    for (int k = 0; k < SMAP_REGION_KINDS && n < len; k++) {
        const struct rdesc *r = &d->r[k];
        n += (size_t)snprintf(s + n, len - n, ";%lx,%zx,%d,%zx,%llx", (unsigned long)r->base, r->len,
                              r->fd, r->off, r->ino);
    }
}

static int decode(const char *s, struct pdesc *d)
{
    int used = 0;
    memset(d, 0, sizeof *d);
    if (sscanf(s, "%lx:%d:%x:%llx%n", &d->pid, &d->dumpable, &d->uid, &d->sock, &used) != 4 ||
        d->pid <= 0)
        return -1;
    s += used;
    for (int k = 0; k < SMAP_REGION_KINDS; k++) {
        struct rdesc *r = &d->r[k];
        unsigned long base;
        if (sscanf(s, ";%lx,%zx,%d,%zx,%llx%n", &base, &r->len, &r->fd, &r->off, &r->ino, &used) != 5)
            return -1;
        r->base = (uintptr_t)base;
        s += used;
    }
    return *s ? -1 : 0;
}

/* A failing rank publishes its reason so that every rank of the node can
 * print it (the first rank to abort ends the job).  PMI values may not
 * hold blanks: they travel as '~'. */
#define SMAP_REASON_MAX 600
static void reason_pack(const char *msg, char *out, size_t len)
{
    size_t i = 0;
    for (; msg[i] && i + 1 < len && i < SMAP_REASON_MAX; i++) {
        unsigned char c = (unsigned char)msg[i];
        out[i] = c <= 0x20 || c == 0x7f ? '~' : (char)c;
    }
    out[i] = '\0';
}

static void reason_unpack(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 1 < len; i++)
        out[i] = in[i] == '~' ? ' ' : in[i];
    out[i] = '\0';
    if (!i)
        snprintf(out, len, "see its message");
}

/* What the node's ranks tell each other at start-up (the descriptions,
 * then the verdicts of fence 2) also goes into a file of the node's
 * session directory, one slot per rank and kind, so that each rank reads
 * its node peers' with local preads: through the key-value space alone, a
 * node of n ranks made 2 n^2 round trips to the launcher's single thread
 * at every start-up.  The key-value copy stays the fallback (no session
 * directory: another launcher; a slot that could not be written). */
#define BOARD_SLOT 1280
enum { BOARD_DESC, BOARD_VERDICT, BOARD_KINDS };
static const char *const board_key[BOARD_KINDS] = { "smap.peer", "smap.attached" };
static int board_fd = -1;

static void board_open(void)
{
    /* named after the job (a spawned job shares the directory), in
     * characters any file system takes */
    const char *dir = smap_boot_session_dir();
    char path[4096], job[sizeof smap_job.kvsname];
    size_t i = 0;
    for (; smap_job.kvsname[i] && i + 1 < sizeof job; i++) {
        char c = smap_job.kvsname[i];
        job[i] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? c : '_';
    }
    job[i] = 0;
    if (board_fd < 0 && dir &&
        (size_t)snprintf(path, sizeof path, "%s/smartmap-peers-%s", dir, job) < sizeof path)
        board_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
}

static void board_close(void)
{
    if (board_fd >= 0)
        close(board_fd);
    board_fd = -1;
}

static off_t board_at(int kind, int rank)
{
    return ((off_t)rank * BOARD_KINDS + kind) * BOARD_SLOT;
}

static int board_put(int kind, const char *val)
{
    char key[64];
    size_t len = strlen(val) + 1;
    board_open();
    if (board_fd >= 0 && len <= BOARD_SLOT)
        (void)!pwrite(board_fd, val, len, board_at(kind, smap_job.rank));
    snprintf(key, sizeof key, "%s.%d", board_key[kind], smap_job.rank);
    return smap_boot_put(key, val);
}

/* Rank r's value from the file, else from the key-value space. */
static int board_get(int kind, int r, char *val, size_t len)
{
    if (board_fd >= 0) {
        size_t want = len - 1 < BOARD_SLOT ? len - 1 : BOARD_SLOT;
        ssize_t got = pread(board_fd, val, want, board_at(kind, r));
        if (got > 0 && val[0] && memchr(val, 0, (size_t)got))
            return 0;
    }
    char key[64];
    snprintf(key, sizeof key, "%s.%d", board_key[kind], r);
    return smap_boot_get(key, val, len);
}

static int publish(const struct pdesc *self, int failed, const char *why)
{
    char val[SMAP_REASON_MAX + 16];
    _Static_assert(sizeof val <= BOARD_SLOT, "a description fits its slot");
    if (failed) {
        int n = snprintf(val, sizeof val, "failed:");
        reason_pack(why, val + n, sizeof val - (size_t)n);
    } else {
        encode(self, val, sizeof val);
    }
    return board_put(BOARD_DESC, val);
}

static int read_peers(struct attach *a)
{
    char val[BOARD_SLOT + 1];
    for (int lr = 0; lr < a->n; lr++) {
        if (lr == a->me)
            continue;
        if (board_get(BOARD_DESC, smap_job.local_ranks[lr], val, sizeof val) != 0) {
            snprintf(a->err, a->errlen, "local rank %d's region description is missing", lr);
            return -1;
        }
        if (strncmp(val, "failed:", 7) == 0) {
            char why[SMAP_REASON_MAX];
            reason_unpack(val + 7, why, sizeof why);
            snprintf(a->err, a->errlen, "local rank %d (rank %d) could not prepare its regions: %s",
                     lr, smap_job.local_ranks[lr], why);
            return -1;
        }
        if (decode(val, &a->d[lr]) != 0) {
            snprintf(a->err, a->errlen, "local rank %d's region description is malformed: '%.80s'",
                     lr, val);
            return -1;
        }
        a->pids[lr] = (pid_t)a->d[lr].pid;
    }
    return 0;
}

/* auto: /proc when every rank of the node can read every other's fds
 * (dumpable, one uid), else SCM_RIGHTS.  Decided from the published data,
 * so all ranks of the node choose alike. */
static int resolve_mode(const struct attach *a)
{
    if (a->requested != SMAP_ATTACH_AUTO)
        return a->requested;
    for (int lr = 0; lr < a->n; lr++)
        if (!a->d[lr].dumpable || a->d[lr].uid != a->d[a->me].uid)
            return SMAP_ATTACH_SOCKET;
    return SMAP_ATTACH_PROC;
}

/* ---- views ------------------------------------------------------------- */

/* Page tables for the populated parts only: SEEK_DATA/SEEK_HOLE find them,
 * MADV_POPULATE_READ fills them (writable PTEs too, for shmem).  Always
 * for the control, collectives and one-sided regions, which every message
 * or collective touches; for the heap, globals and stack only up to
 * SMAP_PREFAULT_MAX ranks on the node: it covers just what was populated
 * before MPI_Init, every rank does it for every peer (n^2 at start-up:
 * 130-160 ms of MPI_Init's mapping at 32 ranks on 2 CPUs, 8-14 ms
 * without), and a first touch later costs about 0.5 us a page read, 1.5
 * us written (the project notes on this machine kind). */
static void prefault(int fd, const struct rdesc *r, char *local)
{
    smap_prefault_file(fd, r->off, r->len, local);
}

void smap_prefault_file(int fd, size_t off, size_t flen, char *local)
{
    const struct rdesc rr = { .off = off, .len = flen }, *r = &rr;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    off_t pos = (off_t)r->off, end = (off_t)(r->off + r->len);
    while (pos < end) {
        off_t d = lseek(fd, pos, SEEK_DATA);
        if (d < 0 || d >= end)
            return;
        off_t h = lseek(fd, d, SEEK_HOLE);
        if (h < 0 || h > end)
            h = end;
        size_t lo = ((size_t)d - r->off) & ~(pg - 1);
        size_t hi = page_round((size_t)h - r->off);
        if (madvise(local + lo, hi - lo, MADV_POPULATE_READ) != 0 && errno == EINVAL)
            return;   /* kernel < 5.14: first touches will fault instead */
        pos = h;
    }
}

static int map_view(struct attach *a, int lr, int k, int fd)
{
    const struct rdesc *r = &a->d[lr].r[k];
    struct stat st;
    if (fstat(fd, &st) != 0 || (unsigned long long)st.st_ino != r->ino) {
        snprintf(a->err, a->errlen, "local rank %d's fd %d is not its %s region any more", lr, r->fd,
                 smap_region_name((enum smap_region_kind)k));
        return -1;
    }
    void *p = smap_view_mmap(fd, k, r->base, r->off, r->len);
    if (p == MAP_FAILED) {
        snprintf(a->err, a->errlen, "cannot map local rank %d's %s region (%zu bytes): %s", lr,
                 smap_region_name((enum smap_region_kind)k), page_round(r->len), strerror(errno));
        return -1;
    }
    if (k == SMAP_REGION_HEAP && p != (void *)r->base)
        smap_info("local rank %d's heap cannot sit at its own address %#lx here: its pointers "
                  "are translated", lr, (unsigned long)r->base);
    if (k >= SMAP_REGION_CTL || a->n <= smap_tun.prefault_max)
        prefault(fd, r, p);
    smap_peers[lr].view[k] = (struct smap_view){ r->base, r->len, (intptr_t)((uintptr_t)p - r->base) };
    return 0;
}

void *smap_view_mmap(int fd, int kind, uintptr_t base, uint64_t off, size_t len)
{
    len = page_round(len);
    void *p = MAP_FAILED;
    if (kind == SMAP_REGION_HEAP) {
        p = mmap((void *)base, len, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_NORESERVE | MAP_FIXED_NOREPLACE, fd, (off_t)off);
        if (p != MAP_FAILED && p != (void *)base) {   /* kernel without NOREPLACE */
            munmap(p, len);
            p = MAP_FAILED;
        }
    }
    if (p == MAP_FAILED)
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, (off_t)off);
    if (p != MAP_FAILED)
        (void)madvise(p, len, MADV_DONTDUMP);
    return p;
}

void smap_views_unmap(struct smap_peer *p)
{
    for (int k = 0; k < SMAP_REGION_KINDS; k++) {
        struct smap_view *v = &p->view[k];
        if (!v->len)
            continue;
        size_t len = page_round(v->len);
        void *local = (void *)(v->base + (uintptr_t)v->delta);
        v->len = 0;   /* translation fails from now on */
        munmap(local, len);
    }
}

static void unmap_peer(int lr)
{
    smap_views_unmap(&smap_peers[lr]);
}

/* Maps every region of lr whose fd we hold; already mapped ones are kept. */
static int map_peer(struct attach *a, int lr)
{
    for (int k = 0; k < SMAP_REGION_KINDS; k++) {
        int fd = a->fds[lr * SMAP_REGION_KINDS + k];
        if (fd >= 0 && !smap_peers[lr].view[k].len && map_view(a, lr, k, fd))
            return -1;
    }
    return 0;
}

static void close_fds(struct attach *a)
{
    for (int i = 0; i < a->n * SMAP_REGION_KINDS; i++)
        if (a->fds[i] >= 0) {
            close(a->fds[i]);
            a->fds[i] = -1;
        }
}

/* /proc or pidfd_getfd, peer by peer.  Returns an ATTACH_* flag. */
static int attach_direct(struct attach *a)
{
    for (int lr = 0; lr < a->n; lr++) {
        if (lr == a->me)
            continue;
        for (int k = 0; k < SMAP_REGION_KINDS; k++) {
            int pfd = a->d[lr].r[k].fd, *slot = &a->fds[lr * SMAP_REGION_KINDS + k];
            if (pfd < 0 || *slot >= 0)
                continue;
            char why[200];
            *slot = a->mode == SMAP_ATTACH_PROC
                        ? smap_fd_from_proc(a->pids[lr], pfd, why, sizeof why)
                        : smap_fd_from_pidfd(smap_peers[lr].pidfd, pfd, why, sizeof why);
            if (*slot < 0) {
                snprintf(a->err, a->errlen, "SMAP_ATTACH=%s: cannot get local rank %d's (rank %d, "
                         "pid %ld) %s region: %s", smap_attach_name(a->mode), lr,
                         smap_job.local_ranks[lr], (long)a->pids[lr],
                         smap_region_name((enum smap_region_kind)k), why);
                return ATTACH_SOFT;
            }
        }
        if (map_peer(a, lr))
            return ATTACH_HARD;
    }
    return ATTACH_OK;
}

static int attach_socket(struct attach *a)
{
    int own[SMAP_REGION_KINDS];
    for (int k = 0; k < SMAP_REGION_KINDS; k++)
        own[k] = a->d[a->me].r[k].fd;
    close_fds(a);
    uint64_t tokens[a->n];
    for (int lr = 0; lr < a->n; lr++)
        tokens[lr] = a->d[lr].sock;
    if (smap_fdsock_exchange(a->lsock, a->me, a->n, a->pids, tokens, own, a->fds, a->err,
                             a->errlen))
        return ATTACH_HARD;
    for (int lr = 0; lr < a->n; lr++)
        if (lr != a->me && map_peer(a, lr))
            return ATTACH_HARD;
    return ATTACH_OK;
}

static void open_pidfds(struct attach *a)
{
    for (int lr = 0; lr < a->n; lr++) {
        smap_peers[lr].pid = a->pids[lr];
        smap_peers[lr].alive = 1;
        /* valgrind before 3.20 warns about pidfd_open at length on every
         * rank; smap_peers_reap() does without (kill(pid, 0)). */
        if (lr != a->me && smap_peers[lr].pidfd < 0 && !smap_under_valgrind())
            smap_peers[lr].pidfd = (int)syscall(SYS_pidfd_open, a->pids[lr], 0);
    }
}

/* Fence 2: every rank says how it went; the node's ranks read each other's
 * verdict.  Returns the worst flag of the node and, for a failure
 * elsewhere, the first local rank that failed. */
static int agree(struct attach *a, int mine, int *who, char *why, size_t whylen)
{
    char val[SMAP_REASON_MAX + 16];
    int n = snprintf(val, sizeof val, "%d:", mine);
    reason_pack(mine ? a->err : "", val + n, sizeof val - (size_t)n);
    if (board_put(BOARD_VERDICT, val) || smap_boot_fence())
        return ATTACH_HARD;
    int worst = mine;
    *who = mine ? a->me : -1;
    for (int lr = 0; lr < a->n; lr++) {
        if (lr == a->me)
            continue;
        int f = board_get(BOARD_VERDICT, smap_job.local_ranks[lr], val, sizeof val) == 0
                    ? atoi(val)
                    : ATTACH_HARD;
        if (f > worst)
            worst = f;
        if (f && *who < 0) {
            *who = lr;
            const char *colon = strchr(val, ':');
            reason_unpack(colon ? colon + 1 : "", why, whylen);
        }
    }
    return worst;
}

/* ---- init / finalize --------------------------------------------------- */

static int alloc_state(struct attach *a)
{
    a->d = calloc((size_t)a->n, sizeof *a->d);
    a->pids = calloc((size_t)a->n, sizeof *a->pids);
    a->fds = malloc((size_t)a->n * SMAP_REGION_KINDS * sizeof *a->fds);
    int cap = smap_peers_capacity();
    smap_peers = calloc((size_t)cap, sizeof *smap_peers);
    if (!a->d || !a->pids || !a->fds || !smap_peers) {
        snprintf(a->err, a->errlen, "out of memory attaching %d node peers", a->n);
        return -1;
    }
    for (int i = 0; i < a->n * SMAP_REGION_KINDS; i++)
        a->fds[i] = -1;
    for (int lr = 0; lr < cap; lr++)
        smap_peers[lr].pidfd = -1;
    return 0;
}

/* Everything before fence 1: settings, the control region, our socket. */
static int prepare(struct attach *a)
{
    a->requested = smap_attach_parse(smap_tun.attach);
    if (a->requested < 0) {
        snprintf(a->err, a->errlen, "SMAP_ATTACH='%s' is not one of auto|proc|pidfd|socket",
                 smap_tun.attach ? smap_tun.attach : "");
        return -1;
    }
    if (smap_ctl_create(a->err, a->errlen) || smap_coll_region_create(a->err, a->errlen) ||
        smap_rma_region_create(a->err, a->errlen))
        return -1;
    if (smap_heap_exposed() && smap_early_local_rank() != a->me)
        smap_warn("the heap slot was chosen for local rank %d but this is local rank %d: "
                  "heap pointers will need translation", smap_early_local_rank(), a->me);
    describe_self(&a->d[a->me]);
    a->pids[a->me] = getpid();
    if (a->n > 1 && (a->requested == SMAP_ATTACH_AUTO || a->requested == SMAP_ATTACH_SOCKET)) {
        uint64_t token;
        a->lsock = smap_fdsock_listen(a->n + 4, &token, a->err, a->errlen);
        if (a->lsock < 0)
            return -1;
        a->d[a->me].sock = token;
    }
    return 0;
}

static int attach_all(struct attach *a, int failed)
{
    int mine = failed ? ATTACH_HARD : ATTACH_OK;
    if (!failed) {
        a->mode = resolve_mode(a);
        double t = now_ms();
        open_pidfds(a);
        mine = a->mode == SMAP_ATTACH_SOCKET ? attach_socket(a) : attach_direct(a);
        a->map_ms = now_ms() - t;
        if (mine == ATTACH_SOFT && a->requested == SMAP_ATTACH_AUTO)
            smap_info("%s; trying SCM_RIGHTS", a->err);
    }
    int who = -1;
    char why[SMAP_REASON_MAX];
    int worst = agree(a, mine, &who, why, sizeof why);
    if (worst == ATTACH_SOFT && a->requested == SMAP_ATTACH_AUTO && a->lsock >= 0) {
        a->mode = SMAP_ATTACH_SOCKET;
        return attach_socket(a) == ATTACH_OK ? 0 : -1;
    }
    if (worst != ATTACH_OK) {
        if (!mine && who >= 0)
            snprintf(a->err, a->errlen, "local rank %d (rank %d) could not attach its node peers: %s",
                     who, smap_job.local_ranks[who], why);
        return -1;
    }
    return 0;
}

/* ---- unmapping at MPI_Finalize, deferred -------------------------------
 * Unmapping a populated view of a live process costs TLB shootdowns, one
 * per batch of pages (an IPI to every CPU the process ran on; in a virtual
 * machine a hypercall), where the same pages cost next to nothing when the
 * process exits (nothing else can be using its page tables then).  With
 * every view unmapped in MPI_Finalize, a 32-rank job on 2 CPUs spent
 * 0.4-1 s per rank there, more than MPI_Init.  Most programs exit right
 * after MPI_Finalize, so the views are left to the exit: a thread unmaps
 * them after SMAP_UNMAP_DELAY ms only if the process is still running then
 * (their memory must not stay pinned by a process that lingers). */
struct span {
    uintptr_t lo;
    size_t len;
};
static struct span *pending;   /* views left mapped by MPI_Finalize */
static int npending;

static void unmap_pending(void)
{
    for (int i = 0; i < npending; i++)
        munmap((void *)pending[i].lo, pending[i].len);
    npending = 0;
}

static void *unmap_later(void *arg)
{
    long ms = (long)(intptr_t)arg;
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
    unmap_pending();
    return NULL;
}

/* Hands every view to the unmapping thread; 0, or -1 when it cannot be
 * (the caller unmaps them now). */
static int defer_unmap(int n)
{
    long ms = smap_tun.unmap_delay;
    if (ms <= 0 || npending || !(pending = malloc((size_t)n * SMAP_REGION_KINDS * sizeof *pending)))
        return -1;
    for (int lr = 0; lr < n; lr++)
        for (int k = 0; k < SMAP_REGION_KINDS; k++) {
            struct smap_view *v = &smap_peers[lr].view[k];
            if (v->len)
                pending[npending++] =
                    (struct span){ v->base + (uintptr_t)v->delta, page_round(v->len) };
        }
    pthread_attr_t at;
    pthread_t tid;
    sigset_t all, old;
    sigfillset(&all);
    /* the thread takes no signal of the program's */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_attr_init(&at) ? -1 : 0;
    if (!rc) {
        (void)pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        (void)pthread_attr_setstacksize(&at, (size_t)64 << 10);
        rc = pthread_create(&tid, &at, unmap_later, (void *)(intptr_t)ms) ? -1 : 0;
        pthread_attr_destroy(&at);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        npending = 0;
        free(pending);
        pending = NULL;
        return -1;
    }
    for (int lr = 0; lr < n; lr++)
        for (int k = 0; k < SMAP_REGION_KINDS; k++)
            smap_peers[lr].view[k].len = 0;   /* translation fails from now on */
    return 0;
}

/* defer: MPI_Finalize's teardown (a fork child unmaps at once and must not
 * allocate). */
static void teardown(int defer)
{
    int n = smap_npeers;   /* the job's node ranks and the other jobs' processes */
    attached = 0;
    smap_nlocal = 0;
    smap_npeers = 0;   /* translations fail from here on */
    smap_my_local_rank = -1;
    if (!smap_peers)
        return;
    if (!defer || defer_unmap(n) != 0)
        for (int lr = 0; lr < n; lr++)
            unmap_peer(lr);
    for (int lr = 0; lr < n; lr++) {
        if (smap_peers[lr].pidfd >= 0)
            close(smap_peers[lr].pidfd);
        smap_peers[lr].pidfd = -1;
    }
}

/* Attaching holds a few memory files per node peer at once (more while
 * they are received): a soft open-file limit of 64 or 256, common on
 * login shells and CI runners, stopped MPI_Init of an 8- or 40-rank job.
 * The soft limit is raised as far as the hard one allows, as Go's runtime
 * and systemd do; the hard limit is the administrator's. */
static void raise_fd_limit(int nlocal)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)nlocal * 16 + 256;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
        return;
    rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need ? rl.rlim_max : need;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        smap_debug("cannot raise the soft open-file limit: %s", strerror(errno));
}

int smap_init(char *err, size_t errlen)
{
    if (attached)
        return 0;
    double t0 = now_ms();
    raise_fd_limit(smap_job.local_size);
    struct attach a = { .n = smap_job.local_size, .me = smap_job.local_rank, .lsock = -1,
                        .err = err, .errlen = errlen };
    int failed = alloc_state(&a);
    if (!failed) {
        smap_my_local_rank = a.me;
        smap_nlocal = a.n;   /* smap_node_barrier() uses the bootstrap until attached */
        smap_npeers = a.n;
        smap_peers_reserve(a.n);
        failed = prepare(&a);
    }
    /* Fence 1 even after a failure: the others must not wait for us. */
    if (publish(a.d ? &a.d[a.me] : NULL, failed || !a.d, err) || smap_boot_fence()) {
        snprintf(err, errlen, "cannot exchange region descriptions through the bootstrap");
        failed = 1;
    }
    if (!failed)
        failed = read_peers(&a);
    int rc = attach_all(&a, failed);
    board_close();
    double t2 = now_ms();
    if (a.fds)
        close_fds(&a);
    if (a.lsock >= 0)
        close(a.lsock);
    free(a.d);
    free(a.pids);
    free(a.fds);
    if (rc) {
        teardown(0);
        free(smap_peers);
        smap_peers = NULL;
        return -1;
    }
    attached = 1;
    /* The copy engine's probe needs live, attached peers. */
    if (smap_caps_probe(err, errlen) != 0) {
        teardown(0);
        free(smap_peers);
        smap_peers = NULL;
        return -1;
    }
    smap_debug("attached %d node peers by %s in %.3f ms (fds and mappings %.3f ms)", a.n - 1,
               smap_attach_name(a.n > 1 ? a.mode : a.requested), t2 - t0, a.map_ms);
    return 0;
}

void smap_finalize(void)
{
    if (!attached)
        return;
    /* Nobody unmaps while a peer may still be reading our memory. */
    (void)smap_node_barrier();
    teardown(1);
    free(smap_peers);
    smap_peers = NULL;
}

int smap_peers_reap(void)
{
    /* processes of other jobs too (foreign.c): found dead as a node peer is */
    int n = smap_npeers, dead = 0;
    if (!attached || n <= 1)
        return 0;
    struct pollfd pf[n];
    for (int lr = 0; lr < n; lr++) {
        int watch = lr != smap_my_local_rank && smap_peers[lr].alive && smap_peers[lr].pidfd >= 0;
        pf[lr] = (struct pollfd){ .fd = watch ? smap_peers[lr].pidfd : -1, .events = POLLIN };
    }
    (void)poll(pf, (nfds_t)n, 0);   /* a pidfd turns readable when its process exits */
    for (int lr = 0; lr < n; lr++) {
        struct smap_peer *p = &smap_peers[lr];
        if (lr == smap_my_local_rank || !p->alive || p->pid <= 0)
            continue;
        int gone = p->pidfd >= 0 ? (pf[lr].revents & (POLLIN | POLLHUP)) != 0
                                 : kill(p->pid, 0) != 0 && errno == ESRCH;
        if (!gone)
            continue;
        /* Its memory is freed only when the last mapping goes (§3.7). */
        unmap_peer(lr);
        p->alive = 0;
        if (p->pidfd >= 0)
            close(p->pidfd);
        p->pidfd = -1;
        dead++;
        smap_debug("local rank %d (pid %ld) exited: its regions are unmapped", lr, (long)p->pid);
    }
    return dead;
}

/* A fork child is not a rank: it drops the views (inherited mappings of
 * the peers' files) and must not free anything here, because this may run
 * in an atfork child handler before the allocator's own. */
void smap_peers_forget(void)
{
    if (smap_peers)
        teardown(0);
    unmap_pending();   /* the parent's unmapping thread is not ours */
}
