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
#include "boot/boot.h"
#include "comm/comm_create.h"
#include "mpi/comm.h"
#include "mpi/errors.h"
#include "p2p/p2p.h"
#include "smap/smap.h"

#define ADDR_MAX 256
#define BRIDGE_TAG 0x5d17
static const char MAGIC[8] = "smapdyn2";

struct member {
    int ok, nranks;
    uint32_t alen;
    unsigned char addr[ADDR_MAX];
    struct smap_node_rec node;   /* for the shm route (smap/foreign.c) */
};

struct hello {
    char magic[8];
    char nonce[SMAP_NONCE_LEN];
    int32_t n;          /* group size, -1: the group failed */
    int32_t base, root;
    uint32_t alen;
    /* node peers: the group's first spare index for the other group (max
     * over members), its smallest capacity (0: some member takes none),
     * and the node records' size; the records follow the addresses */
    int32_t qbase, qcap;
    uint32_t rlen;
};

/* What the root tells its members. */
struct verdict {
    int rc;
    int n, base_other, base_mine, root_other;
    uint32_t alen;
    int shm, qbase_mine, qbase_other;   /* shm: try the node-peer route */
    char why[160];
};

/* The last round's answer to the members. */
struct ready {
    int rc, shm;
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

/* The addresses (n * alen bytes) and the node records (n * rlen) travel
 * as one block. */
static size_t blob_len(const struct hello *h)
{
    return h->n > 0 ? (size_t)h->n * (h->alen + h->rlen) : 0;
}

static int send_hello(int fd, const struct hello *h, const void *addrs)
{
    size_t n = blob_len(h);
    return xfer(fd, (void *)h, sizeof *h, 1) || (n && xfer(fd, (void *)addrs, n, 1)) ? -1 : 0;
}

/* The other hello and its addresses and records (malloc'd in *addrs). */
static int read_hello(int fd, struct hello *h, unsigned char **addrs)
{
    *addrs = NULL;
    if (xfer(fd, h, sizeof *h, 0) != 0 || memcmp(h->magic, MAGIC, sizeof MAGIC) != 0)
        return -1;
    if (h->n <= 0)
        return 0;
    if (h->alen == 0 || h->alen > ADDR_MAX || h->n > (1 << 24) || h->rlen > 4096)
        return -1;
    size_t n = blob_len(h);
    if (!(*addrs = malloc(n)) || xfer(fd, *addrs, n, 0) != 0) {
        free(*addrs);
        *addrs = NULL;
        return -1;
    }
    return 0;
}

/* Whether the two groups try node-peer routes (both roots decide alike
 * from the two hellos): records of one layout, every member of both
 * groups with spare indices enough for the other group, and one member
 * of each on a common node (node keys compared; src/smap/foreign.c). */
static int shm_possible(const struct hello *mine, const unsigned char *my_blob,
                        const struct hello *h, const unsigned char *their_blob)
{
    if (mine->rlen != sizeof(struct smap_node_rec) || h->rlen != mine->rlen || mine->n <= 0 ||
        h->n <= 0 || mine->qcap <= 0 || h->qcap <= 0 ||
        (int64_t)mine->qbase + h->n > mine->qcap || (int64_t)h->qbase + mine->n > h->qcap)
        return 0;
    const struct smap_node_rec *a = (const void *)(my_blob + (size_t)mine->n * mine->alen);
    const struct smap_node_rec *b = (const void *)(their_blob + (size_t)h->n * h->alen);
    for (int i = 0; i < mine->n; i++)
        for (int j = 0; j < h->n; j++)
            if (memcmp(a[i].node, b[j].node, sizeof a[i].node) == 0)
                return 1;
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
    if (h.n == -2 || mine->n < 0 || h.n < 0 || h.alen != mine->alen || h.rlen != mine->rlen) {
        v->rc = MPI_ERR_INTERN;
        snprintf(v->why, sizeof v->why, "%s",
                 h.n == -2  ? "the connection to the other group broke during the handshake"
                 : mine->n < 0 ? "a member of this group cannot open the network transport"
                 : h.n < 0   ? "a member of the other group cannot open the network transport"
                 : h.rlen != mine->rlen ? "the two jobs run different smartmap builds"
                             : "the two jobs use different network transports");
        return;
    }
    v->rc = MPI_SUCCESS;
    v->n = h.n;
    v->base_other = h.base;
    v->root_other = h.root;
    v->alen = h.alen;
    v->shm = shm_possible(mine, my_addrs, &h, *their_addrs);
    v->qbase_mine = mine->qbase;
    v->qbase_other = h.qbase;
}

/* Each member maps the other group's members on its node at the agreed
 * spare indices (lr[j]: the route for member j, -1: stays on src/net).
 * Returns 1 when every one of them worked. */
static int shm_attach(struct MPI_ABI_Comm *c, const struct verdict *v, const unsigned char *blob,
                      int *lr, const char *func)
{
    const struct smap_node_rec *recs = (const void *)(blob + (size_t)v->n * v->alen);
    int ok = 1;
    for (int j = 0; j < v->n; j++) {
        lr[j] = -1;
        if (!ok || !smap_node_rec_same(&recs[j]))
            continue;
        char err[256] = "";
        lr[j] = smap_p2p_node_attach(v->qbase_mine + j, v->qbase_other + c->rank, &recs[j], err,
                                     sizeof err);
        if (lr[j] < 0) {
            smap_log(SMAP_LOG_INFO, "%s: process %d of the other group stays on the network: %s",
                     func, j, err);
            ok = 0;
        }
    }
    return ok;
}

/* The verdict was no: the indices attached are given up. */
static void shm_undo(int n, const int *lr)
{
    for (int j = 0; j < n; j++)
        if (lr[j] >= smap_nlocal)
            smap_p2p_node_detach(lr[j]);
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
    smap_node_rec_self(&me.node);
    int lead = c->rank == root, rc;
    struct member *all = lead ? malloc((size_t)c->size * sizeof *all) : NULL;
    unsigned char *mine = lead ? malloc((size_t)c->size * (ADDR_MAX + sizeof me.node)) : NULL,
                  *theirs = NULL;
    struct verdict v = { .rc = MPI_ERR_NO_MEM };
    snprintf(v.why, sizeof v.why, "out of memory");
    if (lead && (!all || !mine)) {
        free(all), free(mine);
        all = NULL, mine = NULL;
    }
    rc = smap_comm_lgather(c, root, &me, sizeof me, all);
    int sock = -1;
    if (lead && all && rc == MPI_SUCCESS) {
        struct hello hh = { .n = c->size, .root = root, .alen = all[0].alen,
                            .qcap = all[0].node.cap, .rlen = sizeof me.node };
        memcpy(hh.magic, MAGIC, sizeof MAGIC);
        for (int i = 0; i < c->size; i++) {
            if (!all[i].ok || all[i].alen != hh.alen)
                hh.n = -1;
            if (all[i].nranks > hh.base)
                hh.base = all[i].nranks;
            if (all[i].node.next > hh.qbase)
                hh.qbase = all[i].node.next;
            if (all[i].node.cap < hh.qcap)
                hh.qcap = all[i].node.cap;
            memcpy(mine + (size_t)i * hh.alen, all[i].addr, hh.alen);
        }
        for (int i = 0; hh.n > 0 && i < c->size; i++)
            memcpy(mine + (size_t)c->size * hh.alen + i * sizeof me.node, &all[i].node,
                   sizeof me.node);
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
        size_t nb = (size_t)v.n * (v.alen + sizeof me.node);
        if (!lead && !(theirs = malloc(nb)))
            smap_fatal("%s: out of memory for %d addresses", func, v.n);
        rc = smap_comm_lbcast(c, root, theirs, nb);
    }
    int ok = rc == MPI_SUCCESS && v.rc == MPI_SUCCESS;
    if (ok && smap_p2p_add_foreign(v.base_mine, v.n, v.base_other + c->rank, theirs, v.alen, err,
                                   sizeof err) != 0)
        smap_fatal("%s: registering the other job's processes failed: %s", func, err);
    int *lr = ok && v.shm ? malloc((size_t)v.n * sizeof *lr + 1) : NULL;
    if (ok && v.shm && !lr)
        smap_fatal("%s: out of memory for %d routes", func, v.n);
    int shm_ok = lr && shm_attach(c, &v, theirs, lr, func);
    free(theirs);
    if (ok) {
        /* nobody sends before both groups can place every sender, and
         * either every member of both groups reaches the other group's
         * node peers over shm or none does (one verdict: 2 yes, 1 no) */
        int one = shm_ok ? 2 : 1, *ones = lead ? malloc((size_t)c->size * sizeof *ones + 1) : NULL;
        rc = smap_comm_lgather(c, root, &one, sizeof one, ones);
        char b = 2, got = 0;
        for (int i = 0; lead && i < c->size; i++)
            if (!ones || ones[i] != 2)
                b = 1;
        free(ones);
        if (lead && (xfer(sock, &b, 1, 1) != 0 || xfer(sock, &got, 1, 0) != 0 ||
                     (got != 1 && got != 2)))
            rc = MPI_ERR_INTERN;
        struct ready rd = { rc, v.shm && b == 2 && got == 2 };
        int rc2 = smap_comm_lbcast(c, root, &rd, sizeof rd);
        rc = rc2 != MPI_SUCCESS ? rc2 : rd.rc;
        shm_ok = rc == MPI_SUCCESS && rd.shm;
    }
    if (lr) {
        /* the spare indices were agreed: never handed out again */
        smap_peers_reserve(v.qbase_mine + v.n);
        for (int j = 0; j < v.n; j++)
            if (shm_ok && lr[j] >= 0)
                smap_p2p_node_route(v.base_mine + j, lr[j]);   /* our numbering of it */
        if (!shm_ok)
            shm_undo(v.n, lr);
        free(lr);
        if (shm_ok)
            smap_p2p_remote_release_local();
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

/* ---- teardown (MPI_Comm_disconnect) -------------------------------------
 * Routes are per process, not per communicator: a merged or duplicated
 * communicator reaches the same processes.  So a process of another job
 * is unmapped only when the last live communicator holding it is gone;
 * disconnect is collective and completes the communicator's traffic
 * first, so neither side touches the other's memory after that. */
int *smap_spawn_node_peers(struct MPI_ABI_Comm *c, int *n)
{
    const struct MPI_ABI_Group *gs[2] = { c->group, c->remote_group };
    int cap = c->size + (c->remote_group ? c->remote_group->size : 0), *list = NULL;
    *n = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; gs[k] && i < gs[k]->size; i++) {
            int w = smap_group_world_rank(gs[k], i);
            if (w < smap_job.size || smap_p2p_local_rank(w) < smap_nlocal)
                continue;   /* our job's, on the network, or a job peer's queue */
            if (!list && !(list = malloc((size_t)cap * sizeof *list)))
                return NULL;   /* then it stays mapped until MPI_Finalize */
            list[(*n)++] = w;
        }
    return list;
}

void smap_spawn_retire(int *list, int n)
{
    for (int i = 0; i < n; i++) {
        int w = list[i], lr = smap_p2p_local_rank(w);
        if (lr < smap_nlocal || smap_comm_live_holds(w))
            continue;
        smap_p2p_node_quiesce(lr);
        smap_p2p_node_route(w, SMAP_P2P_NO_ROUTE);
        smap_p2p_node_detach(lr);
    }
    free(list);
}
