/* The node-aware schedules of the non-blocking (and persistent, which
 * start the same schedule again) collectives of a communicator spanning
 * nodes: one schedule on c (src/coll/sched) whose messages follow the
 * hierarchy, so nothing blocks at the start and no sub-communicator is
 * needed.  The node map is computed afresh from c's group (local, no
 * communication) into the schedule's scratch.  This file: the node map,
 * the two node phases every one of them is made of (node gather to a hub
 * -- the leader, or a rooted collective's root on its node -- and release
 * from it), Ibcast and Ibarrier.  nbc_reduce.c: Ireduce, Iallreduce,
 * Ireduce_scatter(_block), Iscan, Iexscan; nbc_gather.c: Iallgather(v),
 * Igather, Iscatter; nbc_gatherv.c: Igatherv, Iscatterv.
 *
 * Ibcast: the root hands the data to its node's leader; the leaders
 * broadcast along a binomial tree of nodes rooted at the root's node;
 * each leader sends to its node's members (on-node messages: single-copy
 * through SMARTMAP).  From SMAP_COLL_HIER_BCAST_RAILS_MIN on rails
 * (ibcast_rails: every member of a node carries a piece).  Ibarrier: node
 * gather to the leader (empty messages), the leaders' dissemination
 * barrier, release from the leader.  Each inter-node message is one per
 * node pair instead of one per rank pair. */
#include "coll/hier/internal.h"

#include "base/tunables.h"
#include "boot/boot.h"

static int imap_build(struct smap_sched *s, smap_comm_t *c, struct hier_imap *m)
{
    size_t n = (size_t)c->size;
    int *a = smap_sched_tmp(s, 4 * n * sizeof *a);
    if (!a)
        return -1;
    m->node_of = a, m->local_of = a + n, m->leader_of = a + 2 * n, m->members = a + 3 * n;
    if (hier_map_nodes(c, m->node_of, m->local_of, m->leader_of, &m->nn, &m->contiguous) != 0)
        return -1;
    m->k = hier_nb_node_ranks(m, c->size, m->node_of[c->rank], m->members);
    return 0;
}

int hier_nb_node_ranks(const struct hier_imap *m, int p, int x, int *out)
{
    int k = 0;
    for (int i = 0; i < p; i++)
        if (m->node_of[i] == x) {
            if (out)
                out[k] = i;
            k++;
        }
    return k;
}

int smap_hier_nb_use(smap_comm_t *c)
{
    return smap_tun.coll_hier && c->size > 1 && smap_job.nnodes > 1 && smap_job.node_of &&
           !smap_comm_group_foreign(c->group);
}

int hier_nb_start(smap_comm_t *c, struct smap_sched **s, struct hier_imap *m)
{
    *s = smap_sched_new(c);
    if (!*s)
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the collective's schedule");
    if (imap_build(*s, c, m) != 0) {
        smap_sched_free(*s);
        *s = NULL;
        return smap_fail(MPI_ERR_NO_MEM, "out of memory for the node map");
    }
    if (m->nn < 2) {
        smap_sched_free(*s);
        *s = NULL;
        return SMAP_HIER_FLAT;
    }
    return MPI_SUCCESS;
}

void hier_nb_to_hub_range(struct smap_sched *s, const struct hier_imap *m, int me, int hub,
                          struct hier_blk mine, hier_slot_fn *slot, void *arg, int lo, int hi)
{
    if (me != hub) {
        if (m->local_of[me] >= lo && m->local_of[me] < hi)
            smap_sched_send(s, mine.buf, mine.count, mine.t, hub);
    } else {
        for (int j = lo; j < hi && j < m->k; j++)
            if (m->members[j] != hub) {
                struct hier_blk b = slot(j, arg);
                smap_sched_recv(s, (void *)b.buf, b.count, b.t, m->members[j]);
            }
    }
    smap_sched_barrier(s);
}

void hier_nb_from_hub_range(struct smap_sched *s, const struct hier_imap *m, int me, int hub,
                            struct hier_blk mine, hier_slot_fn *slot, void *arg, int lo, int hi)
{
    if (me != hub) {
        if (m->local_of[me] >= lo && m->local_of[me] < hi)
            smap_sched_recv(s, (void *)mine.buf, mine.count, mine.t, hub);
    } else {
        for (int j = lo; j < hi && j < m->k; j++)
            if (m->members[j] != hub) {
                struct hier_blk b = slot(j, arg);
                smap_sched_send(s, b.buf, b.count, b.t, m->members[j]);
            }
    }
    smap_sched_barrier(s);
}

void hier_nb_to_hub(struct smap_sched *s, const struct hier_imap *m, int me, int hub,
                    struct hier_blk mine, hier_slot_fn *slot, void *arg)
{
    hier_nb_to_hub_range(s, m, me, hub, mine, slot, arg, 0, m->k);
}

void hier_nb_from_hub(struct smap_sched *s, const struct hier_imap *m, int me, int hub,
                      struct hier_blk mine, hier_slot_fn *slot, void *arg)
{
    hier_nb_from_hub_range(s, m, me, hub, mine, slot, arg, 0, m->k);
}

/* At most this many lanes: larger messages take larger chunks (every
 * lane is a schedule and a sequence number). */
#define HIER_MAX_LANES 64

int hier_nb_chunked(struct smap_sched *s, const struct hier_imap *m, MPI_Count count,
                    smap_dtype_t *t, hier_lane_fn *build, void *arg, MPI_Request *req)
{
    return hier_nb_chunked_n(s, m, count, hier_chunk(t), build, arg, req);
}

int hier_nb_chunked_n(struct smap_sched *s, const struct hier_imap *m, MPI_Count count,
                      MPI_Count ce, hier_lane_fn *build, void *arg, MPI_Request *req)
{
    MPI_Count n = (count + ce - 1) / ce;
    if (n > HIER_MAX_LANES) {
        ce = (count + HIER_MAX_LANES - 1) / HIER_MAX_LANES;
        n = (count + ce - 1) / ce;
    }
    if (n <= 1) {
        build(s, m, 0, count, arg);
        return hier_launch(s, req);
    }
    struct smap_sched **lanes = smap_sched_tmp(s, (size_t)n * sizeof *lanes);
    if (!lanes)
        return hier_launch(s, req);   /* fails: out of memory */
    for (MPI_Count k = 0; k < n; k++) {
        MPI_Count start = k * ce, len = count - start < ce ? count - start : ce;
        lanes[k] = smap_sched_new(smap_sched_comm(s));
        if (lanes[k])
            build(lanes[k], m, start, len, arg);
    }
    (void)smap_sched_lanes(s, lanes, (int)n);
    return hier_launch(s, req);
}

/* Rank of member q (node order) of node x; -1 when x has fewer. */
static int nb_member(const struct hier_imap *m, int p, int x, int q)
{
    for (int i = 0; i < p; i++)
        if (m->node_of[i] == x && m->local_of[i] == q)
            return i;
    return -1;
}

/* Ibcast on rails (rails.c's scheme as one schedule): piece q of P (P the
 * smallest node's members) goes from the root to its node's member q,
 * down a binomial tree of nodes among the members q, and from each member
 * q to the rest of its node (never back to the root).  A member q first
 * receives its own piece (alone in a round: from the root it precedes the
 * root's share, so the two messages match in order), then forwards it and
 * receives the others. */
static void ibcast_rails(struct smap_sched *s, const struct hier_imap *m, smap_comm_t *c,
                         void *buf, MPI_Count count, smap_dtype_t *t, int root)
{
    int p = c->size, me = c->rank, nn = m->nn, nd = m->node_of[me], rn = m->node_of[root];
    int j = m->local_of[me], P = p;
    for (int x = 0; x < nn; x++) {
        int kx = hier_nb_node_ranks(m, p, x, NULL);
        P = kx < P ? kx : P;
    }
#define PIECE(q) hier_at(buf, hier_piece_lo(count, (q), P), t), \
                 hier_piece_lo(count, (q) + 1, P) - hier_piece_lo(count, (q), P), t
    if (me == root)
        for (int q = 0; q < P; q++)
            if (m->members[q] != root)
                smap_sched_send(s, PIECE(q), m->members[q]);
    int vr = (nd - rn + nn) % nn, mask = hier_tree_mask(vr, nn);
    if (j < P && me != root) {   /* my own piece first */
        smap_sched_recv(s, PIECE(j), vr ? nb_member(m, p, (vr - mask + rn) % nn, j) : root);
        smap_sched_barrier(s);
    }
    if (j < P) {   /* forward it: down the tree, then to the node */
        for (mask >>= 1; mask > 0; mask >>= 1)
            if (vr + mask < nn)
                smap_sched_send(s, PIECE(j), nb_member(m, p, (vr + mask + rn) % nn, j));
        for (int i = 0; i < m->k; i++)
            if (i != j && m->members[i] != root)
                smap_sched_send(s, PIECE(j), m->members[i]);
    }
    if (me != root)
        for (int q = 0; q < P; q++)
            if (q != j)
                smap_sched_recv(s, PIECE(q), m->members[q]);
#undef PIECE
    smap_sched_barrier(s);
}

/* Ibcast of one chunk [start, start+len) (a lane, or the whole message). */
struct ibcast {
    smap_comm_t *c;
    void *buf;
    smap_dtype_t *t;
    int root, rails;
};

static void ibcast_build(struct smap_sched *s, const struct hier_imap *m, MPI_Count start,
                         MPI_Count count, void *arg)
{
    const struct ibcast *a = arg;
    smap_comm_t *c = a->c;
    smap_dtype_t *t = a->t;
    void *buf = hier_at(a->buf, start, t);
    int root = a->root;
    if (a->rails) {
        ibcast_rails(s, m, c, buf, count, t, root);
        return;
    }
    int me = c->rank, nd = m->node_of[me], rn = m->node_of[root], nn = m->nn;
    int lead = m->leader_of[nd], rlead = m->leader_of[rn];
    if (me == root && root != rlead) {
        smap_sched_send(s, buf, count, t, rlead);
        smap_sched_barrier(s);
    }
    if (me == lead) {
        if (nd == rn && root != lead) {
            smap_sched_recv(s, buf, count, t, root);
            smap_sched_barrier(s);
        }
        /* binomial over nodes, node indices relative to the root's */
        int vr = (nd - rn + nn) % nn, mask = hier_tree_mask(vr, nn);
        if (vr) {
            smap_sched_recv(s, buf, count, t, m->leader_of[(vr - mask + rn) % nn]);
            smap_sched_barrier(s);
        }
        for (mask >>= 1; mask > 0; mask >>= 1)
            if (vr + mask < nn)
                smap_sched_send(s, buf, count, t, m->leader_of[(vr + mask + rn) % nn]);
        for (int j = 1; j < m->k; j++)
            if (m->members[j] != root)
                smap_sched_send(s, buf, count, t, m->members[j]);
        smap_sched_barrier(s);
    } else if (me != root) {
        smap_sched_recv(s, buf, count, t, lead);
        smap_sched_barrier(s);
    }
}

int smap_hier_ibcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c,
                     MPI_Request *req)
{
    if (count == 0)   /* nothing to move: the flat (empty) schedule */
        return SMAP_HIER_FLAT;
    struct smap_sched *s;
    struct hier_imap m;
    int rc = hier_nb_start(c, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    struct ibcast *a = smap_sched_tmp(s, sizeof *a);
    if (!a)
        return hier_launch(s, req);   /* fails: out of memory */
    *a = (struct ibcast){ c, buf, t, root,
                          (uint64_t)(count * t->size) >= smap_tun.coll_hier_bcast_rails_min };
    return hier_nb_chunked(s, &m, count, t, ibcast_build, a, req);
}

/* (Ibarrier's blocks: empty) */
static struct hier_blk no_blk(int j, void *arg)
{
    (void)j, (void)arg;
    return (struct hier_blk){ NULL, 0, smap_dtype_get(MPI_BYTE) };
}

int smap_hier_ibarrier(smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s;
    struct hier_imap m;
    int rc = hier_nb_start(c, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int me = c->rank, nd = m.node_of[me], nn = m.nn, lead = m.members[0];
    struct hier_blk none = no_blk(0, NULL);
    hier_nb_to_hub(s, &m, me, lead, none, no_blk, NULL);   /* arrived */
    if (me == lead)   /* the leaders' dissemination barrier */
        for (int d = 1; d < nn; d <<= 1) {
            smap_sched_send(s, NULL, 0, byte, m.leader_of[(nd + d) % nn]);
            smap_sched_recv(s, NULL, 0, byte, m.leader_of[(nd - d + nn) % nn]);
            smap_sched_barrier(s);
        }
    hier_nb_from_hub(s, &m, me, lead, none, no_blk, NULL);   /* released */
    return hier_launch(s, req);
}
