/* Hierarchical non-blocking Ibcast, Ireduce, Iallreduce, Ibarrier and
 * Iallgather (and their
 * persistent forms, which start the same schedule again): one schedule
 * on c (src/coll/sched) whose messages follow the hierarchy, so nothing
 * blocks at the start and no sub-communicator is needed.  The node map is
 * computed afresh from c's group (local, no communication) into the
 * schedule's scratch.
 *
 * Ibcast: the root hands the data to its node's leader; the leaders
 * broadcast along a binomial tree of nodes rooted at the root's node;
 * each leader sends to its node's members (on-node messages: single-copy
 * through SMARTMAP).  Ireduce / Iallreduce: every member sends its input
 * to its leader, which folds its node in node order; the leaders fold the
 * nodes (binomial onto node 0's leader in node order, then to the root;
 * or the recursive-doubling allreduce of reduce.c); Iallreduce's leaders
 * send the result to their members.  Rank order holds when every node has
 * one range of ranks; otherwise a non-commutative op takes the flat
 * schedule (SMAP_HIER_FLAT).  Ibarrier: members to the leader, the
 * leaders' dissemination barrier, the leader to its members.
 * Iallgather: members send their block to the leader, which puts them in
 * place, exchanges its node's blocks (packed, node order) with every other
 * leader, and sends each member the whole result.  Each inter-node
 * message is one per node pair instead of one per rank pair. */
#include "coll/hier/internal.h"

#include "base/tunables.h"
#include "boot/boot.h"

/* c's node map in s's scratch, and this rank's node members. */
struct imap {
    int nn, contiguous, *node_of, *local_of, *leader_of;
    int k, *members;   /* this rank's node, in node order (members[0]: the leader) */
};

static int imap_build(struct smap_sched *s, smap_comm_t *c, struct imap *m)
{
    size_t n = (size_t)c->size;
    int *a = smap_sched_tmp(s, 4 * n * sizeof *a);
    if (!a)
        return -1;
    m->node_of = a, m->local_of = a + n, m->leader_of = a + 2 * n, m->members = a + 3 * n;
    if (hier_map_nodes(c, m->node_of, m->local_of, m->leader_of, &m->nn, &m->contiguous) != 0)
        return -1;
    int nd = m->node_of[c->rank];
    m->k = 0;
    for (int i = 0; i < c->size; i++)
        if (m->node_of[i] == nd)
            m->members[m->k++] = i;
    return 0;
}

int smap_hier_nb_use(smap_comm_t *c)
{
    return smap_tun.coll_hier && c->size > 1 && smap_job.nnodes > 1 && smap_job.node_of;
}

/* A schedule with c's node map, or SMAP_HIER_FLAT when c is on one node
 * (*s NULL then). */
static int start_build(smap_comm_t *c, struct smap_sched **s, struct imap *m)
{
    *s = smap_sched_new(c);
    if (!*s)
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the collective's schedule");
    if (imap_build(*s, c, m) != 0) {
        smap_sched_free(*s);
        return hier_fail(MPI_ERR_NO_MEM, "out of memory for the node map");
    }
    if (m->nn < 2) {
        smap_sched_free(*s);
        *s = NULL;
        return SMAP_HIER_FLAT;
    }
    return MPI_SUCCESS;
}

int smap_hier_ibcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c,
                     MPI_Request *req)
{
    if (count == 0)   /* nothing to move: the flat (empty) schedule */
        return SMAP_HIER_FLAT;
    struct smap_sched *s;
    struct imap m;
    int rc = start_build(c, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    int me = c->rank, nd = m.node_of[me], rn = m.node_of[root], nn = m.nn;
    int lead = m.leader_of[nd], rlead = m.leader_of[rn];
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
        int vr = (nd - rn + nn) % nn, mask = 1;
        for (; mask < nn; mask <<= 1)
            if (vr & mask) {
                smap_sched_recv(s, buf, count, t, m.leader_of[(vr - mask + rn) % nn]);
                smap_sched_barrier(s);
                break;
            }
        for (mask >>= 1; mask > 0; mask >>= 1)
            if (vr + mask < nn)
                smap_sched_send(s, buf, count, t, m.leader_of[(vr + mask + rn) % nn]);
        for (int j = 1; j < m.k; j++)
            if (m.members[j] != root)
                smap_sched_send(s, buf, count, t, m.members[j]);
        smap_sched_barrier(s);
    } else if (me != root) {
        smap_sched_recv(s, buf, count, t, lead);
        smap_sched_barrier(s);
    }
    return hier_launch(s, req);
}

/* The leader's fold of its node (members' inputs in node order) into a
 * scratch it returns; other members send their input.  NULL off the
 * leader (or out of memory: the schedule then reports it). */
static void *node_fold(struct smap_sched *s, const struct imap *m, const void *in,
                       MPI_Count count, smap_dtype_t *t, MPI_Datatype type, MPI_Op op, int me)
{
    if (me != m->members[0]) {
        smap_sched_send(s, in, count, t, m->members[0]);
        return NULL;
    }
    void *slots = smap_sched_tmp_typed(s, (MPI_Count)m->k * count, t);
    if (!slots)
        return NULL;
    smap_sched_copy(s, in, count, t, slots, count, t);
    for (int j = 1; j < m->k; j++)
        smap_sched_recv(s, hier_at(slots, j * count, t), count, t, m->members[j]);
    smap_sched_barrier(s);
    /* slot k-1 = slot j op slot k-1, from j = k-2 down: in0 op .. op in(k-1) */
    void *acc = hier_at(slots, (MPI_Count)(m->k - 1) * count, t);
    for (int j = m->k - 2; j >= 0; j--)
        smap_sched_reduce(s, hier_at(slots, j * count, t), acc, count, t, type, op);
    return acc;
}

int smap_hier_ireduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                      MPI_Datatype type, MPI_Op op, int root, int all, smap_comm_t *c,
                      MPI_Request *req)
{
    if (count == 0)
        return SMAP_HIER_FLAT;
    struct smap_sched *s;
    struct imap m;
    int rc = start_build(c, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!m.contiguous && !hier_commutative(op)) {
        smap_sched_free(s);
        return SMAP_HIER_FLAT;
    }
    int me = c->rank, nd = m.node_of[me], nn = m.nn;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    void *acc = node_fold(s, &m, in, count, t, type, op, me);
    if (me == m.members[0] && acc) {
        void *tmp = smap_sched_tmp_typed(s, count, t);
        if (all) {
            hier_add_recursive_doubling(s, nn, nd, m.leader_of, acc, count, t, type, op, tmp);
            smap_sched_copy(s, acc, count, t, rbuf, count, t);
            for (int j = 1; j < m.k; j++)
                smap_sched_send(s, acc, count, t, m.members[j]);
        } else {
            /* binomial onto node 0 in node order: acc = acc op (higher nodes) */
            for (int mask = 1; mask < nn; mask <<= 1) {
                if (nd & mask) {
                    smap_sched_send(s, acc, count, t, m.leader_of[nd - mask]);
                    smap_sched_barrier(s);
                    break;
                }
                if (nd + mask < nn) {
                    smap_sched_recv(s, tmp, count, t, m.leader_of[nd + mask]);
                    smap_sched_barrier(s);
                    smap_sched_reduce(s, acc, tmp, count, t, type, op);
                    smap_sched_copy(s, tmp, count, t, acc, count, t);
                }
            }
            if (nd == 0) {
                if (root == me)
                    smap_sched_copy(s, acc, count, t, rbuf, count, t);
                else
                    smap_sched_send(s, acc, count, t, root);
            }
        }
        smap_sched_barrier(s);
    } else if (me != m.members[0]) {
        smap_sched_barrier(s);   /* the input is sent before the result arrives */
    }
    if (all && me != m.members[0])
        smap_sched_recv(s, rbuf, count, t, m.members[0]);
    if (!all && me == root && !(nd == 0 && me == m.members[0]))
        smap_sched_recv(s, rbuf, count, t, m.leader_of[0]);
    smap_sched_barrier(s);
    return hier_launch(s, req);
}

int smap_hier_ibarrier(smap_comm_t *c, MPI_Request *req)
{
    struct smap_sched *s;
    struct imap m;
    int rc = start_build(c, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int me = c->rank, nd = m.node_of[me], nn = m.nn;
    if (me != m.members[0]) {   /* arrived; then wait for the leader's release */
        smap_sched_send(s, NULL, 0, byte, m.members[0]);
        smap_sched_barrier(s);
        smap_sched_recv(s, NULL, 0, byte, m.members[0]);
        return hier_launch(s, req);
    }
    for (int j = 1; j < m.k; j++)
        smap_sched_recv(s, NULL, 0, byte, m.members[j]);
    smap_sched_barrier(s);
    /* the leaders' dissemination barrier */
    for (int d = 1; d < nn; d <<= 1) {
        smap_sched_send(s, NULL, 0, byte, m.leader_of[(nd + d) % nn]);
        smap_sched_recv(s, NULL, 0, byte, m.leader_of[(nd - d + nn) % nn]);
        smap_sched_barrier(s);
    }
    for (int j = 1; j < m.k; j++)
        smap_sched_send(s, NULL, 0, byte, m.members[j]);
    return hier_launch(s, req);
}

int smap_hier_iallgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                         MPI_Count rcount, struct smap_cvec rcounts, smap_dtype_t *rt,
                         smap_comm_t *c, MPI_Request *req)
{
    if (rcounts.p || rcount == 0)   /* v: a leader cannot send a member everything at once */
        return SMAP_HIER_FLAT;
    struct smap_sched *s;
    struct imap m;
    int rc = start_build(c, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    smap_dtype_t *byte = smap_dtype_get(MPI_BYTE);
    int me = c->rank, nd = m.node_of[me], nn = m.nn, p = c->size;
    MPI_Count blk = rcount * rt->size;
    void *mine = hier_at(rbuf, me * rcount, rt);
    if (me != m.members[0]) {
        if (sbuf == MPI_IN_PLACE)
            smap_sched_send(s, mine, rcount, rt, m.members[0]);
        else
            smap_sched_send(s, sbuf, scount, st, m.members[0]);
        smap_sched_barrier(s);
        smap_sched_recv(s, rbuf, p * rcount, rt, m.members[0]);
        return hier_launch(s, req);
    }
    /* the node's blocks into place, then packed in node order */
    if (sbuf != MPI_IN_PLACE)
        smap_sched_copy(s, sbuf, scount, st, mine, rcount, rt);
    for (int j = 1; j < m.k; j++)
        smap_sched_recv(s, hier_at(rbuf, m.members[j] * rcount, rt), rcount, rt, m.members[j]);
    smap_sched_barrier(s);
    char *pack = smap_sched_tmp(s, (size_t)(m.k * blk));
    char **in = smap_sched_tmp(s, (size_t)nn * sizeof *in);
    if (!pack || !in)
        return hier_launch(s, req);   /* fails: out of memory */
    for (int j = 0; j < m.k; j++)
        smap_sched_copy(s, hier_at(rbuf, m.members[j] * rcount, rt), rcount, rt, pack + j * blk,
                        blk, byte);
    /* every leader sends its node's blocks to every other one */
    for (int x = 0; x < nn; x++) {
        if (x == nd)
            continue;
        int kx = 0;
        for (int r = 0; r < p; r++)
            kx += m.node_of[r] == x;
        in[x] = smap_sched_tmp(s, (size_t)(kx * blk) + 1);
        if (!in[x])
            return hier_launch(s, req);
        smap_sched_send(s, pack, m.k * blk, byte, m.leader_of[x]);
        smap_sched_recv(s, in[x], kx * blk, byte, m.leader_of[x]);
    }
    smap_sched_barrier(s);
    for (int r = 0; r < p; r++) {   /* (each node's blocks in rank order) */
        int x = m.node_of[r];
        if (x != nd) {
            smap_sched_copy(s, in[x], blk, byte, hier_at(rbuf, r * rcount, rt), rcount, rt);
            in[x] += blk;
        }
    }
    smap_sched_barrier(s);
    for (int j = 1; j < m.k; j++)
        smap_sched_send(s, rbuf, p * rcount, rt, m.members[j]);
    return hier_launch(s, req);
}
