/* The node-aware schedules of Igatherv and Iscatterv (and their _init
 * forms): the plain forms' scheme (nbc_gather.c) on bytes whose sizes are
 * learnt while the schedule runs.
 *
 * Only the root knows the counts, and a schedule is built before it runs,
 * so the leader of a node other than the root's cannot size what it
 * gathers (scatters) when the schedule is built.  Each member of such a
 * node sends its leader its block's size in bytes (one MPI_Count) in the
 * first round, next to (Igatherv) its block itself: an on-node message,
 * so no inter-node round is added.  The leader's second round is a
 * callback that lays the blocks out in node order from those sizes (and
 * grows the packed buffer, scratch of the schedule: a persistent request
 * reruns with the same sizes and reuses it), then messages placed and
 * sized at run time (smap_sched_recv_late / _send_late) move them.  The
 * other choice, the root sending each leader its node's counts, would put
 * an inter-node message in front of the data (Iscatterv) or a whole
 * inter-node round (Igatherv); the blocking Gatherv probes the members'
 * messages instead, which a schedule cannot do.
 *
 * Igatherv: the root's node sends straight to the root, which receives
 * each block at its displacement; every other node's leader packs its
 * node's blocks (bytes, node order) and sends them to the root in one
 * message; the root unpacks each rank's block at its displacement.
 * Iscatterv: the mirror.  Gaps between blocks are never written.  They
 * cannot switch by size (only the root knows the sizes, and every rank
 * must choose the same schedule): hierarchical only when the plain form's
 * crossover (SMAP_COLL_HIER_GATHER_MIN, _SCATTER_MIN) is 0, "every size";
 * flat with one rank per node (nothing to aggregate) or on one node. */
#include "coll/hier/internal.h"

#include <string.h>

#include "base/tunables.h"

/* A leader's node off the root's: its members' block sizes (bytes, node
 * order; the leader's own first) and their offsets in the packed buffer,
 * laid out by vnode_size when the sizes have arrived. */
struct vnode {
    int k;
    MPI_Count *cnt, *off, total, cap;
    char *pack;
    /* the leader's own block as bytes (cnt[0]), moved between it and the
     * user's buffer by copy steps built in advance: the schedule keeps the
     * user's datatype alive for those, not for its callbacks */
    char *own;
    int gather;
};

static int vnode_size(struct smap_sched *s, void *arg)
{
    struct vnode *v = arg;
    v->total = 0;
    for (int j = 0; j < v->k; j++)
        v->off[j] = v->total, v->total += v->cnt[j];
    if (v->total > v->cap) {   /* (a persistent rerun: the same sizes, no growth) */
        char *p = smap_sched_tmp(s, (size_t)v->total + 1);
        if (!p)
            return hier_fail(MPI_ERR_NO_MEM, "out of memory for the node's blocks");
        v->pack = p, v->cap = v->total;
    }
    if (v->gather)
        memcpy(v->pack, v->own, (size_t)v->cnt[0]);
    return MPI_SUCCESS;
}

/* Iscatterv: the leader's own block out of the packed buffer (a copy
 * step after this one unpacks it). */
static int vnode_own_out(struct smap_sched *s, void *arg)
{
    (void)s;
    struct vnode *v = arg;
    memcpy(v->own, v->pack, (size_t)v->cnt[0]);
    return MPI_SUCCESS;
}

/* The leader's state in s's scratch, its own block `bytes`; NULL when out
 * of memory. */
static struct vnode *vnode_new(struct smap_sched *s, const struct hier_imap *m, MPI_Count bytes,
                               int gather)
{
    struct vnode *v = smap_sched_tmp(s, sizeof *v);
    MPI_Count *a = smap_sched_tmp(s, 2 * (size_t)m->k * sizeof *a);
    char *own = smap_sched_tmp(s, (size_t)bytes + 1), *pack = smap_sched_tmp(s, 1);
    if (!v || !a || !own || !pack)
        return NULL;
    *v = (struct vnode){ m->k, a, a + m->k, 0, 0, pack, own, gather };
    v->cnt[0] = bytes;
    return v;
}

/* The first round of a node off the root's: every member sends the leader
 * the size of its block in bytes, the leader receives them (the member's
 * block goes with it, or comes back, in the caller's part of the round). */
static int sizes_to_leader(struct smap_sched *s, const struct hier_imap *m, int me,
                           MPI_Count bytes, struct vnode *v)
{
    smap_dtype_t *cnt_t = smap_dtype_get(MPI_COUNT);
    if (me != m->members[0]) {
        MPI_Count *b = smap_sched_tmp(s, sizeof *b);
        if (!b)
            return -1;
        *b = bytes;
        smap_sched_send(s, b, 1, cnt_t, m->members[0]);
        return 0;
    }
    for (int j = 1; j < m->k; j++)
        smap_sched_recv(s, &v->cnt[j], 1, cnt_t, m->members[j]);
    smap_sched_barrier(s);
    return 0;
}

/* Bytes of each node's blocks at the root, from the root's counts. */
static MPI_Count *node_bytes(struct smap_sched *s, const struct hier_imap *m, int p,
                             struct smap_cvec counts, smap_dtype_t *t)
{
    MPI_Count *bytes = smap_sched_tmp(s, (size_t)m->nn * sizeof *bytes);
    if (!bytes)
        return NULL;
    for (int y = 0; y < m->nn; y++)
        bytes[y] = 0;
    for (int r = 0; r < p; r++)
        bytes[m->node_of[r]] += smap_cvec_at(counts, r) * t->size;
    return bytes;
}

/* A block of the root's node at the root: at its displacement. */
struct rootv {
    const void *buf;
    struct smap_cvec counts, displs;
    smap_dtype_t *t;
    const int *members;
};

static struct hier_blk rootv_at(int j, void *arg)
{
    struct rootv *x = arg;
    int r = x->members[j];
    return (struct hier_blk){ hier_at(x->buf, smap_cvec_at(x->displs, r), x->t),
                              smap_cvec_at(x->counts, r), x->t };
}

/* Whether the hierarchy runs: the plain form's crossover (min) is 0 --
 * the sizes are known at the root only, so no rank can compare them with
 * a crossover that every rank must apply alike, and below the plain
 * forms' crossovers the hierarchy measured 2-10x slower (README) -- and
 * c's shape allows it: several nodes, one of them with more than one rank
 * (otherwise nothing is aggregated).  SMAP_HIER_FLAT or MPI_SUCCESS (*s
 * built). */
static int v_start(smap_comm_t *c, uint64_t min, struct smap_sched **s, struct hier_imap *m)
{
    if (min != 0)
        return SMAP_HIER_FLAT;
    int rc = hier_nb_start(c, s, m);
    if (rc == MPI_SUCCESS && m->nn == c->size) {
        smap_sched_free(*s);
        return SMAP_HIER_FLAT;
    }
    return rc;
}

int smap_hier_igatherv(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                       struct smap_cvec rcounts, struct smap_cvec displs, smap_dtype_t *rt,
                       int root, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s;
    struct hier_imap m;
    int rc = v_start(c, smap_tun.coll_hier_gather_min, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int me = c->rank, p = c->size, nd = m.node_of[me], rn = m.node_of[root], lead = m.members[0];
    struct hier_blk own = { sbuf, scount, st };
    if (nd == rn) {   /* straight into the root's buffer */
        MPI_Count *bytes = NULL;
        char **in = NULL;
        if (me == root) {
            bytes = node_bytes(s, &m, p, rcounts, rt);
            in = smap_sched_tmp(s, (size_t)m.nn * sizeof *in);
            if (!bytes || !in)
                return hier_launch(s, req);   /* fails: out of memory */
            for (int y = 0; y < m.nn; y++) {
                if (y == rn)
                    continue;
                in[y] = smap_sched_tmp(s, (size_t)bytes[y] + 1);
                if (!in[y])
                    return hier_launch(s, req);
                smap_sched_recv(s, in[y], bytes[y], byte, m.leader_of[y]);
            }
            if (sbuf != MPI_IN_PLACE)
                smap_sched_copy(s, sbuf, scount, st,
                                hier_at(rbuf, smap_cvec_at(displs, root), rt),
                                smap_cvec_at(rcounts, root), rt);
        }
        struct rootv x = { rbuf, rcounts, displs, rt, m.members };
        hier_nb_to_hub(s, &m, me, root, own, rootv_at, &x);
        if (me == root)
            for (int r = 0; r < p; r++) {   /* (each node's blocks in rank order) */
                int y = m.node_of[r];
                MPI_Count n = smap_cvec_at(rcounts, r);
                if (y != rn && n > 0) {
                    smap_sched_copy(s, in[y], n * rt->size, byte,
                                    hier_at(rbuf, smap_cvec_at(displs, r), rt), n, rt);
                    in[y] += n * rt->size;
                }
            }
        return hier_launch(s, req);
    }
    struct vnode *v = NULL;
    if (me == lead) {
        if (!(v = vnode_new(s, &m, scount * st->size, 1)))
            return hier_launch(s, req);
        smap_sched_copy(s, sbuf, scount, st, v->own, v->cnt[0], byte);
    }
    if (sizes_to_leader(s, &m, me, scount * st->size, v) != 0)
        return hier_launch(s, req);
    if (me != lead) {   /* the block right behind its size */
        smap_sched_send(s, sbuf, scount, st, lead);
        return hier_launch(s, req);
    }
    smap_sched_callback(s, vnode_size, v);
    for (int j = 1; j < m.k; j++)
        smap_sched_recv_late(s, &v->pack, &v->off[j], &v->cnt[j], byte, m.members[j]);
    smap_sched_barrier(s);
    smap_sched_send_late(s, &v->pack, NULL, &v->total, byte, root);
    return hier_launch(s, req);
}

int smap_hier_iscatterv(const void *sbuf, struct smap_cvec scounts, struct smap_cvec displs,
                        smap_dtype_t *st, void *rbuf, MPI_Count rcount, smap_dtype_t *rt,
                        int root, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s;
    struct hier_imap m;
    int rc = v_start(c, smap_tun.coll_hier_scatter_min, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int me = c->rank, p = c->size, nd = m.node_of[me], rn = m.node_of[root], lead = m.members[0];
    struct hier_blk own = { rbuf, rcount, rt };
    if (nd == rn) {   /* straight from the root's buffer */
        if (me == root) {
            MPI_Count *bytes = node_bytes(s, &m, p, scounts, st);
            int *ranks = smap_sched_tmp(s, (size_t)p * sizeof *ranks);
            if (!bytes || !ranks)
                return hier_launch(s, req);   /* fails: out of memory */
            for (int y = 0; y < m.nn; y++) {   /* each other node's blocks, packed */
                if (y == rn)
                    continue;
                int ky = hier_nb_node_ranks(&m, p, y, ranks);
                char *pack = smap_sched_tmp(s, (size_t)bytes[y] + 1), *at = pack;
                if (!pack)
                    return hier_launch(s, req);
                for (int j = 0; j < ky; j++) {
                    MPI_Count n = smap_cvec_at(scounts, ranks[j]);
                    if (n > 0)
                        smap_sched_copy(s, hier_at(sbuf, smap_cvec_at(displs, ranks[j]), st), n,
                                        st, at, n * st->size, byte);
                    at += n * st->size;
                }
                smap_sched_send(s, pack, bytes[y], byte, m.leader_of[y]);
            }
            if (rbuf != MPI_IN_PLACE)
                smap_sched_copy(s, hier_at(sbuf, smap_cvec_at(displs, root), st),
                                smap_cvec_at(scounts, root), st, rbuf, rcount, rt);
        }
        struct rootv x = { sbuf, scounts, displs, st, m.members };
        hier_nb_from_hub(s, &m, me, root, own, rootv_at, &x);
        return hier_launch(s, req);
    }
    struct vnode *v = NULL;
    if (me == lead && !(v = vnode_new(s, &m, rcount * rt->size, 0)))
        return hier_launch(s, req);
    if (sizes_to_leader(s, &m, me, rcount * rt->size, v) != 0)
        return hier_launch(s, req);
    if (me != lead) {   /* its block, once the leader has it */
        smap_sched_recv(s, rbuf, rcount, rt, lead);
        return hier_launch(s, req);
    }
    smap_sched_callback(s, vnode_size, v);
    smap_sched_recv_late(s, &v->pack, NULL, &v->total, byte, root);
    smap_sched_barrier(s);
    smap_sched_callback(s, vnode_own_out, v);
    smap_sched_copy(s, v->own, v->cnt[0], byte, rbuf, rcount, rt);
    for (int j = 1; j < m.k; j++)
        smap_sched_send_late(s, &v->pack, &v->off[j], &v->cnt[j], byte, m.members[j]);
    return hier_launch(s, req);
}
