/* Ports: a listening TCP socket of this process, named
 * "smap-port:ADDR:PORT:NONCE".  The address is this host's first
 * non-loopback IPv4 address that is up (the emulated hosts' 198.18/15
 * one), else loopback; the nonce (random) must come back in the
 * connector's hello, so a stray connection is turned away.  The socket
 * only carries the handshake (bridge.c); the traffic itself goes through
 * src/net.
 *
 * Under MPI_THREAD_MULTIPLE threads open, close and accept on ports at
 * once: the list is behind a mutex, and an accept holds a reference to
 * its port, so that MPI_Close_port from another thread neither frees it
 * nor closes its socket under the waiting accept: close marks it closed
 * and shuts the socket down, the accept sees the mark and fails with
 * MPI_ERR_PORT (on every member of the group: bridge.c's verdict), and
 * whoever leaves last closes the socket. */
#define _GNU_SOURCE   /* accept4 */
#include "spawn/internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpi/errors.h"
#include "p2p/p2p.h"

struct port {
    struct port *next;
    int fd;
    int users;               /* accepts waiting on it (under ports_lock) */
    atomic_int closed;       /* MPI_Close_port came: the waiting accepts fail */
    char name[SMAP_PORT_NAME_MAX];
};

static struct port *ports;
static pthread_mutex_t ports_lock = PTHREAD_MUTEX_INITIALIZER;

static void host_addr(struct in_addr *a)
{
    struct ifaddrs *ifs = NULL, *i;
    a->s_addr = htonl(INADDR_LOOPBACK);
    if (getifaddrs(&ifs) != 0)
        return;
    for (i = ifs; i; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
            !(i->ifa_flags & IFF_LOOPBACK)) {
            *a = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr;
            break;
        }
    freeifaddrs(ifs);
}

int smap_port_open(char *name, const char *func)
{
    struct port *p = calloc(1, sizeof *p);
    unsigned char nonce[8];
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t sl = sizeof sa;
    if (!p)
        return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, func, "out of memory");
    host_addr(&sa.sin_addr);
    p->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (p->fd < 0 || bind(p->fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(p->fd, 64) != 0 || getsockname(p->fd, (struct sockaddr *)&sa, &sl) != 0 ||
        getrandom(nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce) {
        int e = errno;
        if (p->fd >= 0)
            close(p->fd);
        free(p);
        return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_PORT, func,
                              "cannot listen on a TCP socket for the port: %s", strerror(e));
    }
    char a[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &sa.sin_addr, a, sizeof a);
    snprintf(p->name, sizeof p->name, "smap-port:%s:%u:%02x%02x%02x%02x%02x%02x%02x%02x", a,
             (unsigned)ntohs(sa.sin_port), nonce[0], nonce[1], nonce[2], nonce[3], nonce[4],
             nonce[5], nonce[6], nonce[7]);
    snprintf(name, MPI_MAX_PORT_NAME, "%s", p->name);
    pthread_mutex_lock(&ports_lock);
    p->next = ports;
    ports = p;
    pthread_mutex_unlock(&ports_lock);
    return MPI_SUCCESS;
}

/* Under ports_lock. */
static struct port **find(const char *name)
{
    struct port **pp = &ports;
    while (*pp && strcmp((*pp)->name, name) != 0)
        pp = &(*pp)->next;
    return pp;
}

/* Under ports_lock: the last one out (close or accept) frees. */
static void port_release(struct port *p)
{
    if (atomic_load_explicit(&p->closed, memory_order_relaxed) && p->users == 0) {
        close(p->fd);
        free(p);
    }
}

int smap_port_close(const char *name, const char *func)
{
    pthread_mutex_lock(&ports_lock);
    struct port **pp = find(name), *p = *pp;
    if (p) {
        *pp = p->next;
        atomic_store_explicit(&p->closed, 1, memory_order_release);
        if (p->users)
            shutdown(p->fd, SHUT_RDWR);   /* wakes a poll on it at once */
        port_release(p);
    }
    pthread_mutex_unlock(&ports_lock);
    if (!p)
        return smap_err_raise(MPI_COMM_WORLD, MPI_ERR_PORT, func,
                              "port_name \"%.64s\" is not a port this process opened", name);
    return MPI_SUCCESS;
}

int smap_port_parse(const char *name, struct sockaddr_in *sa, char nonce[SMAP_NONCE_LEN + 1])
{
    char a[64];
    unsigned port;
    int used = 0;
    memset(sa, 0, sizeof *sa);
    if (sscanf(name, "smap-port:%63[0-9.]:%u:%16[0-9a-f]%n", a, &port, nonce, &used) != 3 ||
        name[used] || strlen(nonce) != SMAP_NONCE_LEN || port == 0 || port > 65535 ||
        inet_pton(AF_INET, a, &sa->sin_addr) != 1)
        return -1;
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    return 0;
}

/* Waits until fd is ready for `events`, progressing point-to-point
 * meanwhile (a blocked root must not stall its job's traffic). */
int smap_port_wait(int fd, short events)
{
    for (;;) {
        struct pollfd p = { .fd = fd, .events = events };
        int rc = poll(&p, 1, 1);
        if (rc > 0)
            return 0;
        if (rc < 0 && errno != EINTR)
            return -1;
        smap_p2p_progress();
    }
}

/* Waits for a connection on p, progressing point-to-point meanwhile; 0,
 * or -1 with *why (the port closed under us, or the socket failed). */
static int accept_on(struct port *p, int *fd, const char **why)
{
    for (;;) {
        if (atomic_load_explicit(&p->closed, memory_order_acquire)) {
            *why = "the port was closed (MPI_Close_port) while MPI_Comm_accept waited on it";
            return -1;
        }
        struct pollfd pl = { .fd = p->fd, .events = POLLIN };
        int rc = poll(&pl, 1, 1);
        if (rc < 0 && errno != EINTR) {
            *why = "waiting for a connection failed";
            return -1;
        }
        if (rc <= 0) {
            smap_p2p_progress();
            continue;
        }
        int c = accept4(p->fd, NULL, NULL, SOCK_CLOEXEC);
        if (c >= 0) {
            int one = 1;
            setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            *fd = c;
            return 0;
        }
        if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED &&
            !atomic_load_explicit(&p->closed, memory_order_acquire)) {
            *why = "accept on the port's socket failed";
            return -1;
        }
    }
}

int smap_port_accept_fd(const char *name, int *fd, const char **why)
{
    pthread_mutex_lock(&ports_lock);
    struct port *p = *find(name);
    if (p)
        p->users++;
    pthread_mutex_unlock(&ports_lock);
    if (!p) {
        *why = "port_name is not a port this process opened (MPI_Open_port)";
        return -1;
    }
    int rc = accept_on(p, fd, why);
    pthread_mutex_lock(&ports_lock);
    p->users--;
    port_release(p);
    pthread_mutex_unlock(&ports_lock);
    return rc;
}

int smap_port_connect_fd(const char *name, int *fd, char nonce[SMAP_NONCE_LEN + 1],
                         const char **why)
{
    struct sockaddr_in sa;
    if (smap_port_parse(name, &sa, nonce) != 0) {
        *why = "port_name is not a smartmap port name (smap-port:ADDR:PORT:NONCE)";
        return -1;
    }
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof sa) != 0) {
        if (c >= 0)
            close(c);
        *why = "nobody listens on the port (closed, or its process is gone)";
        return -1;
    }
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    *fd = c;
    return 0;
}
