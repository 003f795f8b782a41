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

/* Ireduce_scatter(_block) of one chunk [lo, hi) of the vector (a lane, or
 * the whole vector): node fold of the chunk onto the leader; the leaders
 * exchange the partials node block by node block (the parts of each
 * node's ranks' blocks in the chunk, one message per node pair that has
 * any), each folding the nn partials of its node's part in node order;
 * the leader releases each member's part of its block.  cnt and voff
 * (offset in the vector) by rank. */
struct irs {
    const void *in;
    void *rbuf;
    smap_dtype_t *t;
    MPI_Datatype type;
    MPI_Op op;
    int me, p;
    const MPI_Count *cnt, *voff;
};

/* The part of rank r's block in [lo, hi): its length, *from its first
 * element (in the vector). */
static MPI_Count rs_part(const struct irs *a, int r, MPI_Count lo, MPI_Count hi, MPI_Count *from)
{
    MPI_Count b = a->voff[r], e = b + a->cnt[r];
    b = b > lo ? b : lo;
    e = e < hi ? e : hi;
    *from = b;
    return e > b ? e - b : 0;
}

/* Node x's elements in [lo, hi). */
static MPI_Count rs_node_len(const struct irs *a, const struct hier_imap *m, int x, MPI_Count lo,
                             MPI_Count hi)
{
    MPI_Count n = 0, from;
    for (int r = 0; r < a->p; r++)
        if (m->node_of[r] == x)
            n += rs_part(a, r, lo, hi, &from);
    return n;
}

/* Node x's parts of the chunk acc (element 0: vector element lo) packed
 * in node order: a pointer into acc when the node holds one range of
 * ranks (its parts are adjacent), else a scratch filled by copies. */
static void *rs_pack(struct smap_sched *s, const struct hier_imap *m, const struct irs *a, int x,
                     void *acc, MPI_Count lo, MPI_Count hi, MPI_Count len)
{
    smap_dtype_t *t = a->t;
    void *pack = NULL;
    if (!m->contiguous && !(pack = smap_sched_tmp_typed(s, len, t)))
        return NULL;
    MPI_Count at = 0, from;
    for (int r = 0; r < a->p; r++) {
        MPI_Count n = m->node_of[r] == x ? rs_part(a, r, lo, hi, &from) : 0;
        if (n == 0)
            continue;
        if (!pack)
            return hier_at(acc, from - lo, t);
        smap_sched_copy(s, hier_at(acc, from - lo, t), n, t, hier_at(pack, at, t), n, t);
        at += n;
    }
    return pack;
}

/* The leader's release of the members' parts from res (node x's parts,
 * packed in node order); a member receives its own. */
static void rs_release(struct smap_sched *s, const struct hier_imap *m, const struct irs *a,
                       void *res, MPI_Count lo, MPI_Count hi)
{
    smap_dtype_t *t = a->t;
    int me = a->me, lead = m->members[0];
    MPI_Count at = 0, from;
    for (int j = 0; j < m->k; j++) {
        int r = m->members[j];
        MPI_Count n = rs_part(a, r, lo, hi, &from);
        void *mine = hier_at(a->rbuf, from - a->voff[r], t);
        if (n > 0 && me != lead && r == me)
            smap_sched_recv(s, mine, n, t, lead);
        else if (n > 0 && me == lead && r == me)
            smap_sched_copy(s, hier_at(res, at, t), n, t, mine, n, t);
        else if (n > 0 && me == lead)
            smap_sched_send(s, hier_at(res, at, t), n, t, r);
        at += n;
    }
    smap_sched_barrier(s);
}

static void irs_build(struct smap_sched *s, const struct hier_imap *m, MPI_Count lo,
                      MPI_Count len, void *arg)
{
    const struct irs *a = arg;
    smap_dtype_t *t = a->t;
    int me = a->me, nd = m->node_of[me], nn = m->nn, lead = m->members[0];
    MPI_Count hi = lo + len, mylen = rs_node_len(a, m, nd, lo, hi);
    void *acc = node_fold(s, m, hier_at(a->in, lo, t), len, t, a->type, a->op, me);
    void *res = NULL;
    if (me == lead) {
        void **part = smap_sched_tmp(s, (size_t)nn * sizeof *part);
        if (!acc || !part)
            return;   /* (the schedule reports it) */
        for (int x = 0; x < nn; x++) {
            MPI_Count xlen = rs_node_len(a, m, x, lo, hi);
            void *theirs = xlen > 0 ? rs_pack(s, m, a, x, acc, lo, hi, xlen) : NULL;
            if (xlen > 0 && !theirs)
                return;
            if (x == nd) {
                part[x] = theirs;
                continue;
            }
            if (xlen > 0)
                smap_sched_send(s, theirs, xlen, t, m->leader_of[x]);
            if (mylen > 0) {
                if (!(part[x] = smap_sched_tmp_typed(s, mylen, t)))
                    return;
                smap_sched_recv(s, part[x], mylen, t, m->leader_of[x]);
            }
        }
        smap_sched_barrier(s);
        /* part[nn-1] = part[0] op .. op part[nn-1] (node order) */
        for (int x = nn - 2; x >= 0 && mylen > 0; x--)
            smap_sched_reduce(s, part[x], part[nn - 1], mylen, t, a->type, a->op);
        res = part[nn - 1];
    }
    rs_release(s, m, a, res, lo, hi);
}

/* Nodes holding ranges of ranks: chunk [lo, lo+len) of every node's block
 * (as the blocking pipeline), so that every lane's exchange runs between
 * all node pairs at once.  Node x's part is one range of the vector,
 * folded on the node by its own node gather. */
static void irs_build_ranges(struct smap_sched *s, const struct hier_imap *m, MPI_Count lo,
                             MPI_Count len, void *arg)
{
    const struct irs *a = arg;
    smap_dtype_t *t = a->t;
    int me = a->me, nd = m->node_of[me], nn = m->nn, lead = m->members[0];
    void **part = smap_sched_tmp(s, (size_t)nn * sizeof *part);
    MPI_Count *from = smap_sched_tmp(s, 2 * (size_t)nn * sizeof *from), *n = from + nn;
    if (!part || !from)
        return;   /* (the schedule reports it) */
    for (int x = 0; x < nn; x++) {   /* node x's part: [from, from + n) of the vector */
        MPI_Count vs = 0, xlen = 0;
        for (int r = a->p - 1; r >= 0; r--)
            if (m->node_of[r] == x)
                vs = a->voff[r], xlen += a->cnt[r];
        MPI_Count e = lo + len < xlen ? lo + len : xlen;
        from[x] = vs + lo;
        n[x] = e > lo ? e - lo : 0;
        part[x] = n[x] > 0 ? node_fold(s, m, hier_at(a->in, from[x], t), n[x], t, a->type, a->op,
                                       me)
                           : NULL;
        if (me == lead && n[x] > 0 && !part[x])
            return;
    }
    if (me == lead) {
        void *own = part[nd];
        for (int x = 0; x < nn; x++) {
            if (x == nd)
                continue;
            if (n[x] > 0)
                smap_sched_send(s, part[x], n[x], t, m->leader_of[x]);
            part[x] = n[nd] > 0 ? smap_sched_tmp_typed(s, n[nd], t) : NULL;
            if (n[nd] > 0 && !part[x])
                return;
            if (n[nd] > 0)
                smap_sched_recv(s, part[x], n[nd], t, m->leader_of[x]);
        }
        part[nd] = own;
        smap_sched_barrier(s);
        for (int x = nn - 2; x >= 0 && n[nd] > 0; x--)
            smap_sched_reduce(s, part[x], part[nn - 1], n[nd], t, a->type, a->op);
    }
    rs_release(s, m, a, part[nn - 1], from[nd], from[nd] + n[nd]);
}

int smap_hier_ireduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                              MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                              smap_comm_t *c, MPI_Request *req)
{
    int p = c->size;
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
    MPI_Count *cnt = smap_sched_tmp(s, (2 * (size_t)p + (size_t)m.nn) * sizeof *cnt);
    if (!cnt)
        return hier_launch(s, req);   /* fails: out of memory */
    MPI_Count *voff = cnt + p, at = 0;
    for (int r = 0; r < p; r++) {
        cnt[r] = rcounts.p ? smap_cvec_at(rcounts, r) : block;
        voff[r] = at, at += cnt[r];
    }
    struct irs a = { sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, t, type, op, c->rank, p, cnt, voff };
    if (!m.contiguous)   /* chunks of the vector: a node block is no range of it */
        return hier_nb_chunked(s, &m, total, t, irs_build, &a, req);
    MPI_Count most = 0, *klen = cnt + 2 * (size_t)p;   /* by node */
    for (int x = 0; x < m.nn; x++)
        klen[x] = 0;
    for (int r = 0; r < p; r++)
        klen[m.node_of[r]] += cnt[r];
    for (int x = 0; x < m.nn; x++)
        most = klen[x] > most ? klen[x] : most;
    return hier_nb_chunked(s, &m, most, t, irs_build_ranges, &a, req);
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
