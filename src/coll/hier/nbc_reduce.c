/* The node-aware schedules of the reducing non-blocking collectives (see
 * nbc.c): Ireduce, Iallreduce, Ireduce_scatter(_block), Iscan, Iexscan.
 * Each starts with a node gather of the inputs to the leader, which folds
 * its node in node order; the leaders combine the nodes; the leader
 * releases each member's result.  Rank order holds when every node holds
 * one range of ranks; otherwise a non-commutative op (Iscan and Iexscan:
 * any op, the ranks below r are not whole nodes) takes the flat schedule
 * (SMAP_HIER_FLAT). */
#include "coll/hier/internal.h"

#include "base/tunables.h"

/* The leader's scratch of k slots of count elements (member j's input in
 * slot j), for the node gather. */
struct slots {
    void *base;
    MPI_Count count;
    smap_dtype_t *t;
};

static struct hier_blk slot_at(int j, void *arg)
{
    struct slots *x = arg;
    return (struct hier_blk){ hier_at(x->base, j * x->count, x->t), x->count, x->t };
}

/* Node gather of the inputs: the leader's k slots (its own input in slot
 * 0) into *sl; members send `in`.  0, or -1 out of memory (the schedule
 * reports it). */
static int gather_inputs(struct smap_sched *s, const struct hier_imap *m, int me, const void *in,
                         MPI_Count count, smap_dtype_t *t, struct slots *sl)
{
    *sl = (struct slots){ NULL, count, t };
    if (me == m->members[0]) {
        sl->base = smap_sched_tmp_typed(s, (MPI_Count)m->k * count, t);
        if (!sl->base)
            return -1;
        smap_sched_copy(s, in, count, t, sl->base, count, t);
    }
    hier_nb_to_hub(s, m, me, m->members[0], (struct hier_blk){ in, count, t }, slot_at, sl);
    return 0;
}

/* hier_nb_start, except that a non-commutative op over ranks that do not
 * sit in one range per node takes the flat schedule (SMAP_HIER_FLAT): the
 * node folds would combine them out of rank order. */
static int reduce_start(smap_comm_t *c, MPI_Op op, struct smap_sched **s, struct hier_imap *m)
{
    int rc = hier_nb_start(c, s, m);
    if (rc == MPI_SUCCESS && !m->contiguous && !hier_commutative(op)) {
        smap_sched_free(*s);
        return SMAP_HIER_FLAT;
    }
    return rc;
}

/* The leader's fold of its node (inputs in node order) into a scratch it
 * returns; NULL off the leader (or out of memory: the schedule then
 * reports it). */
static void *node_fold(struct smap_sched *s, const struct hier_imap *m, const void *in,
                       MPI_Count count, smap_dtype_t *t, MPI_Datatype type, MPI_Op op, int me)
{
    struct slots sl;
    if (gather_inputs(s, m, me, in, count, t, &sl) != 0 || me != m->members[0])
        return NULL;
    /* slot k-1 = slot j op slot k-1, from j = k-2 down: in0 op .. op in(k-1) */
    void *acc = hier_at(sl.base, (MPI_Count)(m->k - 1) * count, t);
    for (int j = m->k - 2; j >= 0; j--)
        smap_sched_reduce(s, hier_at(sl.base, j * count, t), acc, count, t, type, op);
    return acc;
}

/* (a member's whole result, the same buffer for all) */
static struct hier_blk whole(int j, void *arg)
{
    (void)j;
    return *(struct hier_blk *)arg;
}

/* The arguments of Ireduce / Iallreduce / Iscan / Iexscan for their
 * per-chunk builders (a lane, or the whole vector): `in` (MPI_IN_PLACE
 * resolved) and rbuf at element 0 of the vector. */
struct ivec {
    const void *in;
    void *rbuf;
    smap_dtype_t *t;
    MPI_Datatype type;
    MPI_Op op;
    int root, all, exclusive, me;
};

static void ireduce_build(struct smap_sched *s, const struct hier_imap *m, MPI_Count start,
                          MPI_Count count, void *arg)
{
    const struct ivec *a = arg;
    smap_dtype_t *t = a->t;
    MPI_Datatype type = a->type;
    MPI_Op op = a->op;
    int me = a->me, root = a->root, nd = m->node_of[me], nn = m->nn, lead = m->members[0];
    const void *in = hier_at(a->in, start, t);
    void *rbuf = hier_at(a->rbuf, start, t);
    void *acc = node_fold(s, m, in, count, t, type, op, me);
    if (me == lead && acc) {
        void *tmp = smap_sched_tmp_typed(s, count, t);
        if (a->all) {
            hier_add_lead_allreduce(s, nn, nd, m->leader_of, acc, count, t, type, op, tmp);
            smap_sched_copy(s, acc, count, t, rbuf, count, t);
        } else {
            /* binomial onto node 0 in node order: acc = acc op (higher nodes) */
            for (int mask = 1; mask < nn; mask <<= 1) {
                if (nd & mask) {
                    smap_sched_send(s, acc, count, t, m->leader_of[nd - mask]);
                    smap_sched_barrier(s);
                    break;
                }
                if (nd + mask < nn) {
                    smap_sched_recv(s, tmp, count, t, m->leader_of[nd + mask]);
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
    }
    if (a->all) {
        struct hier_blk res = { acc, count, t };
        hier_nb_from_hub(s, m, me, lead, (struct hier_blk){ rbuf, count, t }, whole, &res);
    } else if (me == root && !(nd == 0 && me == lead)) {
        smap_sched_recv(s, rbuf, count, t, m->leader_of[0]);
    }
}

int smap_hier_ireduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                      MPI_Datatype type, MPI_Op op, int root, int all, smap_comm_t *c,
                      MPI_Request *req)
{
    if (count == 0)
        return SMAP_HIER_FLAT;
    struct smap_sched *s;
    struct hier_imap m;
    int rc = reduce_start(c, op, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    struct ivec *a = smap_sched_tmp(s, sizeof *a);
    if (!a)
        return hier_launch(s, req);   /* fails: out of memory */
    *a = (struct ivec){ sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, t, type, op, root, all, 0, c->rank };
    return hier_nb_chunked(s, &m, count, t, ireduce_build, a, req);
}

/* ---- reduce-scatter --------------------------------------------------- */

/* A node's result blocks (its ranks' blocks in node order, packed) at the
 * leader, for the release. */
struct rs_node {
    void *res;
    const int *ranks;    /* the node's members */
    const MPI_Count *cnt, *off;   /* by rank in c: block length, offset in the node's pack */
    smap_dtype_t *t;
};

static struct hier_blk rs_block(int j, void *arg)
{
    struct rs_node *x = arg;
    int r = x->ranks[j];
    return (struct hier_blk){ hier_at(x->res, x->off[r], x->t), x->cnt[r], x->t };
}

/* Node x's blocks of the vector v (offsets voff by rank) packed in node
 * order: a pointer into v when the node holds one range of ranks (its
 * blocks are adjacent), else a scratch filled by copies. */
static void *rs_pack(struct smap_sched *s, const struct hier_imap *m, int p, int x, void *v,
                     const MPI_Count *cnt, const MPI_Count *voff, MPI_Count len, smap_dtype_t *t)
{
    int first = 0;
    while (m->node_of[first] != x)
        first++;
    if (m->contiguous)
        return hier_at(v, voff[first], t);
    void *pack = smap_sched_tmp_typed(s, len, t);
    if (!pack)
        return NULL;
    MPI_Count at = 0;
    for (int r = first; r < p; r++)
        if (m->node_of[r] == x) {
            smap_sched_copy(s, hier_at(v, voff[r], t), cnt[r], t, hier_at(pack, at, t), cnt[r], t);
            at += cnt[r];
        }
    return pack;
}

/* Node fold of the whole vector onto the leader; the leaders exchange the
 * partials node block by node block (one message per node pair), each
 * folding the nn partials of its node's block in node order; the leader
 * releases each member's block. */
int smap_hier_ireduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                              MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                              smap_comm_t *c, MPI_Request *req)
{
    int p = c->size, me = c->rank;
    MPI_Count total = 0;
    for (int r = 0; r < p; r++)
        total += rcounts.p ? smap_cvec_at(rcounts, r) : block;
    if (total == 0)
        return SMAP_HIER_FLAT;
    struct smap_sched *s;
    struct hier_imap m;
    int rc = reduce_start(c, op, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    int nd = m.node_of[me], nn = m.nn, lead = m.members[0];
    /* cnt, voff (offset in the vector), noff (offset in its node's pack)
     * by rank; len: each node's block length */
    MPI_Count *cnt = smap_sched_tmp(s, (3 * (size_t)p + (size_t)nn) * sizeof *cnt);
    if (!cnt)
        return hier_launch(s, req);   /* fails: out of memory */
    MPI_Count *voff = cnt + p, *noff = voff + p, *len = noff + p;
    for (int x = 0; x < nn; x++)
        len[x] = 0;
    MPI_Count at = 0;
    for (int r = 0; r < p; r++) {
        cnt[r] = rcounts.p ? smap_cvec_at(rcounts, r) : block;
        voff[r] = at, at += cnt[r];
        noff[r] = len[m.node_of[r]], len[m.node_of[r]] += cnt[r];
    }
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    void *acc = node_fold(s, &m, in, total, t, type, op, me);
    struct rs_node res = { NULL, m.members, cnt, noff, t };
    if (me == lead) {
        void **part = smap_sched_tmp(s, (size_t)nn * sizeof *part);
        if (!acc || !part)
            return hier_launch(s, req);
        for (int x = 0; x < nn; x++) {
            void *mine = rs_pack(s, &m, p, x, acc, cnt, voff, len[x], t);
            if (x == nd) {
                part[x] = mine;
                continue;
            }
            part[x] = smap_sched_tmp_typed(s, len[nd], t);
            if (!mine || !part[x])
                return hier_launch(s, req);
            smap_sched_send(s, mine, len[x], t, m.leader_of[x]);
            smap_sched_recv(s, part[x], len[nd], t, m.leader_of[x]);
        }
        smap_sched_barrier(s);
        /* part[nn-1] = part[0] op .. op part[nn-1] (node order) */
        for (int x = nn - 2; x >= 0; x--)
            smap_sched_reduce(s, part[x], part[nn - 1], len[nd], t, type, op);
        res.res = part[nn - 1];
        smap_sched_copy(s, hier_at(res.res, noff[me], t), cnt[me], t, rbuf, cnt[me], t);
        smap_sched_barrier(s);
    }
    hier_nb_from_hub(s, &m, me, lead, (struct hier_blk){ rbuf, cnt[me], t }, rs_block, &res);
    return hier_launch(s, req);
}

/* ---- scan, exscan ------------------------------------------------------ */

/* (Iexscan: member j gets the prefix of slot j-1) */
static struct hier_blk slot_before(int j, void *arg)
{
    return slot_at(j - 1, arg);
}

/* The leader gathers its node's inputs and computes their prefixes in
 * node order; the leaders' exclusive scan of the node totals (recursive
 * doubling over the nodes, rank order kept); E op prefix on every node but
 * the first; the leader releases each member's result. */
static void iscan_build(struct smap_sched *s, const struct hier_imap *m, MPI_Count start,
                        MPI_Count count, void *arg)
{
    const struct ivec *a = arg;
    smap_dtype_t *t = a->t;
    int exclusive = a->exclusive, me = a->me, nd = m->node_of[me], nn = m->nn;
    int lead = m->members[0], k = m->k;
    const void *in = hier_at(a->in, start, t);
    void *rbuf = hier_at(a->rbuf, start, t);
    struct slots sl;
    if (gather_inputs(s, m, me, in, count, t, &sl) != 0)
        return;
    if (me == lead) {
        /* slot j = in0 op .. op in j */
        for (int j = 1; j < k; j++)
            smap_sched_reduce(s, slot_at(j - 1, &sl).buf, (void *)slot_at(j, &sl).buf, count, t,
                              a->type, a->op);
        void *part = smap_sched_tmp_typed(s, count, t), *got = smap_sched_tmp_typed(s, count, t);
        void *e = nd > 0 ? smap_sched_tmp_typed(s, count, t) : NULL;
        if (!part || !got || (nd > 0 && !e))
            return;
        smap_sched_copy(s, slot_at(k - 1, &sl).buf, count, t, part, count, t);
        /* part: the total of the aligned group of nodes this one knows;
         * e: the total of the nodes below */
        int have_e = 0;
        for (int mask = 1; mask < nn; mask <<= 1) {
            int dst = nd ^ mask;
            if (dst >= nn)
                continue;
            smap_sched_send(s, part, count, t, m->leader_of[dst]);
            smap_sched_recv(s, got, count, t, m->leader_of[dst]);
            smap_sched_barrier(s);
            if (dst < nd) {
                if (have_e)
                    smap_sched_reduce(s, got, e, count, t, a->type, a->op);
                else
                    smap_sched_copy(s, got, count, t, e, count, t);
                have_e = 1;
                smap_sched_reduce(s, got, part, count, t, a->type, a->op);
            } else {
                smap_sched_reduce(s, part, got, count, t, a->type, a->op);
                smap_sched_copy(s, got, count, t, part, count, t);
            }
        }
        /* results: slot j = E op prefix j (the ones a member gets) */
        for (int j = 0; j < (exclusive ? k - 1 : k); j++)
            if (nd > 0)
                smap_sched_reduce(s, e, (void *)slot_at(j, &sl).buf, count, t, a->type, a->op);
        if (!exclusive)
            smap_sched_copy(s, sl.base, count, t, rbuf, count, t);
        else if (nd > 0)   /* (rank 0's exclusive result is undefined: untouched) */
            smap_sched_copy(s, e, count, t, rbuf, count, t);
        smap_sched_barrier(s);
    }
    hier_nb_from_hub(s, m, me, lead, (struct hier_blk){ rbuf, count, t },
                     exclusive ? slot_before : slot_at, &sl);
}

int smap_hier_iscan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                    MPI_Datatype type, MPI_Op op, int exclusive, smap_comm_t *c,
                    MPI_Request *req)
{
    /* (the blocking forms' crossover, SMAP_COLL_HIER_SCAN_MIN) */
    if (count == 0 || (uint64_t)(count * t->size) < smap_tun.coll_hier_scan_min)
        return SMAP_HIER_FLAT;
    struct smap_sched *s;
    struct hier_imap m;
    int rc = hier_nb_start(c, &s, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!m.contiguous) {
        smap_sched_free(s);
        return SMAP_HIER_FLAT;
    }
    struct ivec *a = smap_sched_tmp(s, sizeof *a);
    if (!a)
        return hier_launch(s, req);   /* fails: out of memory */
    *a = (struct ivec){ sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, t, type, op, 0, 0, exclusive,
                        c->rank };
    return hier_nb_chunked(s, &m, count, t, iscan_build, a, req);
}
