/* The node-aware schedules of the data-moving non-blocking collectives
 * (see nbc.c): Iallgather, Iallgatherv, Igather, Iscatter (plain forms).
 *
 * Iallgather(v): node gather of the blocks to the leader, which exchanges
 * its node's blocks (packed, node order) with every other leader in one
 * round and releases the whole result to each member; from
 * SMAP_COLL_HIER_ALLGATHER_RAILS_MIN on rails (allgather.c).  Igather: the
 * root's node gathers straight into the root's buffer (the root is the
 * hub); every other node gathers its blocks packed (bytes, node order) on
 * its leader, which sends them to the root in one message.  Iscatter: the
 * mirror.  Large Igather and Iscatter run in lanes of members (as the
 * blocking forms' pipeline: chunk k crosses between a leader and the root
 * while the node gathers chunk k+1 or scatters chunk k-1).  Igatherv and Iscatterv: nbc_gatherv.c (the leaders learn
 * their members' block sizes while the schedule runs). */
#include "coll/hier/internal.h"

#include "base/tunables.h"

/* ---- allgather ----------------------------------------------------------- */

struct ag {
    void *rbuf;
    MPI_Count rcount;
    smap_dtype_t *rt;
    const int *members;
    int p;
};

static struct hier_blk ag_place(int j, void *arg)
{
    struct ag *x = arg;
    return (struct hier_blk){ hier_at(x->rbuf, x->members[j] * x->rcount, x->rt), x->rcount,
                              x->rt };
}

static struct hier_blk ag_all(int j, void *arg)
{
    (void)j;
    struct ag *x = arg;
    return (struct hier_blk){ x->rbuf, x->p * x->rcount, x->rt };
}

/* The plain form: the blocks land in place at the leader, which sends
 * each member the whole receive buffer (no unpacking on the members). */
static int iallgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                      MPI_Count rcount, smap_dtype_t *rt, smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s;
    struct hier_imap m;
    int rc = hier_nb_start(c, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int me = c->rank, nd = m.node_of[me], nn = m.nn, p = c->size, lead = m.members[0];
    MPI_Count blk = rcount * rt->size;
    void *mine = hier_at(rbuf, me * rcount, rt);
    struct ag x = { rbuf, rcount, rt, m.members, p };
    struct hier_blk own = sbuf == MPI_IN_PLACE ? (struct hier_blk){ mine, rcount, rt }
                                               : (struct hier_blk){ sbuf, scount, st };
    if (me == lead && sbuf != MPI_IN_PLACE)
        smap_sched_copy(s, sbuf, scount, st, mine, rcount, rt);
    hier_nb_to_hub(s, &m, me, lead, own, ag_place, &x);
    if (me == lead) {
        /* the node's blocks packed in node order, sent to every other leader */
        char *pack = smap_sched_tmp(s, (size_t)(m.k * blk) + 1);
        char **in = smap_sched_tmp(s, (size_t)nn * sizeof *in);
        if (!pack || !in)
            return hier_launch(s, req);   /* fails: out of memory */
        for (int j = 0; j < m.k; j++)
            smap_sched_copy(s, hier_at(rbuf, m.members[j] * rcount, rt), rcount, rt,
                            pack + j * blk, blk, byte);
        for (int y = 0; y < nn; y++) {
            if (y == nd)
                continue;
            int ky = hier_nb_node_ranks(&m, p, y, NULL);
            in[y] = smap_sched_tmp(s, (size_t)(ky * blk) + 1);
            if (!in[y])
                return hier_launch(s, req);
            smap_sched_send(s, pack, m.k * blk, byte, m.leader_of[y]);
            smap_sched_recv(s, in[y], ky * blk, byte, m.leader_of[y]);
        }
        smap_sched_barrier(s);
        for (int r = 0; r < p; r++) {   /* (each node's blocks in rank order) */
            int y = m.node_of[r];
            if (y != nd) {
                smap_sched_copy(s, in[y], blk, byte, hier_at(rbuf, r * rcount, rt), rcount, rt);
                in[y] += blk;
            }
        }
        smap_sched_barrier(s);
    }
    hier_nb_from_hub(s, &m, me, lead, ag_all(0, &x), ag_all, &x);
    return hier_launch(s, req);
}

/* The v form: every rank knows every count, but a member's blocks need
 * not be adjacent, so the blocks travel as bytes in one node-major buffer
 * (node after node, each node's blocks in node order: a node's part is
 * one range) that every rank unpacks at the displacements.  Gaps between
 * blocks are never written. */
struct agv {
    char *all;
    const MPI_Count *off, *len;   /* by rank: offset and bytes in `all` */
    const int *members;
    MPI_Count total;
};

static struct hier_blk agv_place(int j, void *arg)
{
    struct agv *x = arg;
    int r = x->members[j];
    return (struct hier_blk){ x->all + x->off[r], x->len[r], smap_dtype_get(MPI_BYTE) };
}

static struct hier_blk agv_all(int j, void *arg)
{
    (void)j;
    struct agv *x = arg;
    return (struct hier_blk){ x->all, x->total, smap_dtype_get(MPI_BYTE) };
}

static int iallgatherv(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                       struct smap_cvec rcounts, struct smap_cvec displs, smap_dtype_t *rt,
                       smap_comm_t *c, MPI_Request *req)
{
    int p = c->size, me = c->rank;
    MPI_Count total = 0;
    for (int r = 0; r < p; r++)
        total += smap_cvec_at(rcounts, r) * rt->size;
    if (total == 0)
        return SMAP_HIER_FLAT;   /* nothing moves */
    struct smap_sched *s;
    struct hier_imap m;
    int rc = hier_nb_start(c, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int nd = m.node_of[me], nn = m.nn, lead = m.members[0];
    /* off, len by rank; noff, ntot by node */
    MPI_Count *off = smap_sched_tmp(s, (2 * (size_t)p + 2 * (size_t)nn) * sizeof *off);
    char *all = smap_sched_tmp(s, (size_t)total);
    if (!off || !all)
        return hier_launch(s, req);   /* fails: out of memory */
    MPI_Count *len = off + p, *noff = len + p, *ntot = noff + nn;
    for (int y = 0; y < nn; y++)
        ntot[y] = 0;
    for (int r = 0; r < p; r++)
        len[r] = smap_cvec_at(rcounts, r) * rt->size, ntot[m.node_of[r]] += len[r];
    MPI_Count at = 0;
    for (int y = 0; y < nn; y++)
        noff[y] = at, at += ntot[y];
    for (int r = 0; r < p; r++)   /* (rank order is node order within a node) */
        off[r] = noff[m.node_of[r]], noff[m.node_of[r]] += len[r];
    at = 0;
    for (int y = 0; y < nn; y++)
        noff[y] = at, at += ntot[y];
    struct agv x = { all, off, len, m.members, total };
    void *mine = hier_at(rbuf, smap_cvec_at(displs, me), rt);
    MPI_Count mcount = smap_cvec_at(rcounts, me);
    struct hier_blk own = sbuf == MPI_IN_PLACE ? (struct hier_blk){ mine, mcount, rt }
                                               : (struct hier_blk){ sbuf, scount, st };
    if (me == lead)
        smap_sched_copy(s, own.buf, own.count, own.t, all + off[me], len[me], byte);
    hier_nb_to_hub(s, &m, me, lead, own, agv_place, &x);
    if (me == lead) {
        for (int y = 0; y < nn; y++)
            if (y != nd) {
                smap_sched_send(s, all + noff[nd], ntot[nd], byte, m.leader_of[y]);
                smap_sched_recv(s, all + noff[y], ntot[y], byte, m.leader_of[y]);
            }
        smap_sched_barrier(s);
    }
    hier_nb_from_hub(s, &m, me, lead, agv_all(0, &x), agv_all, &x);
    for (int r = 0; r < p; r++)
        if (len[r] > 0 && !(r == me && sbuf == MPI_IN_PLACE))
            smap_sched_copy(s, all + off[r], len[r], byte,
                            hier_at(rbuf, smap_cvec_at(displs, r), rt), smap_cvec_at(rcounts, r),
                            rt);
    return hier_launch(s, req);
}

int smap_hier_iallgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                         MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                         smap_dtype_t *rt, smap_comm_t *c, MPI_Request *req)
{
    MPI_Count total = 0;
    for (int r = 0; r < c->size; r++)
        total += rcounts.p ? smap_cvec_at(rcounts, r) : rcount;
    if (total > 0 && hier_allgather_rails(total, rt))
        return hier_iallgather_rails(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, c, req);
    if (rcounts.p)
        return iallgatherv(sbuf, scount, st, rbuf, rcounts, displs, rt, c, req);
    if (rcount == 0)
        return SMAP_HIER_FLAT;
    return iallgather(sbuf, scount, st, rbuf, rcount, rt, c, req);
}

/* ---- gather, scatter -------------------------------------------------- */

/* A node's blocks at its hub: in the root's buffer (the root's node: the
 * root's layout) or packed bytes in node order from member `first` on
 * (the other nodes: the chunk's). */
struct rooted {
    const void *buf;
    MPI_Count count;   /* per block, of t */
    smap_dtype_t *t;
    const int *members;
    int packed, first;
};

static struct hier_blk rooted_at(int j, void *arg)
{
    struct rooted *x = arg;
    if (x->packed)
        return (struct hier_blk){ (const char *)x->buf + (j - x->first) * x->count, x->count,
                                  smap_dtype_get(MPI_BYTE) };
    return (struct hier_blk){ hier_at(x->buf, x->members[j] * x->count, x->t), x->count, x->t };
}

/* Which rooted form runs hierarchically: a block of at least the
 * crossover (the blocking forms' tunables) on a communicator whose nodes
 * hold more than one rank.  SMAP_HIER_FLAT or MPI_SUCCESS (*s built). */
static int rooted_start(smap_comm_t *c, MPI_Count blk, uint64_t min, struct smap_sched **s,
                        struct hier_imap *m)
{
    if (blk == 0 || (uint64_t)blk < min)
        return SMAP_HIER_FLAT;   /* small: the flat senders run ahead of the root */
    int rc = hier_nb_start(c, s, m);
    if (rc == MPI_SUCCESS && m->nn == c->size) {   /* one rank per node: nothing to aggregate */
        smap_sched_free(*s);
        return SMAP_HIER_FLAT;
    }
    return rc;
}

/* One chunk of Igather or Iscatter: the members [lo, lo+len) (node order)
 * of every node; a lane, or the whole call.  Lanes: chunk k crosses
 * between its leader and the root while the node gathers chunk k+1
 * (scatters chunk k-1). */
struct irooted {
    smap_comm_t *c;
    const void *sbuf;
    MPI_Count scount;
    smap_dtype_t *st;
    void *rbuf;
    MPI_Count rcount;
    smap_dtype_t *rt;
    int root;
    MPI_Count blk;
};

/* Members of node y in the chunk [lo, lo+len). */
static int in_chunk(const struct hier_imap *m, int p, int y, MPI_Count lo, MPI_Count len)
{
    MPI_Count ky = hier_nb_node_ranks(m, p, y, NULL), end = lo + len < ky ? lo + len : ky;
    return end > lo ? (int)(end - lo) : 0;
}

static void igather_build(struct smap_sched *s, const struct hier_imap *m, MPI_Count lo,
                          MPI_Count len, void *arg)
{
    const struct irooted *a = arg;
    smap_comm_t *c = a->c;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE), *rt = a->rt;
    int me = c->rank, p = c->size, root = a->root, nd = m->node_of[me], rn = m->node_of[root];
    int lead = m->members[0], hi = (int)(lo + len);
    MPI_Count blk = a->blk, rcount = a->rcount;
    struct hier_blk own = { a->sbuf, a->scount, a->st };
    if (nd == rn) {   /* straight into the root's buffer */
        char **in = NULL;
        int *ranks = NULL;
        if (me == root) {
            in = smap_sched_tmp(s, (size_t)m->nn * sizeof *in);
            ranks = smap_sched_tmp(s, (size_t)p * sizeof *ranks);
            if (!in || !ranks)
                return;
            for (int y = 0; y < m->nn; y++) {
                int n = in_chunk(m, p, y, lo, len);
                if (y == rn || n == 0)
                    continue;
                in[y] = smap_sched_tmp(s, (size_t)(n * blk));
                if (!in[y])
                    return;
                smap_sched_recv(s, in[y], n * blk, byte, m->leader_of[y]);
            }
            int j = m->local_of[root];
            if (a->sbuf != MPI_IN_PLACE && j >= lo && j < hi)
                smap_sched_copy(s, a->sbuf, a->scount, a->st, hier_at(a->rbuf, root * rcount, rt),
                                rcount, rt);
        }
        struct rooted x = { a->rbuf, rcount, rt, m->members, 0, 0 };
        hier_nb_to_hub_range(s, m, me, root, own, rooted_at, &x, (int)lo, hi);
        for (int y = 0; y < m->nn && me == root; y++) {   /* unpacked once all arrived */
            int n = in_chunk(m, p, y, lo, len);
            if (y == rn || n == 0)
                continue;
            hier_nb_node_ranks(m, p, y, ranks);
            for (int j = 0; j < n; j++)
                smap_sched_copy(s, in[y] + j * blk, blk, byte,
                                hier_at(a->rbuf, ranks[lo + j] * rcount, rt), rcount, rt);
        }
        return;
    }
    int n = in_chunk(m, p, nd, lo, len);
    if (n == 0)
        return;
    char *pack = me == lead ? smap_sched_tmp(s, (size_t)(n * blk)) : NULL;
    if (me == lead) {
        if (!pack)
            return;
        if (lo == 0)
            smap_sched_copy(s, a->sbuf, a->scount, a->st, pack, blk, byte);
    }
    struct rooted x = { pack, blk, byte, m->members, 1, (int)lo };
    hier_nb_to_hub_range(s, m, me, lead, own, rooted_at, &x, (int)lo, hi);
    if (me == lead)
        smap_sched_send(s, pack, n * blk, byte, root);
}

/* Igather and Iscatter run in lanes of whole blocks, as many members'
 * blocks per lane as fit in SMAP_COLL_HIER_CHUNK (at least one), over the
 * largest node's members: every rank builds the same lanes. */
static int irooted_run(struct smap_sched *s, const struct hier_imap *m, struct irooted *a,
                       hier_lane_fn *build, MPI_Request *req)
{
    int most = 0;
    for (int y = 0; y < m->nn; y++) {
        int ky = hier_nb_node_ranks(m, a->c->size, y, NULL);
        most = ky > most ? ky : most;
    }
    MPI_Count g = (MPI_Count)smap_tun.coll_hier_chunk / a->blk;
    return hier_nb_chunked_n(s, m, most, g > 0 ? g : 1, build, a, req);
}

static void iscatter_build(struct smap_sched *s, const struct hier_imap *m, MPI_Count lo,
                           MPI_Count len, void *arg)
{
    const struct irooted *a = arg;
    smap_comm_t *c = a->c;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE), *st = a->st;
    int me = c->rank, p = c->size, root = a->root, nd = m->node_of[me], rn = m->node_of[root];
    int lead = m->members[0], hi = (int)(lo + len);
    MPI_Count blk = a->blk, scount = a->scount;
    struct hier_blk own = { a->rbuf, a->rcount, a->rt };
    if (nd == rn) {   /* straight from the root's buffer */
        if (me == root) {
            int *ranks = smap_sched_tmp(s, (size_t)p * sizeof *ranks);
            if (!ranks)
                return;
            for (int y = 0; y < m->nn; y++) {   /* the chunk of each other node, packed */
                int n = in_chunk(m, p, y, lo, len);
                if (y == rn || n == 0)
                    continue;
                hier_nb_node_ranks(m, p, y, ranks);
                char *pack = smap_sched_tmp(s, (size_t)(n * blk));
                if (!pack)
                    return;
                for (int j = 0; j < n; j++)
                    smap_sched_copy(s, hier_at(a->sbuf, ranks[lo + j] * scount, st), scount, st,
                                    pack + j * blk, blk, byte);
                smap_sched_send(s, pack, n * blk, byte, m->leader_of[y]);
            }
            int j = m->local_of[root];
            if (a->rbuf != MPI_IN_PLACE && j >= lo && j < hi)
                smap_sched_copy(s, hier_at(a->sbuf, root * scount, st), scount, st, a->rbuf,
                                a->rcount, a->rt);
        }
        struct rooted x = { a->sbuf, scount, st, m->members, 0, 0 };
        hier_nb_from_hub_range(s, m, me, root, own, rooted_at, &x, (int)lo, hi);
        return;
    }
    int n = in_chunk(m, p, nd, lo, len);
    if (n == 0)
        return;
    char *pack = me == lead ? smap_sched_tmp(s, (size_t)(n * blk)) : NULL;
    if (me == lead) {
        if (!pack)
            return;
        smap_sched_recv(s, pack, n * blk, byte, root);
        smap_sched_barrier(s);
        if (lo == 0)
            smap_sched_copy(s, pack, blk, byte, a->rbuf, a->rcount, a->rt);
    }
    struct rooted x = { pack, blk, byte, m->members, 1, (int)lo };
    hier_nb_from_hub_range(s, m, me, lead, own, rooted_at, &x, (int)lo, hi);
}

/* Igather (gather) or Iscatter: the block each rank knows, the crossover
 * of its form, then the lanes. */
static int irooted(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                   MPI_Count rcount, smap_dtype_t *rt, int root, smap_comm_t *c, int gather,
                   MPI_Request *req)
{
    int me = c->rank;
    MPI_Count blk = (me == root) == gather ? rcount * rt->size : scount * st->size;
    struct smap_sched *s;
    struct hier_imap m;
    int rc = rooted_start(c, blk,
                          gather ? smap_tun.coll_hier_gather_min : smap_tun.coll_hier_scatter_min,
                          &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    struct irooted a = { c, sbuf, scount, st, rbuf, rcount, rt, root, blk };
    return irooted_run(s, &m, &a, gather ? igather_build : iscatter_build, req);
}

int smap_hier_igather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                      MPI_Count rcount, smap_dtype_t *rt, int root, smap_comm_t *c,
                      MPI_Request *req)
{
    return irooted(sbuf, scount, st, rbuf, rcount, rt, root, c, 1, req);
}

int smap_hier_iscatter(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                       MPI_Count rcount, smap_dtype_t *rt, int root, smap_comm_t *c,
                       MPI_Request *req)
{
    return irooted(sbuf, scount, st, rbuf, rcount, rt, root, c, 0, req);
}
