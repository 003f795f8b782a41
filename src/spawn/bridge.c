/* The handshake that joins two groups of different jobs (DESIGN D17):
 * over one TCP socket between their roots (a port's, or MPI_Comm_join's),
 * each group's transport addresses go across, every member registers the
 * other group's processes as point-to-point ranks after all it knows
 * (smap_p2p_add_foreign: each group numbers the other from a base agreed
 * in the group, so that the sender names itself in the receiver's
 * numbering), and the intercommunicator is agreed over point-to-point as
 * MPI_Intercomm_create does.
 *
 * Order: every member opens the transport and its address goes to the
 * root (gather); the roots swap hellos (the acceptor reads first, so that
 * a stray connection learns nothing); the root hands the other group's
 * addresses to its members (bcast), who register them; a gather and a
 * ready byte each way between the roots make sure that nobody sends
 * before everyone of both groups can place the sender; then the
 * intercommunicator. */
#include "spawn/internal.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "comm/comm_create.h"
#include "mpi/comm.h"
#include "mpi/errors.h"
#include "p2p/p2p.h"

#define ADDR_MAX 256
#define BRIDGE_TAG 0x5d17
static const char MAGIC[8] = "smapdyn1";

struct member {
    int ok, nranks;
    uint32_t alen;
    unsigned char addr[ADDR_MAX];
};

struct hello {
    char magic[8];
    char nonce[SMAP_NONCE_LEN];
    int32_t n;          /* group size, -1: the group failed */
    int32_t base, root;
    uint32_t alen;
};

/* What the root tells its members. */
struct verdict {
    int rc;
    int n, base_other, base_mine, root_other;
    uint32_t alen;
    char why[160];
};

static int xfer(int fd, void *buf, size_t len, int out)
{
    unsigned char *p = buf;
    while (len) {
        if (smap_port_wait(fd, out ? POLLOUT : POLLIN) != 0)
            return -1;
        ssize_t k = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k <= 0)
            return -1;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

static int send_hello(int fd, const struct hello *h, const void *addrs)
{
    size_t n = h->n > 0 ? (size_t)h->n * h->alen : 0;
    return xfer(fd, (void *)h, sizeof *h, 1) || (n && xfer(fd, (void *)addrs, n, 1)) ? -1 : 0;
}

/* The other hello and its addresses (malloc'd in *addrs). */
static int read_hello(int fd, struct hello *h, unsigned char **addrs)
{
    *addrs = NULL;
    if (xfer(fd, h, sizeof *h, 0) != 0 || memcmp(h->magic, MAGIC, sizeof MAGIC) != 0)
        return -1;
    if (h->n <= 0)
        return 0;
    if (h->alen == 0 || h->alen > ADDR_MAX || h->n > (1 << 24))
        return -1;
    size_t n = (size_t)h->n * h->alen;
    if (!(*addrs = malloc(n)) || xfer(fd, *addrs, n, 0) != 0) {
        free(*addrs);
        *addrs = NULL;
        return -1;
    }
    return 0;
}

/* The root's part: the hellos, then the verdict for the group.  fd < 0:
 * accept on the port `port` (acceptor), turning away connections whose
 * nonce is wrong. */
static void root_swap(int fd, const char *port, const char *nonce, const struct hello *mine, const unsigned char *my_addrs, struct verdict *v,
                      unsigned char **their_addrs, int *fd_out)
{
    struct hello h;
    const char *why = "";
    *fd_out = -1;
    if (fd < 0) {   /* acceptor */
        for (;;) {
            if (smap_port_accept_fd(port, &fd, &why) != 0) {
                v->rc = MPI_ERR_PORT;
                snprintf(v->why, sizeof v->why, "%s", why);
                return;
            }
            if (read_hello(fd, &h, their_addrs) == 0 &&
                memcmp(h.nonce, nonce, SMAP_NONCE_LEN) == 0)
                break;
            free(*their_addrs);
            close(fd);   /* not one of ours: wait for the next */
        }
        struct hello me = *mine;
        memcpy(me.nonce, h.nonce, SMAP_NONCE_LEN);
        if (send_hello(fd, &me, my_addrs) != 0)
            h.n = -2;
    } else {
        struct hello me = *mine;
        memcpy(me.nonce, nonce, SMAP_NONCE_LEN);
        if (send_hello(fd, &me, my_addrs) != 0 || read_hello(fd, &h, their_addrs) != 0)
            h.n = -2;
    }
    *fd_out = fd;
    if (h.n == -2 || mine->n < 0 || h.n < 0 || h.alen != mine->alen) {
        v->rc = MPI_ERR_INTERN;
        snprintf(v->why, sizeof v->why, "%s",
                 h.n == -2  ? "the connection to the other group broke during the handshake"
                 : mine->n < 0 ? "a member of this group cannot open the network transport"
                 : h.n < 0   ? "a member of the other group cannot open the network transport"
                             : "the two jobs use different network transports");
        return;
    }
    v->rc = MPI_SUCCESS;
    v->n = h.n;
    v->base_other = h.base;
    v->root_other = h.root;
    v->alen = h.alen;
}

int smap_bridge(struct MPI_ABI_Comm *c, int root, int fd, const char *port, const char *nonce,
                MPI_Comm *newcomm, const char *func)
{
    MPI_Comm h = c->handle;
    char err[256] = "";
    struct member me = { .ok = 1 };
    size_t alen = ADDR_MAX;
    if (smap_p2p_remote_open_local(err, sizeof err) != 0 ||
        smap_p2p_remote_name(me.addr, &alen) != 0) {
        me.ok = 0;
        smap_log(SMAP_LOG_ERROR, "%s: %s", func, err[0] ? err : "no transport address");
    }
    me.alen = (uint32_t)alen;
    me.nranks = smap_p2p_nranks;
    int lead = c->rank == root, rc;
    struct member *all = lead ? malloc((size_t)c->size * sizeof *all) : NULL;
    unsigned char *mine = lead ? malloc((size_t)c->size * ADDR_MAX) : NULL, *theirs = NULL;
    struct verdict v = { .rc = MPI_ERR_NO_MEM };
    snprintf(v.why, sizeof v.why, "out of memory");
    if (lead && (!all || !mine)) {
        free(all), free(mine);
        all = NULL, mine = NULL;
    }
    rc = smap_comm_lgather(c, root, &me, sizeof me, all);
    int sock = -1;
    if (lead && all && rc == MPI_SUCCESS) {
        struct hello hh = { .n = c->size, .root = root, .alen = all[0].alen };
        memcpy(hh.magic, MAGIC, sizeof MAGIC);
        for (int i = 0; i < c->size; i++) {
            if (!all[i].ok || all[i].alen != hh.alen)
                hh.n = -1;
            if (all[i].nranks > hh.base)
                hh.base = all[i].nranks;
            memcpy(mine + (size_t)i * hh.alen, all[i].addr, hh.alen);
        }
        root_swap(port ? -1 : fd, port, nonce, &hh, mine, &v, &theirs, &sock);
        v.base_mine = hh.base;
    } else if (lead && rc != MPI_SUCCESS) {
        v.rc = rc;
        snprintf(v.why, sizeof v.why, "gathering the group's addresses failed");
    }
    free(all);
    free(mine);
    rc = smap_comm_lbcast(c, root, &v, sizeof v);
    if (rc == MPI_SUCCESS && v.rc == MPI_SUCCESS) {
        size_t nb = (size_t)v.n * v.alen;
        if (!lead && !(theirs = malloc(nb)))
            smap_fatal("%s: out of memory for %d addresses", func, v.n);
        rc = smap_comm_lbcast(c, root, theirs, nb);
    }
    int ok = rc == MPI_SUCCESS && v.rc == MPI_SUCCESS;
    if (ok && smap_p2p_add_foreign(v.base_mine, v.n, v.base_other + c->rank, theirs, v.alen, err,
                                   sizeof err) != 0)
        smap_fatal("%s: registering the other job's processes failed: %s", func, err);
    free(theirs);
    if (ok) {
        /* nobody sends before both groups can place every sender */
        int one = 1, *ones = lead ? malloc((size_t)c->size * sizeof *ones + 1) : NULL;
        rc = smap_comm_lgather(c, root, &one, sizeof one, ones);
        free(ones);
        char b = 1, got = 0;
        if (lead && (xfer(sock, &b, 1, 1) != 0 || xfer(sock, &got, 1, 0) != 0 || got != 1))
            rc = MPI_ERR_INTERN;
        int rc2 = smap_comm_lbcast(c, root, &rc, sizeof rc);
        if (rc2 != MPI_SUCCESS)
            rc = rc2;
    }
    if (sock >= 0)
        close(sock);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(h, rc, func, "the handshake with the other group failed");
    if (v.rc != MPI_SUCCESS)
        return smap_err_raise(h, v.rc, func, "%s", v.why);
    int *seen = lead ? malloc((size_t)c->size * sizeof *seen + 1) : NULL;
    if (lead && !seen)
        return smap_err_raise(h, MPI_ERR_NO_MEM, func, "out of memory");
    for (int i = 0; lead && i < c->size; i++)
        seen[i] = v.base_other + i;
    rc = smap_inter_create_foreign(c, root, v.base_mine + v.root_other, v.base_other + root, seen,
                                   BRIDGE_TAG, newcomm, func);
    free(seen);
    return rc;
}

int smap_spawn_accept(const char *port, int root, struct MPI_ABI_Comm *c, MPI_Comm *newcomm,
                      const char *func)
{
    struct sockaddr_in sa;
    char nonce[SMAP_NONCE_LEN + 1] = "";
    if (c->rank == root)
        (void)smap_port_parse(port, &sa, nonce);   /* a bad name: accept names the error */
    return smap_bridge(c, root, -1, c->rank == root ? port : NULL, nonce, newcomm, func);
}

int smap_spawn_connect(const char *port, int root, struct MPI_ABI_Comm *c, MPI_Comm *newcomm,
                       const char *func)
{
    char nonce[SMAP_NONCE_LEN + 1] = "";
    const char *why = NULL;
    int fd = -1;
    if (c->rank == root && smap_port_connect_fd(port, &fd, nonce, &why) != 0)
        fd = -1;
    /* the root's failure must reach the group: the bridge's gather then
     * bcast carries it (a root without a socket reports MPI_ERR_PORT) */
    int bad = c->rank == root && fd < 0;
    int rc = smap_comm_lbcast(c, root, &bad, sizeof bad);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(c->handle, rc, func, "telling the group about the port failed");
    if (bad)
        return smap_err_raise(c->handle, MPI_ERR_PORT, func, "%s",
                              why ? why : "the root could not connect to the port");
    return smap_bridge(c, root, fd, NULL, nonce, newcomm, func);
}

int smap_spawn_join(int fd, MPI_Comm *newcomm, const char *func)
{
    static const char zeros[SMAP_NONCE_LEN + 1] = "0000000000000000";
    /* the socket stays the program's: the bridge closes a duplicate */
    int d = dup(fd);
    if (d < 0)
        return smap_err_raise(MPI_COMM_SELF, MPI_ERR_ARG, func, "fd %d is not an open descriptor",
                              fd);
    return smap_bridge(&smap_comm_self, 0, d, NULL, zeros, newcomm, func);
}

void smap_spawn_disconnect(struct MPI_ABI_Comm *c)
{
    const struct MPI_ABI_Group *g = c->remote_group ? c->remote_group : c->group;
    if (smap_comm_group_foreign(g) || smap_comm_group_foreign(c->group))
        smap_p2p_remote_drain();
}
