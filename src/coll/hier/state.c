/* A communicator's hierarchy: which node holds which rank, the node and
 * leaders sub-communicators (made on the first collective, freed with the
 * communicator), and the helpers every hierarchical collective shares. */
#include "coll/hier/internal.h"

#include <stdlib.h>

#include "base/tunables.h"
#include "base/wait.h"
#include "boot/boot.h"
#include "mpi/group.h"
#include "mpi/op.h"
#include "mpi/request.h"
#include "p2p/p2p.h"
#include "smap/smap.h"

/* The sub-communicators' maker (src/comm/hier_comms.c, registered at
 * start). */
static const struct smap_hier_comms *comms;

void smap_hier_set_comms(const struct smap_hier_comms *x)
{
    comms = x;
}

static void free_state(struct smap_hier *h)
{
    if (!h)
        return;
    free(h->node_of), free(h->local_of), free(h->leader_of);
    free(h->node_start), free(h->rank_at);
    free(h);
}

int hier_map_nodes(smap_comm_t *c, int *node_of, int *local_of, int *leader_of, int *nnodes,
                   int *contiguous)
{
    int n = c->size;
    int *idx = malloc((size_t)smap_job.nnodes * sizeof *idx);
    int *count = calloc((size_t)n, sizeof *count);
    if (!idx || !count) {
        free(idx), free(count);
        return -1;
    }
    for (int j = 0; j < smap_job.nnodes; j++)
        idx[j] = -1;
    *nnodes = 0;
    *contiguous = 1;
    for (int i = 0; i < n; i++) {
        int jn = smap_job.node_of[smap_group_world_rank(c->group, i)];
        if (idx[jn] < 0) {
            idx[jn] = (*nnodes)++;
            leader_of[idx[jn]] = i;
        } else if (node_of[i - 1] != idx[jn]) {
            *contiguous = 0;   /* the node came back after another */
        }
        node_of[i] = idx[jn];
        local_of[i] = count[idx[jn]]++;
    }
    free(idx), free(count);
    return 0;
}

/* The node index of every rank of c (nodes numbered by their lowest rank
 * in c), whether every node holds one range, and the leaders. */
static int map_nodes(smap_comm_t *c, struct smap_hier *h)
{
    size_t n = (size_t)c->size;
    h->node_of = malloc(n * sizeof *h->node_of);
    h->local_of = malloc(n * sizeof *h->local_of);
    h->leader_of = malloc(n * sizeof *h->leader_of);
    h->rank_at = malloc(n * sizeof *h->rank_at);
    h->node_start = calloc(n + 1, sizeof *h->node_start);
    if (!h->node_of || !h->local_of || !h->leader_of || !h->rank_at || !h->node_start)
        return -1;
    if (hier_map_nodes(c, h->node_of, h->local_of, h->leader_of, &h->nnodes, &h->contiguous))
        return -1;
    /* counting sort by node: the rails (rails.c) look members up by node */
    for (size_t i = 0; i < n; i++)
        h->node_start[h->node_of[i] + 1]++;
    for (int x = 0; x < h->nnodes; x++)
        h->node_start[x + 1] += h->node_start[x];
    for (size_t i = 0; i < n; i++)
        h->rank_at[h->node_start[h->node_of[i]] + h->local_of[i]] = (int)i;
    return 0;
}

/* c's hierarchy, usable or not (one node, or a failure: then every
 * collective of c runs flat).  Collective over c when c spans nodes (the
 * sub-communicators' agreements, over point-to-point: no collective on c
 * runs meanwhile, so nothing here comes back to the hierarchy). */
static struct smap_hier *build(smap_comm_t *c)
{
    struct smap_hier *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    if (map_nodes(c, h) != 0 || h->nnodes < 2 || !comms)
        return h;   /* not usable */
    if (comms->make(c, h->nnodes, h->node_of, h->leader_of, &h->node, &h->lead) == MPI_SUCCESS)
        h->usable = 1;
    return h;
}

int smap_hier_use(smap_comm_t *c)
{
    if (!smap_tun.coll_hier || c->size < 2 || smap_job.nnodes < 2 || !smap_job.node_of)
        return 0;
    if (SMAP_UNLIKELY(!c->hier) && smap_comm_group_foreign(c->group))
        return 0;   /* processes of another job (src/spawn): no node map */
    if (SMAP_UNLIKELY(!c->hier))
        c->hier = build(c);
    return c->hier && c->hier->usable;
}

int smap_hier_release(smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    c->hier = NULL;
    int rc = MPI_SUCCESS;
    if (h && h->node) {
        rc = comms->free(h->node);
        if (h->lead && rc == MPI_SUCCESS)
            rc = comms->free(h->lead);
    }
    free_state(h);
    return rc == MPI_SUCCESS ? rc : smap_fail(rc, "freeing the hierarchy's sub-communicators failed");
}

void smap_hier_forget(smap_comm_t *c)
{
    free_state(c->hier);
    c->hier = NULL;
}

int hier_commutative(MPI_Op op)
{
    struct MPI_ABI_Op *o = smap_op_get(op);
    return o && (o->predefined || o->commute);
}

int hier_node_bcast(struct smap_hier *h, void *buf, MPI_Count count, smap_dtype_t *t, int root)
{
    smap_comm_t *n = h->node;
    if (n->size == 1)
        return MPI_SUCCESS;
    return n->slot >= 0 ? (smap_cb_bcast(buf, count, t, root, n))
                        : (smap_nbc_bcast(buf, count, t, root, n, NULL));
}

int hier_node_reduce(struct smap_hier *h, const void *sbuf, void *rbuf, MPI_Count count,
                     smap_dtype_t *t, MPI_Datatype type, MPI_Op op, int root)
{
    smap_comm_t *n = h->node;
    if (n->size == 1) {
        if (sbuf == MPI_IN_PLACE || count == 0)
            return MPI_SUCCESS;
        struct smap_sched *s = smap_sched_new(n);
        if (!s)
            return smap_fail(MPI_ERR_NO_MEM, "out of memory for a schedule");
        smap_sched_copy(s, sbuf, count, t, rbuf, count, t);
        return (smap_sched_run(s));
    }
    return n->slot >= 0
               ? (smap_cb_reduce(sbuf, rbuf, count, t, type, op, root, n))
               : (smap_nbc_reduce(sbuf, rbuf, count, t, type, op, root, n, NULL));
}

int hier_node_barrier(struct smap_hier *h)
{
    if (h->node->size == 1)
        return MPI_SUCCESS;
    return (smap_cb_barrier(h->node));
}

int hier_node_move(struct smap_hier *h, void *buf, MPI_Count count, smap_dtype_t *t, int from,
                   int to)
{
    smap_comm_t *n = h->node;
    if (from == to)
        return MPI_SUCCESS;
    /* every member runs the schedule, empty off the pair, so that the
     * node sub-communicator's schedule numbers stay equal on all */
    struct smap_sched *s = smap_sched_new(n);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for a schedule");
    if (n->rank == from)
        smap_sched_send(s, buf, count, t, to);
    else if (n->rank == to)
        smap_sched_recv(s, buf, count, t, from);
    return (smap_sched_run(s));
}

int hier_wait(MPI_Request *req)
{
    if (!smap_req_ready(*req)) {
        struct smap_waiter w;
        smap_wait_init(&w, smap_nlocal);
        for (;;) {
            smap_p2p_progress();
            if (smap_req_ready(*req))
                break;
            smap_wait_step(&w);
        }
    }
    int rc = smap_req_finish(req, MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? rc : smap_fail(rc, "the inter-node phase failed");
}

void hier_wait_until(MPI_Request req, const _Atomic int *flag, int want)
{
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    while (atomic_load_explicit(flag, memory_order_acquire) < want && !smap_req_ready(req)) {
        smap_p2p_progress();
        if (atomic_load_explicit(flag, memory_order_acquire) >= want || smap_req_ready(req))
            return;
        smap_wait_step(&w);
    }
}

void *hier_tmp(MPI_Count count, smap_dtype_t *t, void **base)
{
    MPI_Count span = count > 0 ? t->true_extent + (count - 1) * t->extent : 0;
    if (span < 0)   /* negative stride: elements go below element 0 */
        span = t->true_extent + (count - 1) * -t->extent;
    *base = malloc(span > 0 ? (size_t)span : 1);
    if (!*base)
        return NULL;
    MPI_Aint lo = t->true_lb + (t->extent < 0 && count > 0 ? (count - 1) * t->extent : 0);
    return (void *)((uintptr_t)*base - (uintptr_t)lo);
}

MPI_Count hier_chunk(smap_dtype_t *t)
{
    MPI_Count bytes = t->size > 0 ? t->size : 1;
    MPI_Count n = (MPI_Count)smap_tun.coll_hier_chunk / bytes;
    return n > 0 ? n : 1;
}

int hier_launch(struct smap_sched *s, MPI_Request *req)
{
    if (smap_sched_failed(s)) {
        smap_sched_free(s);
        return smap_fail(MPI_ERR_NO_MEM, "out of memory building the collective's schedule");
    }
    int rc = smap_sched_start(s, req);
    return rc == MPI_SUCCESS ? rc : smap_fail(rc, "the collective's schedule failed to start");
}

int hier_run(struct smap_sched *s, const char *oom)
{
    if (smap_sched_failed(s)) {
        smap_sched_free(s);
        return smap_fail(MPI_ERR_NO_MEM, oom);
    }
    return (smap_sched_run(s));
}

int hier_node_self(struct smap_hier *h, const void *sbuf, MPI_Count scount, smap_dtype_t *st,
                   void *rbuf, MPI_Count count, MPI_Count displ, smap_dtype_t *rt)
{
    if (sbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    struct smap_sched *s = smap_sched_new(h->node);
    if (!s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for a schedule");
    smap_sched_copy(s, sbuf, scount, st, hier_at(rbuf, displ, rt), count, rt);
    return (smap_sched_run(s));
}

int hier_node_allgatherv(struct smap_hier *h, const void *sbuf, MPI_Count scount,
                         smap_dtype_t *st, void *rbuf, const MPI_Count *counts,
                         const MPI_Count *displs, smap_dtype_t *rt)
{
    smap_comm_t *n = h->node;
    if (n->size == 1)
        return hier_node_self(h, sbuf, scount, st, rbuf, counts[0], displs[0], rt);
    struct smap_cvec cv = { counts, 1 }, dv = { displs, 1 };
    return n->slot >= 0
               ? (smap_cb_allgather(sbuf, scount, st, rbuf, 0, cv, dv, rt, n))
               : (smap_nbc_allgather(sbuf, scount, st, rbuf, 0, cv, dv, rt, n, NULL));
}
