/* Hierarchical Gatherv and Scatterv.  Their counts are known at the root
 * only, so the leader of a node other than the root's learns its members'
 * block sizes from the messages themselves: Gatherv's members send their
 * blocks to the leader point-to-point on the node sub-communicator (the
 * senders run ahead, as in the flat schedule), the leader probes each one
 * for its size and packs them in node order; Scatterv's root sends each
 * other node's leader the block sizes (one MPI_Count per rank) ahead of
 * the blocks, in the same schedule.  Then it is the plain forms' scheme
 * (gather.c): the root's node gathers into (scatters from) the root's
 * buffer directly with the root's counts and displacements; every other
 * node's leader exchanges its node's packed blocks with the root in one
 * message (the root computes each node's byte total from its own counts)
 * and the root unpacks (packs) each rank's block at its displacement.
 * Nothing is written in the root's buffer outside the blocks. */
#include "coll/hier/internal.h"

#include <stdlib.h>

#include "dtype/engine.h"

/* This node's blocks: k members; at the leader of a node off the root's
 * one, cnt/dsp their byte sizes and offsets in pack (total bytes); at the
 * root, its node's counts and displacements by rank in the node. */
struct vnode {
    int k;
    MPI_Count *cnt, *dsp, total;
    char *pack;
};

static void vnode_free(struct vnode *v)
{
    free(v->cnt), free(v->pack);
}

static int vnode_init(struct vnode *v, struct smap_hier *h)
{
    v->k = h->node->size;
    v->cnt = malloc(2 * (size_t)v->k * sizeof *v->cnt);
    v->pack = NULL;
    v->total = 0;
    if (!v->cnt)
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the node's counts");
    v->dsp = v->cnt + v->k;
    return MPI_SUCCESS;
}

/* At the root: this (the root's) node's counts and displacements by rank
 * in the node, from the root's arrays. */
static void root_node_layout(struct vnode *v, struct smap_hier *h, smap_comm_t *c,
                             struct smap_cvec counts, struct smap_cvec displs)
{
    int nd = h->node_of[c->rank];
    for (int i = 0; i < c->size; i++)
        if (h->node_of[i] == nd) {
            v->cnt[h->local_of[i]] = smap_cvec_at(counts, i);
            v->dsp[h->local_of[i]] = smap_cvec_at(displs, i);
        }
}

/* Off the root's node (Gatherv): the members' blocks point-to-point to
 * the leader (this tag on the node sub-communicator carries nothing
 * else), which probes them in node order for their sizes and packs them. */
#define HIER_GATHERV_TAG 1

static int node_collect(struct vnode *v, struct smap_hier *h, const void *sbuf, MPI_Count scount,
                        smap_dtype_t *st)
{
    if (!hier_is_leader(h)) {
        int rc = PMPI_Send_c(sbuf, scount, smap_dtype_handle(st), 0, HIER_GATHERV_TAG, h->node_h);
        return rc == MPI_SUCCESS ? rc : hier_fail(rc, "sending a block to the node's leader failed");
    }
    MPI_Message *msg = malloc((size_t)v->k * sizeof *msg);
    if (!msg)
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the node's messages");
    v->cnt[0] = scount * st->size;
    v->dsp[0] = 0;
    v->total = v->cnt[0];
    int rc = MPI_SUCCESS;
    for (int j = 1; j < v->k && rc == MPI_SUCCESS; j++) {
        MPI_Status stat;
        rc = PMPI_Mprobe(j, HIER_GATHERV_TAG, h->node_h, &msg[j], &stat);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Get_count_c(&stat, MPI_BYTE, &v->cnt[j]);
        v->dsp[j] = v->total;
        v->total += v->cnt[j];
    }
    if (rc != MPI_SUCCESS) {
        free(msg);
        return hier_fail(rc, "probing a node member's block failed");
    }
    v->pack = malloc((size_t)v->total + 1);
    if (!v->pack) {   /* the matched messages must still be taken off the queue */
        for (int j = 1; j < v->k; j++)
            PMPI_Mrecv_c(NULL, 0, MPI_BYTE, &msg[j], MPI_STATUS_IGNORE);
        free(msg);
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the node's blocks");
    }
    smap_dtype_copy(v->pack, v->cnt[0], smap_dtype_get(MPI_BYTE), sbuf, scount, st);
    for (int j = 1; j < v->k && rc == MPI_SUCCESS; j++)
        rc = PMPI_Mrecv_c(v->pack + v->dsp[j], v->cnt[j], MPI_BYTE, &msg[j], MPI_STATUS_IGNORE);
    free(msg);
    return rc == MPI_SUCCESS ? rc : hier_fail(rc, "receiving a node member's block failed");
}

/* The root's side: one message per other node, its ranks' blocks packed
 * in rank order, unpacked into (packed from) ubuf at the root's
 * displacements; Scatterv sends each leader its ranks' block sizes
 * first. */
struct vcall {
    struct smap_hier *h;
    smap_comm_t *c;
    int root, gather;
    void *ubuf;
    struct smap_cvec counts, displs;
    smap_dtype_t *ut;
    struct vnode *v;
};

static void root_side(struct smap_sched *s, void *arg)
{
    struct vcall *x = arg;
    struct smap_hier *h = x->h;
    smap_comm_t *c = x->c;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE), *ut = x->ut;
    int nd = h->node_of[c->rank], gather = x->gather;
    char **at = smap_sched_tmp(s, (size_t)h->nnodes * sizeof *at);
    MPI_Count *bytes = smap_sched_tmp(s, (size_t)h->nnodes * sizeof *bytes);
    MPI_Count *sizes = smap_sched_tmp(s, (size_t)c->size * sizeof *sizes);
    if (!at || !bytes || !sizes)
        return;
    for (int m = 0; m < h->nnodes; m++)
        bytes[m] = 0;
    for (int i = 0; i < c->size; i++)
        bytes[h->node_of[i]] += smap_cvec_at(x->counts, i) * ut->size;
    for (int m = 0, off = 0; m < h->nnodes; m++) {
        if (m == nd)
            continue;
        char *t = at[m] = smap_sched_tmp(s, (size_t)bytes[m] + 1);
        if (!t)
            return;
        int km = 0;
        for (int i = 0; i < c->size && !gather; i++)
            if (h->node_of[i] == m) {
                MPI_Count ni = smap_cvec_at(x->counts, i);
                smap_sched_copy(s, hier_at(x->ubuf, smap_cvec_at(x->displs, i), ut), ni, ut, t,
                                ni * ut->size, byte);
                t += ni * ut->size;
                sizes[off + km++] = ni * ut->size;
            }
        if (gather) {
            smap_sched_recv(s, at[m], bytes[m], byte, h->leader_of[m]);
        } else {
            smap_sched_send(s, sizes + off, km, smap_dtype_get(MPI_COUNT), h->leader_of[m]);
            smap_sched_send(s, at[m], bytes[m], byte, h->leader_of[m]);
        }
        off += km;
    }
    if (!gather)
        return;
    smap_sched_barrier(s);   /* unpacked once all arrived */
    for (int i = 0; i < c->size; i++) {
        int m = h->node_of[i];
        MPI_Count ni = smap_cvec_at(x->counts, i);
        if (m != nd) {
            smap_sched_copy(s, at[m], ni * ut->size, byte,
                            hier_at(x->ubuf, smap_cvec_at(x->displs, i), ut), ni, ut);
            at[m] += ni * ut->size;
        }
    }
}

/* Scatterv's leader, once the sizes arrived: the offsets, the packed
 * buffer and its receive (a step appended to the running schedule). */
static int leader_sized(struct smap_sched *s, void *arg)
{
    struct vcall *x = arg;
    struct vnode *v = x->v;
    v->total = 0;
    for (int j = 0; j < v->k; j++) {
        v->dsp[j] = v->total;
        v->total += v->cnt[j];
    }
    v->pack = malloc((size_t)v->total + 1);
    if (!v->pack)
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the node's blocks");
    smap_sched_recv(s, v->pack, v->total, smap_dtype_get(MPI_BYTE), x->root);
    smap_sched_barrier(s);   /* a round of its own, after this one */
    return smap_sched_failed(s) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

static void leader_side(struct smap_sched *s, void *arg)
{
    struct vcall *x = arg;
    struct vnode *v = x->v;
    if (x->gather) {
        smap_sched_send(s, v->pack, v->total, smap_dtype_get(MPI_BYTE), x->root);
        return;
    }
    smap_sched_recv(s, v->cnt, v->k, smap_dtype_get(MPI_COUNT), x->root);
    smap_sched_barrier(s);
    smap_sched_callback(s, leader_sized, x);
    smap_sched_barrier(s);   /* what it appends comes after it */
}

int smap_hier_gatherv(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                      struct smap_cvec rcounts, struct smap_cvec displs, smap_dtype_t *rt,
                      int root, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    if (h->nnodes == c->size)
        return SMAP_HIER_FLAT;   /* one rank per node: nothing to aggregate */
    int me = c->rank, on_root_node = h->node_of[me] == h->node_of[root];
    struct vnode v;
    int rc = vnode_init(&v, h);
    if (rc != MPI_SUCCESS)
        return rc;
    if (on_root_node) {   /* straight into the root's buffer */
        if (me == root)
            root_node_layout(&v, h, c, rcounts, displs);
        rc = hier_node_gatherv(h, sbuf, scount, st, rbuf, v.cnt, v.dsp, rt, h->local_of[root]);
    } else {
        rc = node_collect(&v, h, sbuf, scount, st);
    }
    struct vcall x = { h, c, root, 1, rbuf, rcounts, displs, rt, &v };
    if (rc == MPI_SUCCESS)
        rc = hier_root_leaders(h, c, root, root_side, leader_side, &x);
    vnode_free(&v);
    return rc;
}

int smap_hier_scatterv(const void *sbuf, struct smap_cvec scounts, struct smap_cvec displs,
                       smap_dtype_t *st, void *rbuf, MPI_Count rcount, smap_dtype_t *rt,
                       int root, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    if (h->nnodes == c->size)
        return SMAP_HIER_FLAT;   /* one rank per node: nothing to aggregate */
    int me = c->rank, on_root_node = h->node_of[me] == h->node_of[root];
    struct vnode v;
    int rc = vnode_init(&v, h);
    if (rc != MPI_SUCCESS)
        return rc;
    struct vcall x = { h, c, root, 0, (void *)sbuf, scounts, displs, st, &v };
    rc = hier_root_leaders(h, c, root, root_side, leader_side, &x);
    if (rc == MPI_SUCCESS) {
        if (on_root_node) {
            if (me == root)
                root_node_layout(&v, h, c, scounts, displs);
            rc = hier_node_scatterv(h, sbuf, v.cnt, v.dsp, st, rbuf, rcount, rt,
                                    h->local_of[root]);
        } else {
            rc = hier_node_scatterv(h, v.pack, v.cnt, v.dsp, smap_dtype_get(MPI_BYTE), rbuf,
                                    rcount, rt, 0);
        }
    }
    vnode_free(&v);
    return rc;
}
