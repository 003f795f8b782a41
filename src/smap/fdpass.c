/* Getting a node peer's region file descriptors (findings §2 item 2, §3.6).
 *
 * Three ways, chosen by SMAP_ATTACH (peers.c decides "auto"):
 *  - proc:   open("/proc/<pid>/fd/<n>"): needs PTRACE_MODE_READ on the
 *            owner, so the owner must be dumpable with our uid (or we hold
 *            CAP_SYS_PTRACE);
 *  - pidfd:  pidfd_getfd(): needs PTRACE_MODE_ATTACH, same conditions;
 *  - socket: the owner hands its fds over with SCM_RIGHTS on an abstract
 *            Unix socket: works for non-dumpable owners and across uids,
 *            and leaves no file behind (abstract names vanish with the
 *            socket).
 * Fds that arrive sharing the owner's open file description are reopened
 * through /proc/self/fd so that our lseek(SEEK_DATA) never moves the
 * owner's file offset. */
#define _GNU_SOURCE
#include "base/compiler.h"
#include "smap/smap.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "boot/boot.h"

int smap_attach_parse(const char *s)
{
    static const char *const names[] = { "auto", "proc", "pidfd", "socket" };
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (s && strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

const char *smap_attach_name(int mode)
{
    static const char *const names[] = { "auto", "proc", "pidfd", "socket" };
    return mode >= 0 && mode < 4 ? names[mode] : "?";
}

/* A private open file description for the same file (own offset). */
static int reopen_private(int fd, char *err, size_t errlen)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int nfd = open(path, O_RDWR | O_CLOEXEC);
    if (nfd < 0)
        snprintf(err, errlen, "cannot reopen a received memory file (%s): %s", path, strerror(errno));
    close(fd);
    return nfd;
}

int smap_fd_from_proc(pid_t pid, int fd, char *err, size_t errlen)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd/%d", (long)pid, fd);
    int nfd = open(path, O_RDWR | O_CLOEXEC);
    if (nfd < 0)
        snprintf(err, errlen, "cannot open %s: %s%s", path, strerror(errno),
                 errno == EACCES || errno == EPERM
                     ? " (the peer is not dumpable or runs as another user; "
                       "SMAP_ATTACH=socket works there)"
                     : "");
    return nfd;
}

int smap_fd_from_pidfd(int pidfd, int fd, char *err, size_t errlen)
{
    if (pidfd < 0) {
        snprintf(err, errlen, "pidfd_open is not available (kernel older than 5.3?)");
        return -1;
    }
    int nfd = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
    if (nfd < 0) {
        snprintf(err, errlen, "pidfd_getfd(fd %d) failed: %s%s", fd, strerror(errno),
                 errno == EPERM ? " (ptrace access to the peer is not permitted; "
                                  "SMAP_ATTACH=socket works there)"
                                : "");
        return -1;
    }
    return reopen_private(nfd, err, errlen);
}

/* ---- SCM_RIGHTS over abstract Unix sockets ----------------------------- */

struct fdmsg_hdr {
    uint32_t magic;
    uint32_t lr;        /* sender's local rank */
    uint32_t mask;      /* bit k: region kind k's fd is attached (in order) */
};
#define FDMSG_MAGIC 0x534d4150u   /* "SMAP" */

/* Abstract names live in the network namespace, where any local user may
 * take a name first: each rank's is random ("smartmap.<64 random bits>",
 * drawn again when taken) and reaches its peers in its description
 * (peers.c), so no name can be taken in advance to stop a job, whatever
 * the launcher (D18); a connector still checks the listener's pid. */
static socklen_t sock_name(struct sockaddr_un *a, uint64_t token)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "smartmap.%016llx",
                     (unsigned long long)token);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static uint64_t random_token(void)
{
    uint64_t t = 0;
    if (getrandom(&t, sizeof t, GRND_NONBLOCK) != (ssize_t)sizeof t) {
        struct timespec ts;   /* no entropy yet: unpredictable enough to retry on */
        clock_gettime(CLOCK_MONOTONIC, &ts);
        t = ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 16);
    }
    return t ? t : 1;
}

int smap_fdsock_listen(int backlog, uint64_t *token, char *err, size_t errlen)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        snprintf(err, errlen, "cannot create the attach socket: %s", strerror(errno));
        return -1;
    }
    struct sockaddr_un a;
    for (int tries = 0; tries < 16; tries++) {
        *token = random_token();
        socklen_t alen = sock_name(&a, *token);
        if (bind(s, (struct sockaddr *)&a, alen) == 0) {
            if (listen(s, backlog) == 0) {
                smap_debug("attach socket @%s", a.sun_path + 1);
                return s;
            }
            break;
        }
        if (errno != EADDRINUSE)
            break;
    }
    snprintf(err, errlen, "cannot listen on the abstract socket @%s: %s", a.sun_path + 1,
             strerror(errno));
    close(s);
    return -1;
}

static pid_t sock_peer_pid(int s)
{
    struct ucred cr;
    socklen_t len = sizeof cr;
    return getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 ? cr.pid : -1;
}

/* Waits until fd is readable.  A peer that dies would leave us waiting
 * forever (the launcher normally kills the job first): poll in short steps
 * and give up when any node peer has gone. */
static int wait_readable(int fd, int nlocal, int me, const pid_t *pids, char *err, size_t errlen)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int rc = poll(&p, 1, 100);
        if (rc > 0)
            return 0;
        if (rc < 0 && errno != EINTR) {
            snprintf(err, errlen, "poll on the attach socket failed: %s", strerror(errno));
            return -1;
        }
        for (int lr = 0; lr < nlocal; lr++) {
            if (lr != me && kill(pids[lr], 0) != 0 && errno == ESRCH) {
                snprintf(err, errlen, "local rank %d (pid %ld) died while the node attached", lr,
                         (long)pids[lr]);
                return -1;
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 300) {
            snprintf(err, errlen, "node peers did not exchange memory files within 300 s");
            return -1;
        }
    }
}

static int connect_to(uint64_t token, int lr, pid_t expect, char *err, size_t errlen)
{
    struct sockaddr_un a;
    socklen_t alen = sock_name(&a, token);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int rc = -1;
    if (s >= 0) {
        do
            rc = connect(s, (struct sockaddr *)&a, alen);
        while (rc != 0 && errno == EINTR);
    }
    if (rc != 0) {
        snprintf(err, errlen, "cannot connect to local rank %d's socket @%s: %s", lr,
                 a.sun_path + 1, strerror(errno));
    } else if (sock_peer_pid(s) != expect) {
        /* Someone else holds that name: never take memory from it. */
        snprintf(err, errlen, "the socket @%s belongs to pid %ld, not to local rank %d (pid %ld)",
                 a.sun_path + 1, (long)sock_peer_pid(s), lr, (long)expect);
        rc = -1;
    }
    if (rc != 0 && s >= 0) {
        close(s);
        s = -1;
    }
    return s;
}

static int send_fds(int s, int me, const int *own_fds, char *err, size_t errlen)
{
    struct fdmsg_hdr h = { FDMSG_MAGIC, (uint32_t)me, 0 };
    int fds[SMAP_REGION_KINDS], n = 0;
    for (int k = 0; k < SMAP_REGION_KINDS; k++)
        if (own_fds[k] >= 0) {
            h.mask |= 1u << k;
            fds[n++] = own_fds[k];
        }
    union { char buf[CMSG_SPACE(sizeof fds)]; struct cmsghdr align; } c;
    memset(&c, 0, sizeof c);
    struct iovec iov = { &h, sizeof h };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    if (n > 0) {
        m.msg_control = c.buf;
        m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
        memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)n);
    }
    ssize_t w;
    do
        w = sendmsg(s, &m, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)sizeof h) {
        snprintf(err, errlen, "cannot send memory files to a node peer: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static int recv_fds(int s, int lr, int *out, char *err, size_t errlen)
{
    struct fdmsg_hdr h;
    union { char buf[CMSG_SPACE(sizeof(int) * SMAP_REGION_KINDS)]; struct cmsghdr align; } c;
    struct iovec iov = { &h, sizeof h };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf,
                        .msg_controllen = sizeof c.buf };
    ssize_t r;
    do
        r = recvmsg(s, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL);
    while (r < 0 && errno == EINTR);
    int fds[SMAP_REGION_KINDS], n = 0;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); r > 0 && cm; cm = CMSG_NXTHDR(&m, cm))
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
            n = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            memcpy(fds, CMSG_DATA(cm), sizeof(int) * (size_t)n);
        }
    int want = r == (ssize_t)sizeof h ? smap_popcount_u32(h.mask) : -1;
    if (r != (ssize_t)sizeof h || h.magic != FDMSG_MAGIC || h.lr != (uint32_t)lr || want != n ||
        (m.msg_flags & MSG_CTRUNC)) {
        for (int i = 0; i < n; i++)
            close(fds[i]);
        snprintf(err, errlen, "bad memory-file message from local rank %d (%s)", lr,
                 r < 0 ? strerror(errno) : r == 0 ? "connection closed" : "malformed");
        return -1;
    }
    for (int k = 0, i = 0; k < SMAP_REGION_KINDS; k++)
        out[k] = (h.mask & (1u << k)) ? fds[i++] : -1;
    for (int k = 0; k < SMAP_REGION_KINDS; k++)
        if (out[k] >= 0 && (out[k] = reopen_private(out[k], err, errlen)) < 0)
            return -1;
    return 0;
}

/* Serves one connection: who it is (by pid) decides nothing but the check
 * that it is a node peer; everybody gets the same fds. */
static int serve_one(int lsock, int me, int nlocal, const pid_t *pids, const int *own_fds,
                     char *err, size_t errlen)
{
    if (wait_readable(lsock, nlocal, me, pids, err, errlen))
        return -1;
    int c;
    do
        c = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);
    while (c < 0 && errno == EINTR);
    if (c < 0) {
        snprintf(err, errlen, "accept on the attach socket failed: %s", strerror(errno));
        return -1;
    }
    pid_t pid = sock_peer_pid(c);
    int known = 0;
    for (int lr = 0; lr < nlocal; lr++)
        known |= lr != me && pids[lr] == pid;
    int rc = 0;
    if (!known) {
        /* Not one of our node's ranks: hand it nothing, keep serving. */
        smap_early_warn("refused a connection on the attach socket from a process that is not a node peer");
        rc = 1;
    } else {
        rc = send_fds(c, me, own_fds, err, errlen);
    }
    close(c);
    return rc;
}

int smap_fdsock_exchange(int lsock, int me, int nlocal, const pid_t *pids,
                         const uint64_t *tokens, const int *own_fds, int *peer_fds, char *err,
                         size_t errlen)
{
    int rc = 0;
    int conns[nlocal > 0 ? nlocal : 1];
    for (int lr = 0; lr < nlocal; lr++)
        conns[lr] = -1;
    /* The order makes it deadlock-free: every listen() (backlog >= nlocal)
     * happened before the fence, so connect() never waits; accepts wait
     * only for connects, which everyone does first; the sends need no
     * reader; the receives wait only for sends. */
    for (int lr = 0; lr < nlocal && rc == 0; lr++)
        if (lr != me && (conns[lr] = connect_to(tokens[lr], lr, pids[lr], err, errlen)) < 0)
            rc = -1;
    for (int served = 0; rc == 0 && served < nlocal - 1;) {
        int r = serve_one(lsock, me, nlocal, pids, own_fds, err, errlen);
        if (r < 0)
            rc = -1;
        else if (r == 0)
            served++;
    }
    for (int lr = 0; lr < nlocal && rc == 0; lr++) {
        if (lr == me)
            continue;
        if (wait_readable(conns[lr], nlocal, me, pids, err, errlen) ||
            recv_fds(conns[lr], lr, &peer_fds[lr * SMAP_REGION_KINDS], err, errlen))
            rc = -1;
    }
    for (int lr = 0; lr < nlocal; lr++)
        if (conns[lr] >= 0)
            close(conns[lr]);
    return rc;
}
