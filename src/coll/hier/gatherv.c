/* Hierarchical Gatherv and Scatterv.  Their counts are known at the root
 * only, so a node other than the root's moves its blocks point-to-point
 * between its members and its leader on the node sub-communicator, and
 * the leader learns the sizes from the messages themselves: Gatherv's
 * members send their blocks to the leader (the senders run ahead, as in
 * the flat schedule), which probes each one for its size; Scatterv's root
 * sends each other node's leader the block sizes (one MPI_Count per rank)
 * ahead of the blocks, in the same schedule, and the leader sends each
 * member its block.  Those are hub sends (SMAP_P2P_TO_HUB, _FROM_HUB):
 * each member copies its own block, so the node's copies run side by
 * side.  Between the leader and the root a node's blocks travel in groups
 * of consecutive members of at most SMAP_COLL_HIER_CHUNK bytes (at least
 * one member), one message each: the root and the leader both know the
 * sizes and cut the same groups, and a group crosses while the leader
 * receives the next one from its members (Gatherv) or sends the previous
 * one to them (Scatterv): the pipeline of the plain forms (gather.c)
 * without a schedule per chunk, which every member of c would have to
 * start.  A lone member's block leaves from (lands in) the root's buffer
 * at its displacement; a larger group is packed (unpacked) there.  The
 * root's node gathers into (scatters from) the root's buffer directly with
 * the root's counts and displacements.  Nothing is written in the root's
 * buffer outside the blocks. */
#include "coll/hier/internal.h"

#include <stdlib.h>

#include "base/tunables.h"
#include "base/wait.h"
#include "dtype/engine.h"
#include "mpi/group.h"
#include "p2p/p2p.h"
#include "smap/smap.h"

/* Point-to-point between a node's members and its leader on the node
 * sub-communicator: these tags carry nothing else there. */
#define HIER_GATHERV_TAG 1
#define HIER_SCATTERV_TAG 2

/* A send on the node sub-communicator to its rank `to`, in a hub mode
 * (SMAP_P2P_TO_HUB, _FROM_HUB: the member copies a large block, never the
 * leader, so that the members' copies run side by side). */
static int node_isend(struct smap_hier *h, struct smap_preq *p, const void *buf, MPI_Count count,
                      smap_dtype_t *t, int to, int tag, int mode)
{
    smap_comm_t *n = h->node;
    int lr = smap_p2p_local_rank(smap_group_world_rank(n->group, to));
    int rc = smap_p2p_isend(p, buf, count, t, to, lr, n->rank, tag, n->ctx, mode);
    return rc == MPI_SUCCESS ? rc : smap_fail(rc, "a send on the node failed");
}

/* Waits for a send or receive on the node; `what` names it in the error. */
static int node_wait_for(struct smap_preq *p, const char *what)
{
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    while (!smap_preq_done(p)) {
        smap_p2p_progress();
        if (!smap_preq_done(p))
            smap_wait_step(&w);
    }
    return p->err == MPI_SUCCESS ? MPI_SUCCESS : smap_fail(p->err, what);
}

static int node_wait(struct smap_preq *p)
{
    return node_wait_for(p, "a send on the node failed");
}

/* The next message from node member j with `tag`, taken out of the
 * unexpected queue (a blocking matched probe: MPI_Mprobe's loop, each
 * round a progress round, which also moves the leader's schedule). */
static struct smap_p2p_msg *node_mprobe(struct smap_hier *h, int j, int tag, size_t *len)
{
    struct smap_p2p_msg *m = NULL;
    int src, mtag;
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    while (!smap_p2p_iprobe(h->node->ctx, j, tag, 1, &src, &mtag, len, &m))
        smap_wait_step(&w);
    return m;
}

/* Receives (and drops) a probed message nobody will read. */
static void node_discard(struct smap_p2p_msg *m)
{
    struct smap_preq p;
    smap_p2p_mrecv(&p, NULL, 0, smap_dtype_get(MPI_BYTE), m);
    (void)node_wait_for(&p, "");   /* truncated: by design */
}

/* This node's blocks: k members; at the leader of a node off the root's
 * one, cnt/dsp their byte sizes and offsets in pack (total bytes), moved
 * what has crossed between the members and pack (Gatherv: members whose
 * blocks are in; Scatterv: groups arrived, -1 before the sizes); at the
 * root, its node's counts and displacements by rank in the node. */
struct vnode {
    int k;
    MPI_Count *cnt, *dsp, total;
    char *pack;
    _Atomic int moved;
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
    atomic_init(&v->moved, -1);
    if (!v->cnt)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the node's counts");
    v->dsp = v->cnt + v->k;
    return MPI_SUCCESS;
}

/* At the root: this (the root's) node's counts and displacements by rank
 * in the node, from the root's arrays. */
static void root_node_layout(struct vnode *v, struct smap_hier *h, smap_comm_t *c,
                             struct smap_cvec counts, struct smap_cvec displs)
{
    int nd = h->node_of[c->rank];
    for (int j = 0; j < v->k; j++) {
        int i = hier_rank_at(h, nd, j);
        v->cnt[j] = smap_cvec_at(counts, i);
        v->dsp[j] = smap_cvec_at(displs, i);
    }
}

/* The root's side: for every other node, its ranks' sizes in node order
 * (sent ahead by Scatterv) and one message per group of them: a lone
 * member's block straight from (into) ubuf at its displacement, a
 * larger group's packed into (unpacked from) scratch. */
struct vcall {
    struct smap_hier *h;
    smap_comm_t *c;
    int root, gather;
    void *ubuf;
    struct smap_cvec counts, displs;
    smap_dtype_t *ut;
    struct vnode *v;
};

/* Rank i's block in the root's buffer. */
static void *root_block(struct vcall *x, int i)
{
    return hier_at(x->ubuf, smap_cvec_at(x->displs, i), x->ut);
}

/* One group [j, e) of node m (b: its members' sizes); *packed[j..e) gets
 * where each member's bytes sit in scratch (Gatherv: unpacked later),
 * NULL for a lone member. */
static void root_group(struct smap_sched *s, struct vcall *x, int m, const MPI_Count *b, int j,
                       int e, char **packed)
{
    struct smap_hier *h = x->h;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int leader = h->leader_of[m];
    if (e == j + 1) {
        int i = hier_rank_at(h, m, j);
        packed[j] = NULL;
        if (x->gather)
            smap_sched_recv(s, root_block(x, i), smap_cvec_at(x->counts, i), x->ut, leader);
        else
            smap_sched_send(s, root_block(x, i), smap_cvec_at(x->counts, i), x->ut, leader);
        return;
    }
    char *t = smap_sched_tmp(s, (size_t)hier_group_bytes(b, j, e) + 1), *at = t;
    if (!t)
        return;
    for (int q = j; q < e; at += b[q], q++) {
        int i = hier_rank_at(h, m, q);
        packed[q] = at;
        if (!x->gather)
            smap_sched_copy(s, root_block(x, i), smap_cvec_at(x->counts, i), x->ut, at, b[q],
                            byte);
    }
    if (x->gather)
        smap_sched_recv(s, t, hier_group_bytes(b, j, e), byte, leader);
    else
        smap_sched_send(s, t, hier_group_bytes(b, j, e), byte, leader);
}

static void root_side(struct smap_sched *s, void *arg)
{
    struct vcall *x = arg;
    struct smap_hier *h = x->h;
    smap_comm_t *c = x->c;
    int nd = h->node_of[c->rank];
    MPI_Count *sizes = smap_sched_tmp(s, (size_t)c->size * sizeof *sizes);
    char **packed = smap_sched_tmp(s, (size_t)c->size * sizeof *packed);
    if (!sizes || !packed)
        return;
    for (int m = 0, off = 0; m < h->nnodes; off += hier_node_size(h, m), m++) {
        int km = hier_node_size(h, m);
        MPI_Count *b = sizes + off;
        for (int j = 0; j < km; j++)
            b[j] = smap_cvec_at(x->counts, hier_rank_at(h, m, j)) * x->ut->size;
        if (m == nd)
            continue;
        if (!x->gather)
            smap_sched_send(s, b, km, smap_dtype_get(MPI_COUNT), h->leader_of[m]);
        for (int j = 0, e; j < km; j = e) {
            e = hier_group_end(b, km, j);
            root_group(s, x, m, b, j, e, packed + off);
        }
    }
    if (!x->gather)
        return;
    smap_sched_barrier(s);   /* unpacked once all arrived */
    for (int m = 0, off = 0; m < h->nnodes; off += hier_node_size(h, m), m++)
        for (int j = 0; j < hier_node_size(h, m) && m != nd; j++) {
            int i = hier_rank_at(h, m, j);
            if (packed[off + j])
                smap_sched_copy(s, packed[off + j], sizes[off + j], smap_dtype_get(MPI_BYTE),
                                root_block(x, i), smap_cvec_at(x->counts, i), x->ut);
        }
}

/* ---- Gatherv off the root's node ----------------------------------- */

/* A group's message waits until the leader holds its members' blocks. */
struct gate {
    struct vnode *v;
    int need;
};

static int gate_open(struct smap_sched *s, void *arg)
{
    (void)s;
    struct gate *g = arg;
    return atomic_load_explicit(&g->v->moved, memory_order_acquire) >= g->need ? MPI_SUCCESS
                                                                               : SMAP_SCHED_AGAIN;
}

/* The leader's schedule: group by group, its message to the root once
 * the group is in. */
static void leader_gather_side(struct smap_sched *s, struct vcall *x)
{
    struct vnode *v = x->v;
    for (int j = 0, e; j < v->k; j = e) {
        e = hier_group_end(v->cnt, v->k, j);
        struct gate *g = smap_sched_tmp(s, sizeof *g);
        if (!g)
            return;
        *g = (struct gate){ v, e };
        smap_sched_callback(s, gate_open, g);
        smap_sched_send(s, v->pack + v->dsp[j], hier_group_bytes(v->cnt, j, e),
                        smap_dtype_get(MPI_BYTE), x->root);
        smap_sched_barrier(s);
    }
}

/* The members' sizes (probed, node order) and the packed buffer. */
static int probe_members(struct vnode *v, struct smap_hier *h, struct smap_p2p_msg **msg,
                         MPI_Count own)
{
    v->cnt[0] = own;
    v->dsp[0] = 0;
    v->total = own;
    for (int j = 1; j < v->k; j++) {
        size_t len = 0;
        msg[j] = node_mprobe(h, j, HIER_GATHERV_TAG, &len);
        v->cnt[j] = (MPI_Count)len;
        v->dsp[j] = v->total;
        v->total += v->cnt[j];
    }
    v->pack = malloc((size_t)v->total + 1);
    if (!v->pack) {   /* the matched messages must still be taken off the queue */
        for (int j = 1; j < v->k; j++)
            node_discard(msg[j]);
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the node's blocks");
    }
    return MPI_SUCCESS;
}

/* The leader of a node off the root's: its schedule on c starts first,
 * then it receives its members' blocks in node order, opening each
 * group's message as the group completes. */
static int leader_gather(struct vcall *x, const void *sbuf, MPI_Count scount, smap_dtype_t *st)
{
    struct vnode *v = x->v;
    struct smap_p2p_msg **msg = malloc((size_t)v->k * sizeof *msg);
    struct smap_preq *rq = malloc((size_t)v->k * sizeof *rq);
    int rc = msg && rq ? probe_members(v, x->h, msg, scount * st->size)
                       : smap_fail(MPI_ERR_NO_MEM, "out of memory for the node's messages");
    if (rc != MPI_SUCCESS) {
        free(msg), free(rq);
        return rc;
    }
    MPI_Request req = MPI_REQUEST_NULL;
    struct smap_sched *s = smap_sched_new(x->c);
    if (s)
        leader_gather_side(s, x);
    rc = s ? hier_launch(s, &req) : smap_fail(MPI_ERR_NO_MEM, "out of memory for the schedule");
    /* every member's copy under way at once (they copy: SMAP_P2P_TO_HUB),
     * then the groups open in order as their members finish */
    for (int j = 1; j < v->k; j++)
        smap_p2p_mrecv(&rq[j], v->pack + v->dsp[j], v->cnt[j], smap_dtype_get(MPI_BYTE), msg[j]);
    smap_dtype_copy(v->pack, v->cnt[0], smap_dtype_get(MPI_BYTE), sbuf, scount, st);
    atomic_store_explicit(&v->moved, 1, memory_order_release);
    for (int j = 1; j < v->k; j++) {   /* all of them, even after a failure */
        int r = node_wait_for(&rq[j], "receiving a node member's block failed");
        if (r != MPI_SUCCESS && rc == MPI_SUCCESS)
            rc = r;
        atomic_store_explicit(&v->moved, j + 1, memory_order_release);
    }
    free(msg), free(rq);
    if (req != MPI_REQUEST_NULL) {
        int r = hier_wait(&req);
        rc = rc == MPI_SUCCESS ? r : rc;
    }
    return rc;
}

/* ---- Scatterv off the root's node ---------------------------------- */

static int group_arrived(struct smap_sched *s, void *arg)
{
    (void)s;
    struct vnode *v = arg;
    atomic_fetch_add_explicit(&v->moved, 1, memory_order_release);
    return MPI_SUCCESS;
}

/* Once the sizes arrived: the offsets, the packed buffer and its
 * receives, group by group, each counted when in (rounds appended to the
 * running schedule). */
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
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the node's blocks");
    for (int j = 0, e; j < v->k; j = e) {
        e = hier_group_end(v->cnt, v->k, j);
        smap_sched_recv(s, v->pack + v->dsp[j], hier_group_bytes(v->cnt, j, e),
                        smap_dtype_get(MPI_BYTE), x->root);
        smap_sched_barrier(s);
        smap_sched_callback(s, group_arrived, v);
    }
    smap_sched_barrier(s);
    if (smap_sched_failed(s))
        return MPI_ERR_NO_MEM;
    atomic_store_explicit(&v->moved, 0, memory_order_release);
    return MPI_SUCCESS;
}

/* Sends the members of group [j, e) their blocks (*sent of them posted
 * in sreq, by member), then copies the leader's own into rbuf when the
 * group holds it (after the sends: the members copy theirs meanwhile,
 * SMAP_P2P_FROM_HUB). */
static int scatter_group(struct vcall *x, int j, int e, void *rbuf, MPI_Count rcount,
                         smap_dtype_t *rt, struct smap_preq *sreq, int *sent)
{
    struct vnode *v = x->v;
    for (int i = j > 0 ? j : 1; i < e; i++) {
        int rc = node_isend(x->h, &sreq[i], v->pack + v->dsp[i], v->cnt[i],
                            smap_dtype_get(MPI_BYTE), i, HIER_SCATTERV_TAG, SMAP_P2P_FROM_HUB);
        if (rc != MPI_SUCCESS)
            return rc;
        *sent = i + 1;
    }
    if (j == 0 && smap_dtype_copy(rbuf, rcount, rt, v->pack, v->cnt[0],
                                  smap_dtype_get(MPI_BYTE)) < v->cnt[0])
        return smap_fail(MPI_ERR_TRUNCATE, "the leader's block is larger than its receive buffer");
    return MPI_SUCCESS;
}

/* The leader of a node off the root's: its schedule on c receives the
 * sizes, then the groups; each group goes on to its members as it
 * arrives. */
static int leader_scatter(struct vcall *x, void *rbuf, MPI_Count rcount, smap_dtype_t *rt)
{
    struct vnode *v = x->v;
    struct smap_preq *sreq = malloc((size_t)v->k * sizeof *sreq);
    struct smap_sched *s = sreq ? smap_sched_new(x->c) : NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    int sent = 1;   /* members 1 .. sent-1 have their send posted */
    if (!s) {
        free(sreq);
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the node's requests");
    }
    smap_sched_recv(s, v->cnt, v->k, smap_dtype_get(MPI_COUNT), x->root);
    smap_sched_barrier(s);
    smap_sched_callback(s, leader_sized, x);
    smap_sched_barrier(s);   /* what it appends comes after it */
    int rc = hier_launch(s, &req);
    for (int j = 0, e, g = 1; j < v->k && rc == MPI_SUCCESS; j = e, g++) {
        hier_wait_until(req, &v->moved, g);
        if (atomic_load_explicit(&v->moved, memory_order_acquire) < g)
            break;   /* the schedule failed: hier_wait says how */
        e = hier_group_end(v->cnt, v->k, j);
        rc = scatter_group(x, j, e, rbuf, rcount, rt, sreq, &sent);
    }
    if (req != MPI_REQUEST_NULL) {
        int r = hier_wait(&req);
        rc = rc == MPI_SUCCESS ? r : rc;
    }
    for (int j = 1; j < sent; j++) {
        int r = node_wait(&sreq[j]);
        rc = rc == MPI_SUCCESS ? r : rc;
    }
    free(sreq);
    return rc;
}

/* ---- entry points ---------------------------------------------------- */

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
    struct vcall x = { h, c, root, 1, rbuf, rcounts, displs, rt, &v };
    if (!on_root_node && hier_is_leader(h)) {
        rc = leader_gather(&x, sbuf, scount, st);
    } else {
        if (on_root_node) {   /* straight into the root's buffer */
            if (me == root)
                root_node_layout(&v, h, c, rcounts, displs);
            rc = hier_node_gatherv(h, sbuf, scount, st, rbuf, v.cnt, v.dsp, rt,
                                   h->local_of[root]);
        } else {
            struct smap_preq p;
            rc = node_isend(h, &p, sbuf, scount, st, 0, HIER_GATHERV_TAG, SMAP_P2P_TO_HUB);
            if (rc == MPI_SUCCESS)
                rc = node_wait(&p);
        }
        if (rc == MPI_SUCCESS)
            rc = hier_root_leaders(h, c, root, root_side, NULL, &x);
    }
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
    if (!on_root_node && hier_is_leader(h)) {
        rc = leader_scatter(&x, rbuf, rcount, rt);
    } else {
        rc = hier_root_leaders(h, c, root, root_side, NULL, &x);
        if (rc == MPI_SUCCESS && on_root_node) {
            if (me == root)
                root_node_layout(&v, h, c, scounts, displs);
            rc = hier_node_scatterv(h, sbuf, v.cnt, v.dsp, st, rbuf, rcount, rt,
                                    h->local_of[root]);
        } else if (rc == MPI_SUCCESS) {
            struct smap_preq p;
            rc = smap_p2p_irecv(&p, rbuf, rcount, rt, 0, HIER_SCATTERV_TAG, h->node->ctx);
            rc = rc != MPI_SUCCESS
                     ? smap_fail(rc, "receiving a block from the node's leader failed")
                     : node_wait_for(&p, "receiving a block from the node's leader failed");
        }
    }
    vnode_free(&v);
    return rc;
}
