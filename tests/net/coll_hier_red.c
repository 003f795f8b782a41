/* Reduce_scatter(_block), Scan, Exscan, Gatherv, Scatterv, and the
 * non-blocking and persistent Ibcast, Ireduce, Iallreduce, Iallgather, Ibarrier,
 * and of Reduce_scatter(_block), Scan, Exscan, Gather(v), Scatter(v),
 * Allgatherv (Igather/Iscatter: a holey derived type on one side) on
 * communicators spanning nodes (src/coll/hier), checked against serial
 * references: on WORLD and on sub-communicators whose node membership is
 * uneven, whose order interleaves the nodes (the flat fallback for
 * non-commutative ops), or that hold one rank per node; sizes 0, 1, odd and
 * large; MPI_SUM on int and a non-commutative user op (composition of
 * affine maps x -> m x + c, two unsigned per element, i.e. a product of
 * 2x2 matrices); in place; uneven and zero counts.
 *   coll_hier_red [large_elems]   (default 1<<18: 1-2 MiB vectors) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank;
static int failures;

#define CHECK(cond, ...)                                                                    \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            if (failures++ < 10) {                                                         \
                fprintf(stderr, "rank %d: %s:%d: ", wrank, __FILE__, __LINE__);            \
                fprintf(stderr, __VA_ARGS__);                                              \
                fputc('\n', stderr);                                                       \
            }                                                                              \
        }                                                                                  \
    } while (0)

static int ival(int r, long i, int salt)
{
    return (int)((r * 7919L + i * 31L + salt * 101L) % 1000) - 500;
}

typedef struct {
    unsigned m, c;
} aff;

static aff aval(int r, long i, int salt)
{
    aff a = { (unsigned)(2 * ((r + i + salt) % 13) + 1), (unsigned)(r * 17 + i * 3 + salt) };
    return a;
}

/* (a o b)(x) = a(b(x)): the fold of ranks lo..hi is f_lo o ... o f_hi */
static aff compose(aff a, aff b)
{
    aff r = { a.m * b.m, a.m * b.c + a.c };
    return r;
}

static void aff_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    aff *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = compose(a[i], b[i]);
}

struct ctx {
    MPI_Comm comm;
    int rank, size;
    int *wr;   /* world rank of every rank */
    const char *name;
    MPI_Datatype aff_t;
    MPI_Op aff_o;
    int nb;   /* 0 blocking, 1 the I-form and MPI_Wait, 2 persistent (_init, Start, Wait) */
};

/* Completes a collective started as x->nb says (rc: the starting call's);
 * frees a persistent request. */
static int finish(struct ctx *x, int rc, MPI_Request *rq)
{
    if (x->nb == 0 || rc != MPI_SUCCESS)
        return rc;
    if (x->nb == 2)
        rc = MPI_Start(rq);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(rq, MPI_STATUS_IGNORE);
    if (x->nb == 2)
        MPI_Request_free(rq);
    return rc;
}

static const char *mode(struct ctx *x)
{
    return x->nb == 0 ? "" : x->nb == 1 ? "(I)" : "(init)";
}

/* The serial references: element i folded over ranks [lo, hi] (hi >= lo). */
static int sum_ref(struct ctx *x, long i, int lo, int hi, int salt)
{
    int s = 0;
    for (int k = lo; k <= hi; k++)
        s += ival(x->wr[k], i, salt);
    return s;
}

static aff aff_ref(struct ctx *x, long i, int lo, int hi, int salt)
{
    aff a = aval(x->wr[hi], i, salt);
    for (int k = hi - 1; k >= lo; k--)
        a = compose(aval(x->wr[k], i, salt), a);
    return a;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* ---- Reduce_scatter(_block) ---- */

/* Uneven counts around `base` (some zero) for Reduce_scatter; all `base`
 * for the block form. */
static long rs_count(int r, long base, int block)
{
    if (block)
        return base;
    if (r % 4 == 1)
        return 0;
    return base + (r * 3) % 5;
}

static void test_redscat(struct ctx *x, long base, int block, int in_place, int noncomm, int salt)
{
    int n = x->size;
    int *cnt = xmalloc((size_t)n * sizeof *cnt);
    long total = 0, off = 0;
    for (int r = 0; r < n; r++) {
        cnt[r] = (int)rs_count(r, base, block);
        if (r < x->rank)
            off += cnt[r];
        total += cnt[r];
    }
    long mine = cnt[x->rank];
    size_t es = noncomm ? sizeof(aff) : sizeof(int);
    char *s = xmalloc((size_t)total * es), *r = xmalloc((size_t)(in_place ? total : mine + 1) * es);
    for (long i = 0; i < total; i++) {
        if (noncomm)
            ((aff *)s)[i] = aval(x->wr[x->rank], i, salt);
        else
            ((int *)s)[i] = ival(x->wr[x->rank], i, salt);
    }
    memset(r, 0x5a, (size_t)(in_place ? total : mine + 1) * es);
    const void *sb = s;
    if (in_place) {
        memcpy(r, s, (size_t)total * es);
        sb = MPI_IN_PLACE;
    }
    MPI_Datatype t = noncomm ? x->aff_t : MPI_INT;
    MPI_Op op = noncomm ? x->aff_o : MPI_SUM;
    MPI_Request rq;
    MPI_Info ni = MPI_INFO_NULL;
    int rc;
    if (x->nb == 0)
        rc = block ? MPI_Reduce_scatter_block(sb, r, (int)base, t, op, x->comm)
                   : MPI_Reduce_scatter(sb, r, cnt, t, op, x->comm);
    else if (x->nb == 1)
        rc = block ? MPI_Ireduce_scatter_block(sb, r, (int)base, t, op, x->comm, &rq)
                   : MPI_Ireduce_scatter(sb, r, cnt, t, op, x->comm, &rq);
    else
        rc = block ? MPI_Reduce_scatter_block_init(sb, r, (int)base, t, op, x->comm, ni, &rq)
                   : MPI_Reduce_scatter_init(sb, r, cnt, t, op, x->comm, ni, &rq);
    rc = finish(x, rc, &rq);
    char what[48];
    snprintf(what, sizeof what, "%s%s", block ? "reduce_scatter_block" : "reduce_scatter",
             mode(x));
    CHECK(rc == MPI_SUCCESS, "%s %s rc %d", x->name, what, rc);
    for (long i = 0; i < mine; i++) {
        int bad;
        if (noncomm) {
            aff w = aff_ref(x, off + i, 0, n - 1, salt), g = ((aff *)r)[i];
            bad = g.m != w.m || g.c != w.c;
        } else {
            bad = ((int *)r)[i] != sum_ref(x, off + i, 0, n - 1, salt);
        }
        if (bad) {
            CHECK(0, "%s %s base=%ld inplace=%d noncomm=%d: [%ld] wrong", x->name, what, base,
                  in_place, noncomm, i);
            break;
        }
    }
    if (!in_place) {   /* past the block: untouched */
        unsigned char *p = (unsigned char *)r + mine * es;
        CHECK(p[0] == 0x5a && p[es - 1] == 0x5a, "%s %s wrote past its block", x->name, what);
    }
    free(cnt), free(s), free(r);
}

/* ---- Scan, Exscan ---- */

static void test_scan(struct ctx *x, long n, int ex, int in_place, int noncomm, int salt)
{
    size_t es = noncomm ? sizeof(aff) : sizeof(int);
    char *s = xmalloc((size_t)n * es), *r = xmalloc((size_t)n * es);
    for (long i = 0; i < n; i++) {
        if (noncomm)
            ((aff *)s)[i] = aval(x->wr[x->rank], i, salt);
        else
            ((int *)s)[i] = ival(x->wr[x->rank], i, salt);
    }
    memset(r, 0x5a, (size_t)n * es);
    const void *sb = s;
    if (in_place) {
        memcpy(r, s, (size_t)n * es);
        sb = MPI_IN_PLACE;
    }
    MPI_Datatype t = noncomm ? x->aff_t : MPI_INT;
    MPI_Op op = noncomm ? x->aff_o : MPI_SUM;
    MPI_Request rq;
    MPI_Info ni = MPI_INFO_NULL;
    int rc;
    if (x->nb == 0)
        rc = ex ? MPI_Exscan(sb, r, (int)n, t, op, x->comm)
                : MPI_Scan(sb, r, (int)n, t, op, x->comm);
    else if (x->nb == 1)
        rc = ex ? MPI_Iexscan(sb, r, (int)n, t, op, x->comm, &rq)
                : MPI_Iscan(sb, r, (int)n, t, op, x->comm, &rq);
    else
        rc = ex ? MPI_Exscan_init(sb, r, (int)n, t, op, x->comm, ni, &rq)
                : MPI_Scan_init(sb, r, (int)n, t, op, x->comm, ni, &rq);
    rc = finish(x, rc, &rq);
    char what[48];
    snprintf(what, sizeof what, "%s%s", ex ? "exscan" : "scan", mode(x));
    CHECK(rc == MPI_SUCCESS, "%s %s rc %d", x->name, what, rc);
    int hi = ex ? x->rank - 1 : x->rank;
    for (long i = 0; i < n && hi >= 0; i++) {
        int bad;
        if (noncomm) {
            aff w = aff_ref(x, i, 0, hi, salt), g = ((aff *)r)[i];
            bad = g.m != w.m || g.c != w.c;
        } else {
            bad = ((int *)r)[i] != sum_ref(x, i, 0, hi, salt);
        }
        if (bad) {
            CHECK(0, "%s %s n=%ld inplace=%d noncomm=%d: [%ld] wrong", x->name, what, n,
                  in_place, noncomm, i);
            break;
        }
    }
    free(s), free(r);
}

/* ---- Gatherv, Scatterv ---- */

/* Rank r's block: uneven, some empty; placed in reverse rank order with a
 * gap of 3 ints before each block (the gaps must stay untouched). */
static long gv_count(int r, long base)
{
    return r % 3 == 2 ? 0 : base + r % 4;
}

static void gv_layout(struct ctx *x, long base, int *cnt, int *dsp, long *span)
{
    long at = 0;
    for (int r = x->size - 1; r >= 0; r--) {
        cnt[r] = (int)gv_count(r, base);
        dsp[r] = (int)(at + 3);
        at += 3 + cnt[r];
    }
    *span = at + 1;
}

/* A rank's own block of `mine` ints: plain, or (holey) every other int of
 * a 2 mine + 1 buffer as one vector type (packed on the way). */
static MPI_Datatype own_type(long mine, int holey, int *count)
{
    MPI_Datatype t = MPI_INT;
    *count = (int)mine;
    if (holey && mine > 0) {
        MPI_Type_vector((int)mine, 1, 2, MPI_INT, &t);
        MPI_Type_commit(&t);
        *count = 1;
    }
    return t;
}

static void gatherv_check(struct ctx *x, const int *r, const int *cnt, const int *dsp, long span,
                          long base, int root, int in_place, int holey, int salt)
{
    long bad = -1;
    for (long i = 0; i < span && bad < 0; i++) {
        int want = -7;
        for (int k = 0; k < x->size; k++)
            if (i >= dsp[k] && i < dsp[k] + cnt[k])
                want = ival(x->wr[k], i - dsp[k], salt);
        if (r[i] != want)
            bad = i;
    }
    CHECK(bad < 0, "%s gatherv%s base=%ld root=%d inplace=%d holey=%d: [%ld] = %d wrong",
          x->name, mode(x), base, root, in_place, holey, bad, bad < 0 ? 0 : r[bad]);
}

static void scatterv_check(struct ctx *x, const int *h, long mine, long base, int root,
                           int holey, int salt)
{
    long bad = -1, step = holey ? 2 : 1;
    for (long i = 0; i <= step * mine && bad < 0; i++)
        if (h[i] != (i % step == 0 && i < step * mine ? ival(x->wr[x->rank], i / step, salt)
                                                      : -7))
            bad = i;   /* (past the block and the holes untouched) */
    CHECK(bad < 0, "%s scatterv%s base=%ld root=%d holey=%d: [%ld] wrong", x->name, mode(x),
          base, root, holey, bad);
}

static void test_gatherv(struct ctx *x, long base, int root, int in_place, int holey, int salt)
{
    int n = x->size, me = x->rank;
    int *cnt = xmalloc((size_t)n * sizeof *cnt), *dsp = xmalloc((size_t)n * sizeof *dsp);
    long span;
    gv_layout(x, base, cnt, dsp, &span);
    long mine = cnt[me], step = holey ? 2 : 1;
    int *s = xmalloc((size_t)(2 * mine + 1) * sizeof *s), *r = xmalloc((size_t)span * sizeof *r);
    for (long i = 0; i <= 2 * mine; i++)
        s[i] = -9;
    for (long i = 0; i < mine; i++)
        s[step * i] = ival(x->wr[me], i, salt);
    for (long i = 0; i < span; i++)
        r[i] = -7;
    int one;
    MPI_Datatype t = own_type(mine, holey, &one);
    const void *sb = s;
    if (in_place && me == root) {
        for (long i = 0; i < mine; i++)
            r[dsp[me] + i] = s[step * i];
        sb = MPI_IN_PLACE;
    }
    /* non-roots pass garbage counts: only the root's are significant */
    int *rc_ = me == root ? cnt : NULL, *rd_ = me == root ? dsp : NULL;
    MPI_Request rq;
    int rc = x->nb == 0 ? MPI_Gatherv(sb, one, t, r, rc_, rd_, MPI_INT, root, x->comm)
             : x->nb == 1
                 ? MPI_Igatherv(sb, one, t, r, rc_, rd_, MPI_INT, root, x->comm, &rq)
                 : MPI_Gatherv_init(sb, one, t, r, rc_, rd_, MPI_INT, root, x->comm,
                                    MPI_INFO_NULL, &rq);
    rc = finish(x, rc, &rq);
    CHECK(rc == MPI_SUCCESS, "%s gatherv%s rc %d", x->name, mode(x), rc);
    if (me == root)
        gatherv_check(x, r, cnt, dsp, span, base, root, in_place, holey, salt);
    if (t != MPI_INT)
        MPI_Type_free(&t);
    free(cnt), free(dsp), free(s), free(r);
}

static void test_scatterv(struct ctx *x, long base, int root, int in_place, int holey, int salt)
{
    int n = x->size, me = x->rank;
    int *cnt = xmalloc((size_t)n * sizeof *cnt), *dsp = xmalloc((size_t)n * sizeof *dsp);
    long span;
    gv_layout(x, base, cnt, dsp, &span);
    long mine = cnt[me];
    int *s = xmalloc((size_t)span * sizeof *s), *r = xmalloc((size_t)(2 * mine + 1) * sizeof *r);
    for (long i = 0; i < span; i++)
        s[i] = -1;
    for (int k = 0; k < n; k++)
        for (long i = 0; i < cnt[k]; i++)
            s[dsp[k] + i] = ival(x->wr[k], i, salt);
    for (long i = 0; i <= 2 * mine; i++)
        r[i] = -7;
    int one;
    MPI_Datatype t = own_type(mine, holey, &one);
    void *rb = in_place && me == root ? MPI_IN_PLACE : r;
    int *sc_ = me == root ? cnt : NULL, *sd_ = me == root ? dsp : NULL;
    MPI_Request rq;
    int rc = x->nb == 0 ? MPI_Scatterv(s, sc_, sd_, MPI_INT, rb, one, t, root, x->comm)
             : x->nb == 1
                 ? MPI_Iscatterv(s, sc_, sd_, MPI_INT, rb, one, t, root, x->comm, &rq)
                 : MPI_Scatterv_init(s, sc_, sd_, MPI_INT, rb, one, t, root, x->comm,
                                     MPI_INFO_NULL, &rq);
    rc = finish(x, rc, &rq);
    CHECK(rc == MPI_SUCCESS, "%s scatterv%s rc %d", x->name, mode(x), rc);
    if (rb != MPI_IN_PLACE)
        scatterv_check(x, r, mine, base, root, holey, salt);
    if (t != MPI_INT)
        MPI_Type_free(&t);
    free(cnt), free(dsp), free(s), free(r);
}

/* Igatherv and Iscatterv among other outstanding requests: persistent
 * Gatherv_init and Scatterv_init (holey on the non-root side, the type's
 * handle freed before the first start: the requests must keep it) started
 * twice with new data, each time next to an Ibarrier, completed by
 * MPI_Test alone; then an Iscatterv whose request the root frees
 * (MPI_Request_free) while an Igatherv to another root is waited for. */
static void test_vmix(struct ctx *x, long base, int root, int salt)
{
    int n = x->size, me = x->rank;
    int *cnt = xmalloc((size_t)n * sizeof *cnt), *dsp = xmalloc((size_t)n * sizeof *dsp);
    long span;
    gv_layout(x, base, cnt, dsp, &span);
    long mine = cnt[me];
    int *gs = xmalloc((size_t)(2 * mine + 1) * sizeof *gs), *gr = xmalloc((size_t)span * sizeof *gr);
    int *ss = xmalloc((size_t)span * sizeof *ss), *sr = xmalloc((size_t)(2 * mine + 1) * sizeof *sr);
    int one;
    MPI_Datatype t = own_type(mine, 1, &one);
    int *c_ = me == root ? cnt : NULL, *d_ = me == root ? dsp : NULL;
    MPI_Request rq[3];
    MPI_Datatype tp = t, tq = t;   /* (one per request, freed at once) */
    if (t != MPI_INT)
        MPI_Type_dup(t, &tp), MPI_Type_dup(t, &tq);
    int rc = MPI_Gatherv_init(gs, one, tp, gr, c_, d_, MPI_INT, root, x->comm, MPI_INFO_NULL,
                              &rq[0]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Scatterv_init(ss, c_, d_, MPI_INT, sr, one, tq, root, x->comm, MPI_INFO_NULL,
                               &rq[1]);
    CHECK(rc == MPI_SUCCESS, "%s vmix init rc %d", x->name, rc);
    if (t != MPI_INT)
        MPI_Type_free(&tp), MPI_Type_free(&tq);
    int nb = x->nb;
    x->nb = 2;
    for (int it = 0; it < 2 && rc == MPI_SUCCESS; it++) {
        int sl = salt + 7 * it;
        for (long i = 0; i <= 2 * mine; i++)
            gs[i] = -9, sr[i] = -7;
        for (long i = 0; i < mine; i++)
            gs[2 * i] = ival(x->wr[me], i, sl);
        for (long i = 0; i < span; i++)
            gr[i] = -7, ss[i] = -1;
        for (int k = 0; k < n; k++)
            for (long i = 0; i < cnt[k]; i++)
                ss[dsp[k] + i] = ival(x->wr[k], i, sl);
        rc = MPI_Start(&rq[0]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Ibarrier(x->comm, &rq[2]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Start(&rq[1]);
        for (int done = 0; rc == MPI_SUCCESS && !done;)
            rc = MPI_Testall(3, rq, &done, MPI_STATUSES_IGNORE);
        CHECK(rc == MPI_SUCCESS, "%s vmix run %d rc %d", x->name, it, rc);
        if (me == root)
            gatherv_check(x, gr, cnt, dsp, span, base, root, 0, 1, sl);
        scatterv_check(x, sr, mine, base, root, 1, sl);
    }
    x->nb = 1;
    MPI_Request_free(&rq[0]), MPI_Request_free(&rq[1]);
    /* a freed Iscatterv at the root, an Igatherv to the next root waited */
    int groot = (root + 1) % n;
    int *g2c = me == groot ? cnt : NULL, *g2d = me == groot ? dsp : NULL;
    for (long i = 0; i <= 2 * mine; i++)
        sr[i] = -7, gs[i] = -9;
    for (long i = 0; i < mine; i++)
        gs[2 * i] = ival(x->wr[me], i, salt + 3);
    for (long i = 0; i < span; i++)
        gr[i] = -7, ss[i] = -1;
    for (int k = 0; k < n; k++)
        for (long i = 0; i < cnt[k]; i++)
            ss[dsp[k] + i] = ival(x->wr[k], i, salt + 5);
    rc = MPI_Iscatterv(ss, c_, d_, MPI_INT, sr, one, t, root, x->comm, &rq[1]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Igatherv(gs, one, t, gr, g2c, g2d, MPI_INT, groot, x->comm, &rq[0]);
    if (rc == MPI_SUCCESS && me == root)
        rc = MPI_Request_free(&rq[1]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && me != root)
        rc = MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "%s vmix free rc %d", x->name, rc);
    if (me == groot)
        gatherv_check(x, gr, cnt, dsp, span, base, groot, 0, 1, salt + 3);
    if (me != root)
        scatterv_check(x, sr, mine, base, root, 1, salt + 5);
    CHECK(MPI_Barrier(x->comm) == MPI_SUCCESS, "%s vmix barrier", x->name);
    x->nb = nb;
    if (t != MPI_INT)
        MPI_Type_free(&t);
    free(cnt), free(dsp), free(gs), free(gr), free(ss), free(sr);
}

/* ---- Ibcast, Ireduce, Iallreduce and their persistent forms ---- */

static void test_ibcast(struct ctx *x, long n, int root, int persistent, int salt)
{
    int *b = xmalloc((size_t)n * sizeof *b), *b2 = xmalloc((size_t)n * sizeof *b2);
    MPI_Request rq[2];
    int rc = MPI_SUCCESS;
    for (int round = 0; round < (persistent ? 2 : 1); round++) {
        for (long i = 0; i < n; i++) {
            b[i] = x->rank == root ? ival(root, i, salt + round) : -1;
            b2[i] = x->rank == 0 ? ival(0, i, salt + 7) : -1;
        }
        if (persistent) {
            if (round == 0)
                rc = MPI_Bcast_init(b, (int)n, MPI_INT, root, x->comm, MPI_INFO_NULL, &rq[0]);
            if (rc == MPI_SUCCESS)
                rc = MPI_Start(&rq[0]);
        } else {
            rc = MPI_Ibcast(b, (int)n, MPI_INT, root, x->comm, &rq[0]);
        }
        /* a second one outstanding at the same time */
        if (rc == MPI_SUCCESS)
            rc = MPI_Ibcast(b2, (int)n, MPI_INT, 0, x->comm, &rq[1]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        CHECK(rc == MPI_SUCCESS, "%s ibcast rc %d", x->name, rc);
        for (long i = 0; i < n; i++)
            if (b[i] != ival(root, i, salt + round) || b2[i] != ival(0, i, salt + 7)) {
                CHECK(0, "%s ibcast n=%ld root=%d persistent=%d: [%ld] wrong", x->name, n, root,
                      persistent, i);
                break;
            }
    }
    if (persistent && rc == MPI_SUCCESS)
        MPI_Request_free(&rq[0]);
    free(b), free(b2);
}

static void test_ireduce(struct ctx *x, long n, int root, int all, int in_place, int noncomm,
                         int persistent, int salt)
{
    size_t es = noncomm ? sizeof(aff) : sizeof(int);
    char *s = xmalloc((size_t)n * es), *r = xmalloc((size_t)n * es);
    MPI_Datatype t = noncomm ? x->aff_t : MPI_INT;
    MPI_Op op = noncomm ? x->aff_o : MPI_SUM;
    int me_root = all || x->rank == root, rc = MPI_SUCCESS;
    MPI_Request rq;
    for (int round = 0; round < (persistent ? 2 : 1); round++) {
        int sl = salt + round;
        for (long i = 0; i < n; i++) {
            if (noncomm)
                ((aff *)s)[i] = aval(x->wr[x->rank], i, sl);
            else
                ((int *)s)[i] = ival(x->wr[x->rank], i, sl);
        }
        memset(r, 0x5a, (size_t)n * es);
        const void *sb = s;
        if (in_place && me_root) {
            memcpy(r, s, (size_t)n * es);
            sb = MPI_IN_PLACE;
        }
        if (persistent && round == 0)
            rc = all ? MPI_Allreduce_init(sb, r, (int)n, t, op, x->comm, MPI_INFO_NULL, &rq)
                     : MPI_Reduce_init(sb, r, (int)n, t, op, root, x->comm, MPI_INFO_NULL, &rq);
        else if (!persistent)
            rc = all ? MPI_Iallreduce(sb, r, (int)n, t, op, x->comm, &rq)
                     : MPI_Ireduce(sb, r, (int)n, t, op, root, x->comm, &rq);
        if (rc == MPI_SUCCESS && persistent)
            rc = MPI_Start(&rq);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
        const char *what = all ? "iallreduce" : "ireduce";
        CHECK(rc == MPI_SUCCESS, "%s %s rc %d", x->name, what, rc);
        for (long i = 0; i < n && me_root; i++) {
            int bad;
            if (noncomm) {
                aff w = aff_ref(x, i, 0, x->size - 1, sl), g = ((aff *)r)[i];
                bad = g.m != w.m || g.c != w.c;
            } else {
                bad = ((int *)r)[i] != sum_ref(x, i, 0, x->size - 1, sl);
            }
            if (bad) {
                CHECK(0, "%s %s n=%ld root=%d inplace=%d noncomm=%d persistent=%d: [%ld] wrong",
                      x->name, what, n, root, in_place, noncomm, persistent, i);
                break;
            }
        }
    }
    if (persistent && rc == MPI_SUCCESS)
        MPI_Request_free(&rq);
    free(s), free(r);
}

/* Iallgather of n ints per rank (in place or not; persistent: started
 * twice with Allgather_init) with an Ibarrier outstanding at the same
 * time (persistent: Barrier_init), against the serial reference. */
static void test_iallgather(struct ctx *x, long n, int in_place, int persistent, int salt)
{
    int p = x->size;
    int *s = xmalloc((size_t)n * sizeof *s), *r = xmalloc((size_t)(p * n) * sizeof *r);
    MPI_Request rq[2];
    int rc = MPI_SUCCESS;
    for (int round = 0; round < (persistent ? 2 : 1); round++) {
        for (long i = 0; i < n; i++)
            s[i] = ival(x->wr[x->rank], i, salt + round);
        for (long i = 0; i < p * n; i++)
            r[i] = in_place && i / n == x->rank ? s[i % n] : -3;
        const void *sb = in_place ? MPI_IN_PLACE : s;
        if (persistent) {
            if (round == 0) {
                rc = MPI_Allgather_init(sb, (int)n, MPI_INT, r, (int)n, MPI_INT, x->comm,
                                        MPI_INFO_NULL, &rq[0]);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Barrier_init(x->comm, MPI_INFO_NULL, &rq[1]);
            }
            if (rc == MPI_SUCCESS)
                rc = MPI_Startall(2, rq);
        } else {
            rc = MPI_Iallgather(sb, (int)n, MPI_INT, r, (int)n, MPI_INT, x->comm, &rq[0]);
            if (rc == MPI_SUCCESS)
                rc = MPI_Ibarrier(x->comm, &rq[1]);
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        CHECK(rc == MPI_SUCCESS, "%s iallgather/ibarrier rc %d", x->name, rc);
        for (long i = 0; i < p * n; i++)
            if (r[i] != ival(x->wr[i / n], i % n, salt + round)) {
                CHECK(0, "%s iallgather n=%ld inplace=%d persistent=%d: [%ld] %d wrong", x->name,
                      n, in_place, persistent, i, r[i]);
                break;
            }
    }
    if (persistent && rc == MPI_SUCCESS)
        MPI_Request_free(&rq[0]), MPI_Request_free(&rq[1]);
    free(s), free(r);
}

/* ---- Igather, Iscatter (and persistent), Iallgatherv ---- */

/* n ints per rank; the non-root side moves one holey vector (every other
 * int of a 2n buffer: a derived type packed on the way), the root ints;
 * in place at the root. */
static void test_igather(struct ctx *x, long n, int root, int in_place, int scatter, int salt)
{
    int p = x->size, me = x->rank;
    int *h = xmalloc((size_t)(2 * n + 1) * sizeof *h), *all = xmalloc((size_t)(p * n + 1) * sizeof *all);
    MPI_Datatype vec;
    MPI_Type_vector((int)(n ? n : 1), 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int one = n ? 1 : 0;
    for (long i = 0; i <= 2 * n; i++)
        h[i] = -9;
    for (long i = 0; i <= p * n; i++)
        all[i] = -7;
    if (scatter && me == root)
        for (long i = 0; i < p * n; i++)
            all[i] = ival(x->wr[i / n], i % n, salt);
    if (!scatter)
        for (long i = 0; i < n; i++)
            h[2 * i] = ival(x->wr[me], i, salt);
    if (!scatter && in_place && me == root)
        for (long i = 0; i < n; i++)
            all[me * n + i] = h[2 * i];
    int ip = in_place && me == root;
    MPI_Request rq;
    int rc;
    if (!scatter) {
        const void *sb = ip ? MPI_IN_PLACE : h;
        rc = x->nb == 1 ? MPI_Igather(sb, one, vec, all, (int)n, MPI_INT, root, x->comm, &rq)
                        : MPI_Gather_init(sb, one, vec, all, (int)n, MPI_INT, root, x->comm,
                                          MPI_INFO_NULL, &rq);
    } else {
        void *rb = ip ? MPI_IN_PLACE : h;
        rc = x->nb == 1 ? MPI_Iscatter(all, (int)n, MPI_INT, rb, one, vec, root, x->comm, &rq)
                        : MPI_Scatter_init(all, (int)n, MPI_INT, rb, one, vec, root, x->comm,
                                           MPI_INFO_NULL, &rq);
    }
    rc = finish(x, rc, &rq);
    const char *what = scatter ? "scatter" : "gather";
    CHECK(rc == MPI_SUCCESS, "%s i%s%s rc %d", x->name, what, mode(x), rc);
    long bad = -1;
    if (!scatter && me == root) {
        for (long i = 0; i <= p * n && bad < 0; i++)
            if (all[i] != (i < p * n ? ival(x->wr[i / n], i % n, salt) : -7))
                bad = i;
    } else if (scatter && !ip) {
        for (long i = 0; i <= 2 * n && bad < 0; i++)
            if (h[i] != (i % 2 == 0 && i < 2 * n ? ival(x->wr[me], i / 2, salt) : -9))
                bad = i;   /* (the holes untouched) */
    }
    CHECK(bad < 0, "%s i%s%s n=%ld root=%d inplace=%d: [%ld] wrong", x->name, what, mode(x), n,
          root, in_place, bad);
    MPI_Type_free(&vec);
    free(h), free(all);
}

/* Iallgatherv with gv_layout's blocks (uneven, some empty, reverse order,
 * gaps that must stay untouched), in place or not. */
static void test_iallgatherv(struct ctx *x, long base, int in_place, int salt)
{
    int n = x->size, me = x->rank;
    int *cnt = xmalloc((size_t)n * sizeof *cnt), *dsp = xmalloc((size_t)n * sizeof *dsp);
    long span;
    gv_layout(x, base, cnt, dsp, &span);
    long mine = cnt[me];
    int *s = xmalloc((size_t)(mine + 1) * sizeof *s), *r = xmalloc((size_t)span * sizeof *r);
    for (long i = 0; i < mine; i++)
        s[i] = ival(x->wr[me], i, salt);
    for (long i = 0; i < span; i++)
        r[i] = -7;
    if (in_place)
        memcpy(r + dsp[me], s, (size_t)mine * sizeof *s);
    const void *sb = in_place ? MPI_IN_PLACE : s;
    MPI_Request rq;
    int rc = x->nb == 1 ? MPI_Iallgatherv(sb, (int)mine, MPI_INT, r, cnt, dsp, MPI_INT, x->comm, &rq)
                        : MPI_Allgatherv_init(sb, (int)mine, MPI_INT, r, cnt, dsp, MPI_INT,
                                              x->comm, MPI_INFO_NULL, &rq);
    rc = finish(x, rc, &rq);
    CHECK(rc == MPI_SUCCESS, "%s iallgatherv%s rc %d", x->name, mode(x), rc);
    long bad = -1;
    for (long i = 0; i < span && bad < 0; i++) {
        int want = -7;
        for (int k = 0; k < n; k++)
            if (i >= dsp[k] && i < dsp[k] + cnt[k])
                want = ival(x->wr[k], i - dsp[k], salt);
        if (r[i] != want)
            bad = i;
    }
    CHECK(bad < 0, "%s iallgatherv%s base=%ld inplace=%d: [%ld] wrong", x->name, mode(x), base,
          in_place, bad);
    free(cnt), free(dsp), free(s), free(r);
}

/* The non-blocking (nb 1) and persistent (nb 2: one size, the schedule
 * is the same) forms of the collectives above, fewer sizes. */
/* Reduce_scatter(_block) and Scan/Exscan of n elements in all (a block
 * per rank for reduce-scatter), in place or not, commutative or not. */
static void test_redscat_scan(struct ctx *x, long n, int salt)
{
    long per = n / x->size + (n > 0 && n < x->size);
    for (int ip = 0; ip < 2; ip++)
        for (int nc = 0; nc < 2; nc++) {
            test_redscat(x, per, 1, ip, nc, salt);
            test_redscat(x, per, 0, ip, nc, salt + 1);
            test_scan(x, n, 0, ip, nc, salt);
            test_scan(x, n, 1, ip, nc, salt + 2);
        }
}

static void run_nb(struct ctx *x, long large)
{
    long sizes[] = { 0, 7, 1001, large };
    int roots[] = { 0, x->size - 1, x->size / 2 };
    for (x->nb = 1; x->nb <= 2; x->nb++)
        for (int si = 0; si < 4; si++) {
            long n = sizes[si];
            int salt = 20 + si + 5 * x->nb, big = si == 3;
            if (x->nb == 2 && si != 1)
                continue;
            test_redscat_scan(x, n, salt);
            long per = n / x->size;
            for (int ri = 0; ri < 3 && (ri == 0 || !big); ri++)
                for (int ip = 0; ip < 2; ip++) {
                    test_igather(x, per, roots[ri], ip, 0, salt + ri);
                    test_igather(x, per, roots[ri], ip, 1, salt + ri);
                    /* the v forms at every root, holey on the non-root side at one */
                    test_gatherv(x, per, roots[ri], ip, ri == 1, salt + ri);
                    test_scatterv(x, per, roots[ri], ip, ri == 1, salt + ri);
                    if (ri == 0)
                        test_iallgatherv(x, per, ip, salt);
                }
            if (x->nb == 1 && si >= 1)   /* (large: Igatherv's groups, rerun) */
                test_vmix(x, per, roots[2], salt);
            CHECK(MPI_Barrier(x->comm) == MPI_SUCCESS, "%s barrier", x->name);
        }
    x->nb = 0;
}

static void run(struct ctx *x, long large)
{
    if (x->comm == MPI_COMM_NULL)
        return;
    MPI_Comm_rank(x->comm, &x->rank);
    MPI_Comm_size(x->comm, &x->size);
    x->wr = xmalloc((size_t)x->size * sizeof *x->wr);
    MPI_Allgather(&wrank, 1, MPI_INT, x->wr, 1, MPI_INT, x->comm);
    long sizes[] = { 0, 1, 7, 1001, large };
    int roots[] = { 0, x->size - 1, x->size / 2 };
    for (int si = 0; si < 5; si++) {
        long n = sizes[si];
        int big = si == 4;
        int salt = si;
        test_redscat_scan(x, n, salt);
        long per = n / x->size;
        for (int ri = 0; ri < 3 && (ri == 0 || !big); ri++)
            for (int ip = 0; ip < 2; ip++) {
                test_gatherv(x, per, roots[ri], ip, 0, salt + ri);
                test_scatterv(x, per, roots[ri], ip, 0, salt + ri);
            }
        for (int ri = 0; ri < 3 && (ri == 0 || !big); ri++) {
            test_ibcast(x, n, roots[ri], ri == 1, salt + ri);
            for (int ip = 0; ip < 2; ip++)
                for (int nc = 0; nc < 2; nc++) {
                    test_ireduce(x, n, roots[ri], 0, ip, nc, ri == 2, salt + ri);
                    if (ri == 0)
                        test_ireduce(x, n, 0, 1, ip, nc, ip, salt + 3);
                }
        }
        for (int ip = 0; ip < 2; ip++)
            test_iallgather(x, big ? n / x->size : n, ip, ip == 0 && si % 2, salt);
        CHECK(MPI_Barrier(x->comm) == MPI_SUCCESS, "%s barrier", x->name);
    }
    run_nb(x, large);
    free(x->wr);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    long large = argc > 1 ? atol(argv[1]) : 1L << 18;

    struct ctx base = { 0 };
    MPI_Type_contiguous(2, MPI_UNSIGNED, &base.aff_t);
    MPI_Type_commit(&base.aff_t);
    MPI_Op_create(aff_op, 0, &base.aff_o);

    MPI_Comm node;
    int lrank;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &lrank);

    struct ctx x = base;
    x.comm = MPI_COMM_WORLD;
    x.name = "WORLD";
    run(&x, large);

    /* uneven membership: rank 1 and every fourth rank left out */
    x = base;
    x.name = "subset";
    MPI_Comm_split(MPI_COMM_WORLD, wrank == 1 || wrank % 4 == 3 ? MPI_UNDEFINED : 0, wrank,
                   &x.comm);
    run(&x, large / 4);
    if (x.comm != MPI_COMM_NULL)
        MPI_Comm_free(&x.comm);

    /* interleaved: the node's local index first, so nodes alternate */
    x = base;
    x.name = "interleaved";
    MPI_Comm_split(MPI_COMM_WORLD, 0, lrank * wsize + wrank, &x.comm);
    run(&x, large / 4);
    MPI_Comm_free(&x.comm);

    /* one rank per node: no on-node phase */
    x = base;
    x.name = "leaders";
    MPI_Comm_split(MPI_COMM_WORLD, lrank == 0 ? 0 : MPI_UNDEFINED, wrank, &x.comm);
    run(&x, large / 4);
    if (x.comm != MPI_COMM_NULL)
        MPI_Comm_free(&x.comm);

    MPI_Comm_free(&node);
    MPI_Type_free(&base.aff_t);
    MPI_Op_free(&base.aff_o);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("coll_hier_red: %s (%d failures)\n", all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
