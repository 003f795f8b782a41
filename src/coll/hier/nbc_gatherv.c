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
 * reruns with the same sizes and reuses it), then appends, at the first
 * run only, the rounds of its groups (gatherv.c's groups of members, cut
 * alike by the root): Igatherv receives group g from its members while
 * group g-1 goes to the root, Iscatterv receives group g from the root
 * while the members of group g-1 take theirs.  The members copy their
 * own blocks (hub sends, src/p2p).  The
 * other choice, the root sending each leader its node's counts, would put
 * an inter-node message in front of the data (Iscatterv) or a whole
 * inter-node round (Igatherv); the blocking Gatherv probes the members'
 * messages instead, which a schedule cannot do.
 *
 * Igatherv: the root's node sends straight to the root, which receives
 * each block at its displacement; every other node's leader packs its
 * node's blocks (bytes, node order) and sends them to the root group by
 * group; the root receives a lone member's block at its displacement and
 * unpacks the larger groups.
 * Iscatterv: the mirror.  Gaps between blocks are never written.  They
 * cannot switch by size (only the root knows the sizes, and every rank
 * must choose the same schedule): hierarchical only when the plain form's
 * crossover (SMAP_COLL_HIER_GATHER_MIN, _SCATTER_MIN) is 0, "every size";
 * flat with one rank per node (nothing to aggregate) or on one node. */
#include "coll/hier/internal.h"

#include <string.h>

#include "base/tunables.h"
#include "p2p/p2p.h"

/* A leader's node off the root's: its members' block sizes (bytes, node
 * order; the leader's own first) and their offsets in the packed buffer,
 * laid out by vnode_size when the sizes have arrived; then the rounds that
 * move its groups, appended once (`built`: a persistent request reruns
 * them with the same sizes). */
struct vnode {
    int k, root, gather, built;
    const int *members;
    MPI_Count *cnt, *off, total, cap;
    char *pack;
    /* Igatherv: the leader's own block as bytes (cnt[0]), copied from the
     * user's buffer by a step built in advance */
    char *own;
    /* Iscatterv: where the leader's own block goes; a step built in
     * advance holds ut, so that the copy appended at run time may use it */
    void *ubuf;
    MPI_Count ucount;
    smap_dtype_t *ut;
};

static int vnode_size(struct smap_sched *s, struct vnode *v)
{
    v->total = 0;
    for (int j = 0; j < v->k; j++)
        v->off[j] = v->total, v->total += v->cnt[j];
    if (v->total > v->cap) {   /* (a persistent rerun: the same sizes, no growth) */
        char *p = smap_sched_tmp(s, (size_t)v->total + 1);
        if (!p)
            return smap_fail(MPI_ERR_NO_MEM, "out of memory for the node's blocks");
        v->pack = p, v->cap = v->total;
    }
    if (v->gather)
        memcpy(v->pack, v->own, (size_t)v->cnt[0]);
    return MPI_SUCCESS;
}

/* Igatherv's leader: group g's members received while group g-1 goes to
 * the root (their blocks are on their way since the first round). */
static void igv_rounds(struct smap_sched *s, struct vnode *v)
{
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int pj = 0, pe = 0;   /* the group before */
    for (int j = 0, e; j <= v->k; j = e) {
        e = j < v->k ? hier_group_end(v->cnt, v->k, j) : j + 1;
        for (int q = j > 0 ? j : 1; q < e && q < v->k; q++)
            smap_sched_recv(s, v->pack + v->off[q], v->cnt[q], byte, v->members[q]);
        if (pe > pj)
            smap_sched_send(s, v->pack + v->off[pj], hier_group_bytes(v->cnt, pj, pe), byte,
                            v->root);
        smap_sched_barrier(s);
        pj = j, pe = e < v->k ? e : v->k;
    }
}

/* Iscatterv's leader: group g received from the root while the members
 * of group g-1 receive their blocks (each copies its own: hub sends); the
 * leader's own block, in group 0, is unpacked last. */
static void isv_rounds(struct smap_sched *s, struct vnode *v)
{
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int pj = 0, pe = 0;
    for (int j = 0, e; j <= v->k; j = e) {
        e = j < v->k ? hier_group_end(v->cnt, v->k, j) : j + 1;
        if (j < v->k)
            smap_sched_recv(s, v->pack + v->off[j], hier_group_bytes(v->cnt, j, e), byte, v->root);
        for (int q = pj > 0 ? pj : 1; q < pe; q++)
            smap_sched_send_mode(s, v->pack + v->off[q], v->cnt[q], byte, v->members[q],
                                 SMAP_P2P_FROM_HUB);
        smap_sched_barrier(s);
        pj = j, pe = e < v->k ? e : v->k;
    }
    smap_sched_copy(s, v->pack, v->cnt[0], byte, v->ubuf, v->ucount, v->ut);
    smap_sched_barrier(s);
}

/* The leader's second round, once its members' sizes are in: the layout,
 * then (first run) the rounds of its groups. */
static int vnode_groups(struct smap_sched *s, void *arg)
{
    struct vnode *v = arg;
    int rc = vnode_size(s, v);
    if (rc != MPI_SUCCESS || v->built)
        return rc;
    v->built = 1;
    if (v->gather)
        igv_rounds(s, v);
    else
        isv_rounds(s, v);
    return smap_sched_failed(s) ? smap_fail(MPI_ERR_NO_MEM, "out of memory for the node's groups")
                                : MPI_SUCCESS;
}

/* The leader's state in s's scratch, its own block `bytes`; NULL when out
 * of memory. */
static struct vnode *vnode_new(struct smap_sched *s, const struct hier_imap *m, MPI_Count bytes,
                               int gather, int root)
{
    struct vnode *v = smap_sched_tmp(s, sizeof *v);
    MPI_Count *a = smap_sched_tmp(s, 2 * (size_t)m->k * sizeof *a);
    /* (Iscatterv unpacks its own block straight from pack: no staging) */
    char *own = smap_sched_tmp(s, gather ? (size_t)bytes + 1 : 1), *pack = smap_sched_tmp(s, 1);
    if (!v || !a || !own || !pack)
        return NULL;
    *v = (struct vnode){ .k = m->k, .root = root, .gather = gather, .members = m->members,
                         .cnt = a, .off = a + m->k, .pack = pack, .own = own };
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

/* The root's messages with the other nodes' leaders, group by group (the
 * leaders cut the same groups from the same sizes): a lone member's block
 * straight from (into) the user's buffer at its displacement, a larger
 * group's packed.  Igatherv: at[r] is where rank r's bytes land (NULL:
 * in place already), unpacked once everything arrived. */
struct rootg {
    const void *buf;
    struct smap_cvec counts, displs;
    smap_dtype_t *t;
    int gather;
    char **at;
};

static void root_groups(struct smap_sched *s, const struct hier_imap *m, int p, int rn,
                        struct rootg *x)
{
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int *ranks = smap_sched_tmp(s, (size_t)p * sizeof *ranks);
    MPI_Count *b = smap_sched_tmp(s, (size_t)p * sizeof *b);
    if (!ranks || !b)
        return;
    for (int y = 0; y < m->nn; y++) {
        if (y == rn)
            continue;
        int ky = hier_nb_node_ranks(m, p, y, ranks);
        for (int j = 0; j < ky; j++)
            b[j] = smap_cvec_at(x->counts, ranks[j]) * x->t->size;
        for (int j = 0, e; j < ky; j = e) {
            e = hier_group_end(b, ky, j);
            if (e == j + 1) {
                void *u = hier_at(x->buf, smap_cvec_at(x->displs, ranks[j]), x->t);
                MPI_Count n = smap_cvec_at(x->counts, ranks[j]);
                if (x->gather)
                    smap_sched_recv(s, u, n, x->t, m->leader_of[y]), x->at[ranks[j]] = NULL;
                else
                    smap_sched_send(s, u, n, x->t, m->leader_of[y]);
                continue;
            }
            char *t = smap_sched_tmp(s, (size_t)hier_group_bytes(b, j, e) + 1), *at = t;
            if (!t)
                return;
            for (int q = j; q < e; at += b[q], q++) {
                int r = ranks[q];
                if (x->gather)
                    x->at[r] = at;
                else if (b[q] > 0)
                    smap_sched_copy(s, hier_at(x->buf, smap_cvec_at(x->displs, r), x->t),
                                    smap_cvec_at(x->counts, r), x->t, at, b[q], byte);
            }
            if (x->gather)
                smap_sched_recv(s, t, hier_group_bytes(b, j, e), byte, m->leader_of[y]);
            else
                smap_sched_send(s, t, hier_group_bytes(b, j, e), byte, m->leader_of[y]);
        }
    }
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
        struct rootg g = { rbuf, rcounts, displs, rt, 1, NULL };
        if (me == root) {
            if (!(g.at = smap_sched_tmp(s, (size_t)p * sizeof *g.at)))
                return hier_launch(s, req);   /* fails: out of memory */
            root_groups(s, &m, p, rn, &g);
            if (sbuf != MPI_IN_PLACE)
                smap_sched_copy(s, sbuf, scount, st,
                                hier_at(rbuf, smap_cvec_at(displs, root), rt),
                                smap_cvec_at(rcounts, root), rt);
        }
        struct rootv x = { rbuf, rcounts, displs, rt, m.members };
        hier_nb_to_hub(s, &m, me, root, own, rootv_at, &x);
        for (int r = 0; r < p && me == root; r++) {
            MPI_Count n = smap_cvec_at(rcounts, r);
            if (m.node_of[r] != rn && g.at[r] && n > 0)
                smap_sched_copy(s, g.at[r], n * rt->size, byte,
                                hier_at(rbuf, smap_cvec_at(displs, r), rt), n, rt);
        }
        return hier_launch(s, req);
    }
    struct vnode *v = NULL;
    if (me == lead) {
        if (!(v = vnode_new(s, &m, scount * st->size, 1, root)))
            return hier_launch(s, req);
        smap_sched_copy(s, sbuf, scount, st, v->own, v->cnt[0], byte);
    }
    if (sizes_to_leader(s, &m, me, scount * st->size, v) != 0)
        return hier_launch(s, req);
    if (me != lead) {   /* the block right behind its size, copied by us */
        smap_sched_send_mode(s, sbuf, scount, st, lead, SMAP_P2P_TO_HUB);
        return hier_launch(s, req);
    }
    smap_sched_callback(s, vnode_groups, v);
    smap_sched_barrier(s);
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
            struct rootg g = { sbuf, scounts, displs, st, 0, NULL };
            root_groups(s, &m, p, rn, &g);
            if (rbuf != MPI_IN_PLACE)
                smap_sched_copy(s, hier_at(sbuf, smap_cvec_at(displs, root), st),
                                smap_cvec_at(scounts, root), st, rbuf, rcount, rt);
        }
        struct rootv x = { sbuf, scounts, displs, st, m.members };
        hier_nb_from_hub(s, &m, me, root, own, rootv_at, &x);
        return hier_launch(s, req);
    }
    struct vnode *v = NULL;
    if (me == lead && !(v = vnode_new(s, &m, rcount * rt->size, 0, root)))
        return hier_launch(s, req);
    if (sizes_to_leader(s, &m, me, rcount * rt->size, v) != 0)
        return hier_launch(s, req);
    if (me != lead) {   /* its block, once the leader has it */
        smap_sched_recv(s, rbuf, rcount, rt, lead);
        return hier_launch(s, req);
    }
    v->ubuf = rbuf, v->ucount = rcount, v->ut = rt;
    smap_sched_callback(s, vnode_groups, v);
    /* no bytes: holds rt for the copy of the leader's own block that the
     * callback appends (a persistent request may outlive the user's
     * handle) */
    smap_sched_copy(s, v->own, 0, byte, rbuf, 0, rt);
    smap_sched_barrier(s);
    return hier_launch(s, req);
}
