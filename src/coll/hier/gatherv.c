/* Hierarchical Gatherv and Scatterv.  Their counts are known at the root
 * only, so a node other than the root's first gathers its members' block
 * sizes on its leader (one MPI_Count each, an on-node gather); then it is
 * the plain forms' scheme (gather.c): the root's node gathers into
 * (scatters from) the root's buffer directly with the root's counts and
 * displacements; every other node gathers its blocks packed (bytes, node
 * order) on its leader, which exchanges them with the root in one message
 * (the root computes each node's byte total from its own counts); the
 * root unpacks (packs) each rank's block at its displacement.  Nothing is
 * written in the root's buffer outside the blocks. */
#include "coll/hier/internal.h"

#include <stdlib.h>

/* This node's blocks: k members; at the leader of a node off the root's
 * one, sz/dsp their byte sizes and offsets in pack (total bytes). */
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

/* Off the root's node: every member's block size in bytes gathered on the
 * leader, which gets the offsets and the packed buffer. */
static int node_sizes(struct vnode *v, struct smap_hier *h, MPI_Count mine)
{
    smap_dtype_t *ct = smap_dtype_get(MPI_COUNT);
    MPI_Count *one = malloc(2 * (size_t)v->k * sizeof *one);
    if (!one)
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the node's counts");
    for (int j = 0; j < v->k; j++)
        one[j] = 1, one[v->k + j] = j;
    int rc = hier_node_gatherv(h, &mine, 1, ct, v->cnt, one, one + v->k, ct, 0);
    free(one);
    if (rc != MPI_SUCCESS || !hier_is_leader(h))
        return rc;
    for (int j = 0; j < v->k; j++) {
        v->dsp[j] = v->total;
        v->total += v->cnt[j];
    }
    v->pack = malloc((size_t)v->total + 1);
    return v->pack ? MPI_SUCCESS : hier_fail(MPI_ERR_NO_MEM, "out of memory for the node's blocks");
}

/* The root's side: one message per other node, its ranks' blocks packed
 * in rank order, unpacked into (packed from) ubuf at the root's
 * displacements. */
static void root_side(struct smap_sched *s, struct smap_hier *h, smap_comm_t *c, void *ubuf,
                      struct smap_cvec counts, struct smap_cvec displs, smap_dtype_t *ut,
                      int gather)
{
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int nd = h->node_of[c->rank];
    char **at = smap_sched_tmp(s, (size_t)h->nnodes * sizeof *at);
    MPI_Count *bytes = smap_sched_tmp(s, (size_t)h->nnodes * sizeof *bytes);
    if (!at || !bytes)
        return;
    for (int m = 0; m < h->nnodes; m++)
        bytes[m] = 0;
    for (int i = 0; i < c->size; i++)
        bytes[h->node_of[i]] += smap_cvec_at(counts, i) * ut->size;
    for (int m = 0; m < h->nnodes; m++) {
        if (m == nd)
            continue;
        char *t = at[m] = smap_sched_tmp(s, (size_t)bytes[m] + 1);
        if (!t)
            return;
        for (int i = 0; i < c->size && !gather; i++)
            if (h->node_of[i] == m) {
                MPI_Count ni = smap_cvec_at(counts, i);
                smap_sched_copy(s, hier_at(ubuf, smap_cvec_at(displs, i), ut), ni, ut, t,
                                ni * ut->size, byte);
                t += ni * ut->size;
            }
        if (gather)
            smap_sched_recv(s, at[m], bytes[m], byte, h->leader_of[m]);
        else
            smap_sched_send(s, at[m], bytes[m], byte, h->leader_of[m]);
    }
    if (!gather)
        return;
    smap_sched_barrier(s);   /* unpacked once all arrived */
    for (int i = 0; i < c->size; i++) {
        int m = h->node_of[i];
        MPI_Count ni = smap_cvec_at(counts, i);
        if (m != nd) {
            smap_sched_copy(s, at[m], ni * ut->size, byte,
                            hier_at(ubuf, smap_cvec_at(displs, i), ut), ni, ut);
            at[m] += ni * ut->size;
        }
    }
}

/* The messages between the root and the other nodes' leaders: a schedule
 * on c every member runs (empty on most), so that c's schedule numbers
 * stay equal everywhere. */
static int root_leaders(struct smap_hier *h, smap_comm_t *c, int root, void *ubuf,
                        struct smap_cvec counts, struct smap_cvec displs, smap_dtype_t *ut,
                        struct vnode *v, int gather)
{
    struct smap_sched *s = smap_sched_new(c);
    if (!s)
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the root's schedule");
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int me = c->rank;
    if (me == root)
        root_side(s, h, c, ubuf, counts, displs, ut, gather);
    else if (hier_is_leader(h) && h->node_of[me] != h->node_of[root]) {
        if (gather)
            smap_sched_send(s, v->pack, v->total, byte, root);
        else
            smap_sched_recv(s, v->pack, v->total, byte, root);
    }
    return hier_run(s, "out of memory building the root's schedule");
}

int smap_hier_gatherv(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                      struct smap_cvec rcounts, struct smap_cvec displs, smap_dtype_t *rt,
                      int root, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
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
        rc = node_sizes(&v, h, scount * st->size);
        if (rc == MPI_SUCCESS)
            rc = hier_node_gatherv(h, sbuf, scount, st, v.pack, v.cnt, v.dsp,
                                   smap_dtype_get(MPI_BYTE), 0);
    }
    if (rc == MPI_SUCCESS)
        rc = root_leaders(h, c, root, rbuf, rcounts, displs, rt, &v, 1);
    vnode_free(&v);
    return rc;
}

int smap_hier_scatterv(const void *sbuf, struct smap_cvec scounts, struct smap_cvec displs,
                       smap_dtype_t *st, void *rbuf, MPI_Count rcount, smap_dtype_t *rt,
                       int root, smap_comm_t *c)
{
    struct smap_hier *h = c->hier;
    int me = c->rank, on_root_node = h->node_of[me] == h->node_of[root];
    struct vnode v;
    int rc = vnode_init(&v, h);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!on_root_node)
        rc = node_sizes(&v, h, rcount * rt->size);
    if (rc == MPI_SUCCESS)
        rc = root_leaders(h, c, root, (void *)sbuf, scounts, displs, st, &v, 0);
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
