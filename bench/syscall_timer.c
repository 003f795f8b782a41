/* syscall_timer.c — where a small message's time goes, per rank, for any
 * MPI over sockets (smartmap over libfabric, MPICH over UCX, Open MPI's
 * tcp BTL, fi_pingpong): an LD_PRELOAD library that times the socket
 * system calls of a ping-pong and the user-space time between them.
 *
 *   cc -O2 -shared -fPIC -o /tmp/syscall_timer.so bench/syscall_timer.c -ldl
 *   mpiexec ... -x LD_PRELOAD=/tmp/syscall_timer.so bench/work/smartmap/latency ...
 *   (MPICH: -genv LD_PRELOAD ...; fi_pingpong: LD_PRELOAD=... in its environment)
 *
 * At exit each process that received at least 1000 messages prints, on
 * stderr, the 10th, 50th and 90th percentiles (ns) of:
 *   turn      a receive that returned data -> the next send's entry: the
 *             library's own time on a ping-pong's critical path (matching,
 *             completion, the application, the send path);
 *   recv      a receive system call that returned data;
 *   send      a send system call (over veth it includes the kernel's
 *             delivery to the peer's socket);
 *   epoll0    an epoll_wait that found nothing;
 *   period    from one epoll_wait to the next while waiting: the polling
 *             loop's period (half of it is the mean detection delay);
 *   rdy2recv  an epoll_wait that found data -> the receive's entry;
 * and the counts of messages (receives with data) and epoll_waits.
 * Timing with CLOCK_MONOTONIC (vDSO) adds some 30 ns per call timed.
 * Only the first 400000 samples of each series are kept. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define NSAMPLES 400000

struct series {
    const char *name;
    int n;
    int v[NSAMPLES];
};

static struct series s_turn = { .name = "turn" }, s_recv = { .name = "recv" },
                     s_send = { .name = "send" }, s_epoll0 = { .name = "epoll0" },
                     s_period = { .name = "period" }, s_rdy = { .name = "rdy2recv" };
static long long last_rx, last_epoll, ready_at;
static long nmsgs, nepoll;

static inline long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static inline void add(struct series *s, long long v)
{
    if (s->n < NSAMPLES)
        s->v[s->n++] = (int)v;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void report(struct series *s)
{
    if (!s->n)
        return;
    qsort(s->v, (size_t)s->n, sizeof s->v[0], cmp_int);
    fprintf(stderr, "[syscall_timer %d] %-8s n=%d p10=%d p50=%d p90=%d ns\n", (int)getpid(),
            s->name, s->n, s->v[s->n / 10], s->v[s->n / 2], s->v[s->n * 9 / 10]);
}

__attribute__((destructor)) static void finish(void)
{
    if (nmsgs < 1000)
        return;
    fprintf(stderr, "[syscall_timer %d] messages=%ld epoll_wait=%ld\n", (int)getpid(), nmsgs,
            nepoll);
    struct series *all[] = { &s_turn, &s_recv, &s_send, &s_epoll0, &s_period, &s_rdy };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        report(all[i]);
}

static void *next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "syscall_timer: no %s to wrap\n", name);
        abort();
    }
    return f;
}

/* A send starts: the turn since the last receive ends here. */
static inline long long sending(void)
{
    long long t = now_ns();
    if (last_rx) {
        add(&s_turn, t - last_rx);
        last_rx = 0;
    }
    return t;
}

static inline ssize_t sent(ssize_t r, long long t0)
{
    add(&s_send, now_ns() - t0);
    return r;
}

static inline ssize_t received(ssize_t r, long long t0)
{
    long long t1 = now_ns();
    if (ready_at) {
        add(&s_rdy, t0 - ready_at);
        ready_at = 0;
    }
    if (r > 0) {
        add(&s_recv, t1 - t0);
        last_rx = t1;
        nmsgs++;
    }
    return r;
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
    static ssize_t (*f)(int, const void *, size_t, int);
    if (!f)
        f = next("send");
    long long t0 = sending();
    return sent(f(fd, buf, len, flags), t0);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *a,
               socklen_t alen)
{
    static ssize_t (*f)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
    if (!f)
        f = next("sendto");
    long long t0 = sending();
    return sent(f(fd, buf, len, flags, a, alen), t0);
}

ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
    static ssize_t (*f)(int, const struct msghdr *, int);
    if (!f)
        f = next("sendmsg");
    long long t0 = sending();
    return sent(f(fd, m, flags), t0);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    static ssize_t (*f)(int, const struct iovec *, int);
    if (!f)
        f = next("writev");
    long long t0 = sending();
    return sent(f(fd, iov, cnt), t0);
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    static ssize_t (*f)(int, void *, size_t, int);
    if (!f)
        f = next("recv");
    long long t0 = now_ns();
    return received(f(fd, buf, len, flags), t0);
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *a, socklen_t *alen)
{
    static ssize_t (*f)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
    if (!f)
        f = next("recvfrom");
    long long t0 = now_ns();
    return received(f(fd, buf, len, flags, a, alen), t0);
}

ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
    static ssize_t (*f)(int, struct msghdr *, int);
    if (!f)
        f = next("recvmsg");
    long long t0 = now_ns();
    return received(f(fd, m, flags), t0);
}

ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
    static ssize_t (*f)(int, const struct iovec *, int);
    if (!f)
        f = next("readv");
    long long t0 = now_ns();
    return received(f(fd, iov, cnt), t0);
}

int epoll_wait(int ep, struct epoll_event *ev, int max, int timeout)
{
    static int (*f)(int, struct epoll_event *, int, int);
    if (!f)
        f = next("epoll_wait");
    long long t0 = now_ns();
    if (last_epoll && !last_rx)
        add(&s_period, t0 - last_epoll);
    last_epoll = t0;
    int r = f(ep, ev, max, timeout);
    long long t1 = now_ns();
    if (r == 0)
        add(&s_epoll0, t1 - t0);
    else if (r > 0)
        ready_at = t1;
    nepoll++;
    return r;
}
