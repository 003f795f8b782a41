/* The building blocks of the intercommunicator collectives: internal
 * point-to-point on the collective context, waiting, and the local-group
 * broadcast and gather (see inter.h). */
#include <stdlib.h>
#include <string.h>

#include "base/wait.h"
#include "coll/inter/internal.h"
#include "smap/smap.h"

int smap_inter_isend(struct smap_preq *r, smap_comm_t *c, int remote, int rank, const void *buf,
                     MPI_Count count, smap_dtype_t *t)
{
    const struct MPI_ABI_Group *g = remote ? c->remote_group : c->group;
    int lr = smap_p2p_local_rank(smap_group_world_rank(g, rank));
    if (lr == SMAP_P2P_NO_ROUTE) {
        /* the constructors refuse unreachable members: not reached */
        smap_p2p_null(r, SMAP_PREQ_SEND);
        return smap_fail(MPI_ERR_RANK, "a member of the intercommunicator cannot be reached");
    }
    int rc = smap_p2p_isend(r, buf, count, t, rank, lr, c->rank,
                            remote ? SMAP_INTER_TAG_REMOTE : SMAP_INTER_TAG_LOCAL,
                            smap_inter_coll_ctx(c), SMAP_P2P_STANDARD);
    return rc == MPI_SUCCESS ? rc : smap_fail(rc, "the point-to-point transport failed");
}

void smap_inter_irecv(struct smap_preq *r, smap_comm_t *c, int remote, int rank, void *buf,
                      MPI_Count count, smap_dtype_t *t)
{
    smap_p2p_irecv(r, buf, count, t, rank, remote ? SMAP_INTER_TAG_REMOTE : SMAP_INTER_TAG_LOCAL,
                   smap_inter_coll_ctx(c));
}

static int all_done(const struct smap_preq *r, int n)
{
    for (int i = 0; i < n; i++)
        if (!r[i].done)
            return 0;
    return 1;
}

int smap_inter_waitall(struct smap_preq *r, int n)
{
    if (!all_done(r, n)) {
        struct smap_waiter w;
        smap_wait_init(&w, smap_nlocal);
        for (;;) {
            smap_p2p_progress();
            if (all_done(r, n))
                break;
            smap_wait_step(&w);
        }
    }
    for (int i = 0; i < n; i++)
        if (r[i].err != MPI_SUCCESS)
            return smap_fail(r[i].err, r[i].err == MPI_ERR_TRUNCATE
                                            ? "a message was longer than its receive buffer: "
                                              "the two groups' counts or types do not match"
                                            : "an internal message failed");
    return MPI_SUCCESS;
}

int inter_sendrecv(smap_comm_t *c, int remote, int peer, const void *sbuf, MPI_Count scount,
                   smap_dtype_t *st, void *rbuf, MPI_Count rcount, smap_dtype_t *rt)
{
    struct smap_preq r[2];
    smap_inter_irecv(&r[0], c, remote, peer, rbuf, rcount, rt);
    int rc = smap_inter_isend(&r[1], c, remote, peer, sbuf, scount, st);
    int rc2 = smap_inter_waitall(r, 2);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int inter_send(smap_comm_t *c, int remote, int peer, const void *buf, MPI_Count count,
               smap_dtype_t *t)
{
    struct smap_preq r;
    int rc = smap_inter_isend(&r, c, remote, peer, buf, count, t);
    int rc2 = smap_inter_waitall(&r, 1);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int inter_recv(smap_comm_t *c, int remote, int peer, void *buf, MPI_Count count, smap_dtype_t *t)
{
    struct smap_preq r;
    smap_inter_irecv(&r, c, remote, peer, buf, count, t);
    return smap_inter_waitall(&r, 1);
}

/* Binomial tree over ranks relative to the root: a member receives from
 * the peer that differs in its lowest set bit, then forwards to the peers
 * below that bit (log2(n) rounds). */
int smap_inter_lbcast(smap_comm_t *c, int root, void *buf, MPI_Count count, smap_dtype_t *t)
{
    int n = c->size, vr = (c->rank - root + n) % n, mask = 1, rc = MPI_SUCCESS;
    while (mask < n) {
        if (vr & mask) {
            rc = inter_recv(c, 0, (vr - mask + root) % n, buf, count, t);
            if (rc != MPI_SUCCESS)
                return rc;
            break;
        }
        mask <<= 1;
    }
    struct smap_preq r[32];
    int k = 0;
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < n) {
            int e = smap_inter_isend(&r[k++], c, 0, (vr + mask + root) % n, buf, count, t);
            rc = rc != MPI_SUCCESS ? rc : e;
        }
    int e = smap_inter_waitall(r, k);
    return rc != MPI_SUCCESS ? rc : e;
}

int smap_inter_lgather(smap_comm_t *c, int root, const void *mine, size_t bytes, void *all)
{
    smap_dtype_t *b = smap_dtype_get(MPI_BYTE);
    if (c->rank != root)
        return inter_send(c, 0, root, mine, (MPI_Count)bytes, b);
    int n = c->size;
    struct smap_preq *r = malloc((size_t)n * sizeof *r);
    if (!r)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < n; i++) {
        if (i == root)
            smap_p2p_null(&r[i], SMAP_PREQ_RECV);
        else
            smap_inter_irecv(&r[i], c, 0, i, (char *)all + (size_t)i * bytes, (MPI_Count)bytes, b);
    }
    memcpy((char *)all + (size_t)root * bytes, mine, bytes);
    int rc = smap_inter_waitall(r, n);
    free(r);
    return rc;
}

void *inter_tmp(MPI_Count count, const smap_dtype_t *t, void **base)
{
    MPI_Count span = count > 0 ? t->true_extent + (count - 1) * (t->extent < 0 ? -t->extent : t->extent) : 0;
    *base = malloc(span > 0 ? (size_t)span : 1);
    if (!*base)
        return NULL;
    /* negative extents lay elements out below the first one */
    MPI_Count below = t->extent < 0 && count > 0 ? -(count - 1) * t->extent : 0;
    return (char *)*base - t->true_lb + below;
}
