/* Reductions over SMARTMAP: MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter
 * (_block), MPI_Scan and MPI_Exscan (DESIGN.md D6).
 *
 * Every fold runs in rank order, right to left (acc = in[hi]; acc = in[i]
 * op acc for i = hi-1 .. lo), which is the only form smap_op_apply offers
 * (inout = in op inout) and gives in[lo] op ... op in[hi] for any
 * associative op, commutative or not, MINLOC/MAXLOC and user ops included.
 * Scans fold left to right with a copy per step (B = in[i]; B = A op B).
 *
 * Three algorithms (select.c chooses between the first two):
 *   replicated  small vectors: each rank copies its input into its control
 *               block, one sync, and each rank that needs a result folds
 *               all inputs itself straight into its output.
 *   threaded    every rank folds one slice of the element range across all
 *               ranks' user buffers through SMARTMAP views, in chunks that
 *               fit an accumulator in its own control block, and writes the
 *               result slice into every output that needs it.  Closing sync.
 *   staged      the threaded algorithm when some buffer cannot be reached
 *               through a view: per chunk, inputs are copied into the
 *               control blocks, each rank folds a sub-slice into its other
 *               half, and each output owner copies its results out.
 * MPI_IN_PLACE Reduce_scatter runs as an in-place Allreduce over the whole
 * receive buffer followed by a local move of the rank's block. */
#include <stdint.h>
#include <string.h>

#include "base/compiler.h"
#include "coll/select.h"
#include "coll/smap/csm.h"
#include "mpi/op.h"
#include "mpi/op_internal.h"   /* smap_op_loop: the loop resolved once per call */

enum rk { RK_REDUCE, RK_ALLREDUCE, RK_RSCAT, RK_SCAN, RK_EXSCAN };

struct red {
    struct csm_comm *s;
    int kind, root;
    MPI_Count count;            /* elements of the whole vector */
    smap_dtype_t *t;
    MPI_Datatype th;
    MPI_Op op;
    const void *in;             /* this rank's input (out when in place) */
    void *out;
    smap_op_loop_fn *loop;      /* predefined op on a predefined type, or NULL */
    const MPI_Count *disp;      /* RSCAT: block j is [disp[j], disp[j+1]) */
    int own;                    /* replicated: our input is read where it is */
    int err;
};

static inline char *el(const void *base, const smap_dtype_t *t, MPI_Count e)
{
    return (char *)base + e * t->extent;
}
/* (a predefined contiguous type is dense from its base: a plain copy, no
 * trip through the datatype engine for the small vectors) */
static inline void cp(void *dst, const void *src, MPI_Count n, smap_dtype_t *t)
{
    if (n <= 0)
        return;
    if (SMAP_LIKELY((t->flags & (SMAP_DT_PREDEF | SMAP_DT_CONTIG)) ==
                    (SMAP_DT_PREDEF | SMAP_DT_CONTIG)))
        memcpy(dst, src, (size_t)(n * t->size));
    else
        smap_dtype_copy(dst, n, t, src, n, t);
}
static inline void apply(struct red *r, const void *in, void *inout, MPI_Count n)
{
    if (n <= 0)
        return;
    /* the op's loop, resolved once per call, when both are aligned for
     * the type (else smap_op_apply bounces them) */
    if (r->loop && (((uintptr_t)in | (uintptr_t)inout) & (uintptr_t)(r->t->align - 1)) == 0) {
        r->loop(in, inout, n);
        return;
    }
    int e = smap_op_apply(r->op, in, inout, n, r->th);
    if (SMAP_UNLIKELY(e != MPI_SUCCESS) && !r->err)
        r->err = smap_fail(e, "the reduction operation failed");
}
/* Elements whose layout fits `bytes` (0: not even one). */
static MPI_Count cap(const smap_dtype_t *t, size_t bytes)
{
    if ((MPI_Count)bytes < t->true_extent)
        return 0;
    if (t->extent <= 0)
        return 1;
    return ((MPI_Count)bytes - t->true_extent) / t->extent + 1;
}
/* Base of an element buffer whose first byte is at p. */
static inline char *based(void *p, const smap_dtype_t *t)
{
    return (char *)p - t->true_lb;
}

/* Who needs element results, and where (NULL: nobody on rank i). */
static int wants(const struct red *r, int i)
{
    switch (r->kind) {
    case RK_REDUCE: return i == r->root;
    case RK_EXSCAN: return i > 0;
    default: return 1;
    }
}

/* ---- folding ------------------------------------------------------------ */

/* Base of rank i's input for elements from e (chunk-relative base). */
typedef const char *(*in_fn)(const struct red *r, int i, MPI_Count e, MPI_Count n,
                             const void *ctx);

static void fold(struct red *r, void *acc, int hi, in_fn in, const void *ctx, MPI_Count e,
                 MPI_Count n)
{
    cp(acc, in(r, hi, e, n, ctx), n, r->t);
    for (int i = hi - 1; i >= 0; i--)
        apply(r, in(r, i, e, n, ctx), acc, n);
}

/* Inputs in the control blocks of step *ctx, element 0 at the payload. */
static const char *in_pay(const struct red *r, int i, MPI_Count e, MPI_Count n, const void *ctx)
{
    (void)n;
    if (r->own && i == r->s->me)
        return el(r->in, r->t, e);
    return el(based(csm_pay(r->s, i, *(const uint64_t *)ctx), r->t), r->t, e);
}
/* The same for a vector small enough for the cell of step *ctx. */
static const char *in_cell(const struct red *r, int i, MPI_Count e, MPI_Count n, const void *ctx)
{
    (void)n;
    if (r->own && i == r->s->me)
        return el(r->in, r->t, e);
    return el(based((char *)csm_cell(r->s, i, *(const uint64_t *)ctx)->data, r->t), r->t, e);
}

/* ---- the step-one signature --------------------------------------------- */

/* Every rank picks its path (replicated or threaded) from its own byte
 * count, so counts that differ between the ranks would put them on paths
 * with different steps, and one would wait forever or read past another's
 * buffer (issue 36).  Step one of both paths publishes the rank's cell,
 * so its meta carries the path and the bytes (a store into a line
 * published anyway); a rank that waits for the others at step one
 * compares theirs with its own (a load from lines it polled anyway), and
 * on a difference every such rank leaves after step one, which all paths
 * share: the steps stay aligned. */
enum { SIG_REPLICATED = 1, SIG_THREADED = 2 };

static uint64_t sig_of(const struct red *r, unsigned path)
{
    return csm_meta_other((uint64_t)(r->count * r->t->size), path << 6);
}

static SMAP_COLD int sig_mismatch(const struct red *r, uint64_t t, uint64_t mine)
{
    for (int i = 0; i < r->s->n; i++)
        if (i != r->s->me && (csm_cell(r->s, i, t)->meta >> 32) > (mine >> 32))
            return smap_fail(MPI_ERR_TRUNCATE,
                            "another rank reduces more data than this one (counts or types "
                            "differ between the ranks): its elements are lost here");
    return smap_fail(MPI_ERR_OTHER, "another rank reduces a different amount of data (counts or "
                                   "types differ between the ranks)");
}

/* After a step one that waited for every peer. */
static inline int sig_check(const struct red *r, uint64_t t, uint64_t mine)
{
    for (int i = 0; i < r->s->n; i++)
        if (SMAP_UNLIKELY(csm_cell(r->s, i, t)->meta != mine) && i != r->s->me)
            return sig_mismatch(r, t, mine);
    return MPI_SUCCESS;
}

/* ---- replicated --------------------------------------------------------- */

static int replicated(struct red *r)
{
    struct csm_comm *s = r->s;
    uint64_t t = csm_next(s);
    /* inline in the cell that publishes the step: a peer's input arrives
     * with the one line it polls */
    int tiny = csm_span(r->t, r->count) <= (MPI_Count)CSM_CELL_BYTES;
    /* A Reduce root folds its own input where it is (unless in place: the
     * fold writes there) and writes nothing a peer reads, so it need not
     * wait for peers to be done with its area: one cache-line transfer
     * less on the critical path. */
    r->own = r->kind == RK_REDUCE && s->me == r->root && r->in != r->out;
    uint64_t sig = sig_of(r, SIG_REPLICATED);
    int rc;
    if (!r->own) {
        if ((rc = tiny ? csm_prepare_cell(s) : csm_prepare(s)))
            return rc;
        char *mine = tiny ? (char *)csm_cell(s, s->me, t)->data : csm_pay(s, s->me, t);
        cp(based(mine, r->t), r->in, r->count, r->t);
    } else if ((rc = csm_prepare_cell(s))) {   /* free: a root waited for all last time */
        return rc;
    }
    csm_cell(s, s->me, t)->meta = sig;
    /* Reduce: only the root reads, so only it waits */
    int who = r->kind != RK_REDUCE ? CSM_ALL : s->me == r->root ? CSM_ALL : CSM_NONE;
    if (r->kind == RK_REDUCE && s->me == r->root)
        csm_consume();   /* the others wait for nobody: let them leave a barrier first */
    if ((rc = csm_sync_some(s, who)))
        return rc;
    if (who == CSM_ALL && (rc = sig_check(r, t, sig)))
        return rc;
    int me = s->me, hi = s->n - 1;
    MPI_Count e = 0, n = r->count;
    switch (r->kind) {
    case RK_REDUCE:
        if (me != r->root)
            return MPI_SUCCESS;
        break;
    case RK_RSCAT:
        e = r->disp[me];
        n = r->disp[me + 1] - e;
        break;
    case RK_SCAN: hi = me; break;
    case RK_EXSCAN:
        if (me == 0)
            return MPI_SUCCESS;
        hi = me - 1;
        break;
    default: break;
    }
    fold(r, r->out, hi, tiny ? in_cell : in_pay, &t, e, n);
    return r->err;
}

/* ---- threaded over views ------------------------------------------------ */

/* Rank i's user input through our view, chunk-relative base for e. */
static const char *in_view(const struct red *r, int i, MPI_Count e, MPI_Count n, const void *ctx)
{
    const struct csm_desc *d = csm_desc(r->s, i, *(const uint64_t *)ctx);
    if (i == r->s->me)
        return el(r->in, r->t, e);
    char *v = csm_view(r->s, i, d->in + (uint64_t)(e * r->t->extent + r->t->true_lb),
                       (size_t)csm_span(r->t, n));
    return v ? based(v, r->t) : NULL;
}

static char *out_view(struct red *r, int i, uint64_t t0, MPI_Count e, MPI_Count n)
{
    if (i == r->s->me)
        return el(r->out, r->t, e);
    const struct csm_desc *d = csm_desc(r->s, i, t0);
    char *v = csm_view(r->s, i, d->out + (uint64_t)(e * r->t->extent + r->t->true_lb),
                       (size_t)csm_span(r->t, n));
    return v ? based(v, r->t) : NULL;
}

/* Result elements [e, e+n) in acc go to every output that wants them
 * (but `skip`'s, which acc already is). */
static void deliver(struct red *r, uint64_t t0, const char *acc, MPI_Count e, MPI_Count n,
                    int skip)
{
    for (int i = 0; i < r->s->n; i++) {
        if (!wants(r, i) || i == skip)
            continue;
        MPI_Count lo = e, hi = e + n, at = e;
        if (r->kind == RK_RSCAT) {
            lo = lo > r->disp[i] ? lo : r->disp[i];
            hi = hi < r->disp[i + 1] ? hi : r->disp[i + 1];
            at = lo - r->disp[i];
        }
        if (hi > lo)
            cp(out_view(r, i, t0, at, hi - lo), el(acc, r->t, lo - e), hi - lo, r->t);
    }
}

static void threaded_scan(struct red *r, uint64_t t0, char *pay, MPI_Count a, MPI_Count b)
{
    MPI_Count chunk = cap(r->t, CSM_PAY_BYTES / 2);
    char *A = based(pay, r->t), *B = based(pay + CSM_PAY_BYTES / 2, r->t);
    for (MPI_Count e = a; e < b; e += chunk) {
        MPI_Count n = b - e < chunk ? b - e : chunk;
        cp(A, in_view(r, 0, e, n, &t0), n, r->t);
        if (r->kind == RK_SCAN)
            cp(out_view(r, 0, t0, e, n), A, n, r->t);
        for (int i = 1; i < r->s->n; i++) {
            cp(B, in_view(r, i, e, n, &t0), n, r->t);   /* before out_i is written */
            if (r->kind == RK_EXSCAN)
                cp(out_view(r, i, t0, e, n), A, n, r->t);
            apply(r, A, B, n);
            if (r->kind == RK_SCAN)
                cp(out_view(r, i, t0, e, n), B, n, r->t);
            char *x = A;
            A = B;
            B = x;
        }
    }
}

static void threaded(struct red *r, uint64_t t0)
{
    struct csm_comm *s = r->s;
    MPI_Count a = r->count * s->me / s->n, b = r->count * (s->me + 1) / s->n;
    /* our other half: nobody reads it before we publish the next step */
    char *pay = csm_pay(s, s->me, t0 + 1);
    if (r->kind == RK_SCAN || r->kind == RK_EXSCAN) {
        threaded_scan(r, t0, pay, a, b);
        return;
    }
    /* Fold straight into an output that is not also an input (our own for
     * Allreduce, the root's for Reduce): one pass less over the data. */
    int owner = -1;
    if (r->kind == RK_ALLREDUCE && r->in != r->out)
        owner = s->me;
    else if (r->kind == RK_REDUCE && csm_desc(s, r->root, t0)->in != csm_desc(s, r->root, t0)->out)
        owner = r->root;
    MPI_Count chunk = cap(r->t, CSM_FOLD_BYTES);
    if (chunk <= 0)   /* an element wider than a fold chunk */
        chunk = cap(r->t, CSM_PAY_BYTES);
    for (MPI_Count e = a; e < b; e += chunk) {
        MPI_Count n = b - e < chunk ? b - e : chunk;
        char *acc = owner >= 0 ? out_view(r, owner, t0, e, n) : based(pay, r->t);
        fold(r, acc, s->n - 1, in_view, &t0, e, n);
        deliver(r, t0, acc, e, n, owner);
    }
}

/* ---- staged through the control blocks ---------------------------------- */

static MPI_Count scan_slot(const struct red *r)
{
    return (MPI_Count)((CSM_PAY_BYTES / (size_t)r->s->n) & ~(size_t)63);
}

static MPI_Count staged_chunk(const struct red *r)
{
    MPI_Count c = cap(r->t, CSM_PAY_BYTES);
    if (r->kind == RK_SCAN || r->kind == RK_EXSCAN) {
        MPI_Count per = cap(r->t, (size_t)scan_slot(r)) * r->s->n;
        c = per < c ? per : c;
    }
    return c;
}

/* Sub-slice k of a chunk of m elements. */
static inline MPI_Count sub(MPI_Count m, int k, int n)
{
    return m * k / n;
}

static void staged_compute(struct red *r, uint64_t t, MPI_Count m)
{
    struct csm_comm *s = r->s;
    MPI_Count a = sub(m, s->me, s->n), b = sub(m, s->me + 1, s->n);
    char *out = based(csm_pay(s, s->me, t + 1), r->t);
    if (b <= a)
        return;
    if (r->kind != RK_SCAN && r->kind != RK_EXSCAN) {
        fold(r, out, s->n - 1, in_pay, &t, a, b - a);
        return;
    }
    MPI_Count slot = scan_slot(r);
    cp(out, in_pay(r, 0, a, b - a, &t), b - a, r->t);
    for (int i = 1; i < s->n; i++) {
        char *prev = out + (i - 1) * slot, *cur = out + i * slot;
        cp(cur, in_pay(r, i, a, b - a, &t), b - a, r->t);
        apply(r, prev, cur, b - a);
    }
}

static void staged_take(struct red *r, uint64_t t, MPI_Count e0, MPI_Count m)
{
    struct csm_comm *s = r->s;
    int me = s->me;
    if (!wants(r, me))
        return;
    for (int k = 0; k < s->n; k++) {
        MPI_Count a = sub(m, k, s->n), b = sub(m, k + 1, s->n);
        MPI_Count lo = e0 + a, hi = e0 + b, at = lo;
        if (hi <= lo)
            continue;
        const char *src = based(csm_pay(s, k, t + 1), r->t);
        if (r->kind == RK_SCAN)
            src += me * scan_slot(r);
        else if (r->kind == RK_EXSCAN)
            src += (me - 1) * scan_slot(r);
        if (r->kind == RK_RSCAT) {
            lo = lo > r->disp[me] ? lo : r->disp[me];
            hi = hi < r->disp[me + 1] ? hi : r->disp[me + 1];
            at = lo - r->disp[me];
        }
        if (hi > lo)
            cp(el(r->out, r->t, at), el(src, r->t, lo - (e0 + a)), hi - lo, r->t);
    }
}

static int staged(struct red *r)
{
    struct csm_comm *s = r->s;
    MPI_Count chunk = staged_chunk(r);
    if (chunk <= 0)
        return smap_fail(MPI_ERR_UNSUPPORTED_OPERATION,
                        "datatype too large for the collectives' staging buffers");
    for (MPI_Count e0 = 0; e0 < r->count; e0 += chunk) {
        MPI_Count m = r->count - e0 < chunk ? r->count - e0 : chunk;
        uint64_t t = csm_next(s);
        cp(based(csm_pay(s, s->me, t), r->t), el(r->in, r->t, e0), m, r->t);
        int rc = csm_sync(s);
        if (rc)
            return rc;
        staged_compute(r, t, m);
        if ((rc = csm_sync(s)))
            return rc;
        staged_take(r, t, e0, m);
    }
    return r->err;
}

/* ---- driver ------------------------------------------------------------- */

static int reachable(const struct red *r)
{
    size_t span = (size_t)csm_span(r->t, r->count);
    int me = r->s->me;
    if (!csm_exposed(csm_lo(r->in, r->t), span))
        return 0;
    if (!wants(r, me) || r->out == r->in)
        return 1;
    MPI_Count n = r->kind == RK_RSCAT ? r->disp[me + 1] - r->disp[me] : r->count;
    return n == 0 || csm_exposed(csm_lo(r->out, r->t), (size_t)csm_span(r->t, n));
}

static int run(struct red *r, enum smap_coll_id id)
{
    struct csm_comm *s = r->s;
    if (smap_coll_select(id, (size_t)(r->count * r->t->size), s->n) == SMAP_ALGO_INLINE &&
        cap(r->t, CSM_PAY_BYTES) >= r->count)
        return replicated(r);
    uint64_t t0 = csm_next(s);
    int rc = csm_prepare(s);
    if (rc)
        return rc;
    struct csm_desc *d = csm_desc(s, s->me, t0);
    d->in = (uint64_t)(uintptr_t)r->in;
    d->out = (uint64_t)(uintptr_t)r->out;
    d->flags = reachable(r) ? CSM_F_DIRECT_OK : 0;
    uint64_t sig = sig_of(r, SIG_THREADED);
    csm_cell(s, s->me, t0)->meta = sig;
    rc = csm_sync(s);
    if (rc || (rc = sig_check(r, t0, sig)))
        return rc;
    int all = 1;
    for (int i = 0; i < s->n; i++)
        all &= (csm_desc(s, i, t0)->flags & CSM_F_DIRECT_OK) != 0;
    if (!all)
        return staged(r);
    threaded(r, t0);
    rc = csm_sync(s);   /* peers are done with our buffers */
    return rc ? rc : r->err;
}

/* The loop of a predefined op on a predefined type (what smap_op_apply
 * would look up on every application), or NULL. */
static smap_op_loop_fn *loop_of(MPI_Op op, const smap_dtype_t *t)
{
    if (!(t->flags & SMAP_DT_PREDEF))
        return NULL;
    struct MPI_ABI_Op *o = smap_op_get(op);
    if (!o || !o->predefined || o->opx == SMAP_OPX_REPLACE || o->opx == SMAP_OPX_NO_OP)
        return NULL;
    smap_op_loop_fn *fn;
    const char *why;
    return smap_op_loop(o->opx, t, &fn, &why) == MPI_SUCCESS ? fn : NULL;
}

static int setup(struct red *r, smap_comm_t *c, const void *sbuf, void *rbuf)
{
    r->in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    r->out = rbuf;
    r->loop = loop_of(r->op, r->t);
    return csm_get(c, &r->s);
}

int smap_cb_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                     MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c)
{
    if (c->size == 1) {
        if (sbuf != MPI_IN_PLACE)
            cp(rbuf, sbuf, count, t);
        return MPI_SUCCESS;
    }
    struct red r = { .kind = RK_REDUCE, .root = root, .count = count, .t = t, .th = type,
                     .op = op };
    int rc = setup(&r, c, sbuf, rbuf);
    return rc ? rc : run(&r, SMAP_COLL_REDUCE);
}

int smap_cb_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                        MPI_Datatype type, MPI_Op op, smap_comm_t *c)
{
    if (c->size == 1) {
        if (sbuf != MPI_IN_PLACE)
            cp(rbuf, sbuf, count, t);
        return MPI_SUCCESS;
    }
    struct red r = { .kind = RK_ALLREDUCE, .count = count, .t = t, .th = type, .op = op };
    int rc = setup(&r, c, sbuf, rbuf);
    return rc ? rc : run(&r, SMAP_COLL_ALLREDUCE);
}

/* In place: the rank's block moves from its offset to the buffer's start
 * (forward, element by element, so an overlap is read before written). */
static void shift_block(void *buf, MPI_Count from, MPI_Count n, smap_dtype_t *t)
{
    if (from == 0 || n == 0)
        return;
    if (smap_dtype_is_contiguous(t)) {
        char *base = csm_dense(buf, t);
        memmove(base, base + from * t->size, (size_t)(n * t->size));
        return;
    }
    for (MPI_Count e = 0; e < n; e++)
        cp(el(buf, t, e), el(buf, t, from + e), 1, t);
}

int smap_cb_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                             MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                             smap_comm_t *c)
{
    struct red r = { .kind = RK_RSCAT, .t = t, .th = type, .op = op };
    int rc = setup(&r, c, sbuf, rbuf);
    if (rc)
        return rc;
    MPI_Count *disp = r.s->disp;
    disp[0] = 0;
    for (int j = 0; j < c->size; j++)
        disp[j + 1] = disp[j] + (rcounts.p ? smap_cvec_at(rcounts, j) : block);
    r.count = disp[c->size];
    r.disp = disp;
    if (r.count == 0)
        return MPI_SUCCESS;
    if (c->size == 1) {
        if (sbuf != MPI_IN_PLACE)
            cp(rbuf, sbuf, r.count, t);
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)(r.count * t->size);
    if (sbuf != MPI_IN_PLACE ||
        (smap_coll_select(SMAP_COLL_REDUCE_SCATTER, bytes, c->size) == SMAP_ALGO_INLINE &&
         cap(t, CSM_PAY_BYTES) >= r.count))
        return run(&r, SMAP_COLL_REDUCE_SCATTER);
    MPI_Count from = disp[c->rank], n = disp[c->rank + 1] - from;
    r.kind = RK_ALLREDUCE;
    rc = run(&r, SMAP_COLL_REDUCE_SCATTER);
    if (rc == MPI_SUCCESS)
        shift_block(rbuf, from, n, t);
    return rc;
}

int smap_cb_scan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                   MPI_Datatype type, MPI_Op op, int exclusive, smap_comm_t *c)
{
    if (c->size == 1) {
        if (!exclusive && sbuf != MPI_IN_PLACE)
            cp(rbuf, sbuf, count, t);
        return MPI_SUCCESS;
    }
    struct red r = { .kind = exclusive ? RK_EXSCAN : RK_SCAN, .count = count, .t = t,
                     .th = type, .op = op };
    int rc = setup(&r, c, sbuf, rbuf);
    return rc ? rc : run(&r, SMAP_COLL_SCAN);
}
