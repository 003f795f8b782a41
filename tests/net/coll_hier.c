/* Collectives on communicators spanning nodes (src/coll/hier): Barrier,
 * Bcast, Reduce, Allreduce, Allgather(v), Alltoall(v,w) (also as
 * Ialltoall(v,w) and their _init forms), Gather and Scatter checked against serial references, on WORLD and sub-communicators whose node membership is uneven, whose order
 * interleaves the nodes, or that hold one rank per node; sizes 0, 1, odd
 * and large (many pipeline chunks); a commutative op (MPI_SUM on int), a
 * non-commutative user op on a derived type (composition of affine maps
 * x -> m x + c, two unsigned per element), MINLOC on MPI_2INT, a type
 * with holes (which must stay untouched), in place.
 *   coll_hier [large_elems]   (default 1<<19 ints: 2 MiB) */
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

/* ---- inputs, deterministic per (rank, element, salt) ---- */
static int ival(int r, long i, int salt)
{
    return (int)((r * 7919L + i * 31L + salt * 101L) % 1000) - 500;
}

/* affine map x -> m x + c (mod 2^32); in op inout = in after... we fold
 * left to right: result = f0 o f1 o ... (f0 applied last) */
typedef struct {
    unsigned m, c;
} aff;

static aff aval(int r, long i, int salt)
{
    aff a = { (unsigned)(2 * ((r + i + salt) % 13) + 1), (unsigned)(r * 17 + i * 3 + salt) };
    return a;
}

/* (a o b)(x) = a(b(x)) = am (bm x + bc) + ac */
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

/* ---- one communicator ---- */
struct ctx {
    MPI_Comm comm;
    int rank, size;
    int *wr;          /* world rank of every rank */
    const char *name;
    MPI_Datatype aff_t, holey_t;
    MPI_Op aff_o;
};

static void test_sum(struct ctx *x, long n, int root, int in_place, int all, int salt)
{
    int *s = malloc((size_t)(n ? n : 1) * sizeof *s), *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    for (long i = 0; i < n; i++) {
        s[i] = ival(x->wr[x->rank], i, salt);
        r[i] = -7;
    }
    int me_root = all || x->rank == root, rc;
    const void *sb = s;
    if (in_place && me_root) {
        memcpy(r, s, (size_t)n * sizeof *s);
        sb = MPI_IN_PLACE;
    }
    if (all)
        rc = MPI_Allreduce(sb, r, (int)n, MPI_INT, MPI_SUM, x->comm);
    else
        rc = MPI_Reduce(sb, r, (int)n, MPI_INT, MPI_SUM, root, x->comm);
    CHECK(rc == MPI_SUCCESS, "%s sum rc %d", x->name, rc);
    if (me_root)
        for (long i = 0; i < n; i++) {
            int want = 0;
            for (int k = 0; k < x->size; k++)
                want += ival(x->wr[k], i, salt);
            if (r[i] != want) {
                CHECK(0, "%s %s sum n=%ld root=%d inplace=%d: [%ld] %d want %d", x->name,
                      all ? "allreduce" : "reduce", n, root, in_place, i, r[i], want);
                break;
            }
        }
    else
        for (long i = 0; i < n; i++)
            if (r[i] != -7) {
                CHECK(0, "%s reduce wrote a non-root's recvbuf", x->name);
                break;
            }
    free(s), free(r);
}

static void test_aff(struct ctx *x, long n, int root, int in_place, int all, int salt)
{
    aff *s = malloc((size_t)(n ? n : 1) * sizeof *s), *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    for (long i = 0; i < n; i++) {
        s[i] = aval(x->wr[x->rank], i, salt);
        r[i] = (aff){ 0, 0 };
    }
    int me_root = all || x->rank == root, rc;
    const void *sb = s;
    if (in_place && me_root) {
        memcpy(r, s, (size_t)n * sizeof *s);
        sb = MPI_IN_PLACE;
    }
    if (all)
        rc = MPI_Allreduce(sb, r, (int)n, x->aff_t, x->aff_o, x->comm);
    else
        rc = MPI_Reduce(sb, r, (int)n, x->aff_t, x->aff_o, root, x->comm);
    CHECK(rc == MPI_SUCCESS, "%s aff rc %d", x->name, rc);
    if (me_root)
        for (long i = 0; i < n; i++) {
            aff want = aval(x->wr[x->size - 1], i, salt);
            for (int k = x->size - 2; k >= 0; k--)
                want = compose(aval(x->wr[k], i, salt), want);
            if (r[i].m != want.m || r[i].c != want.c) {
                CHECK(0, "%s %s non-commutative n=%ld root=%d inplace=%d: [%ld] (%u,%u) want (%u,%u)",
                      x->name, all ? "allreduce" : "reduce", n, root, in_place, i, r[i].m,
                      r[i].c, want.m, want.c);
                break;
            }
        }
    free(s), free(r);
}

static void test_minloc(struct ctx *x, long n, int salt)
{
    struct {
        int v, i;
    } *s = malloc((size_t)(n ? n : 1) * sizeof *s), *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    for (long i = 0; i < n; i++) {
        s[i].v = ival(x->wr[x->rank], i, salt) % 5;   /* ties: the lowest index wins */
        s[i].i = x->rank;
    }
    int rc = MPI_Allreduce(s, r, (int)n, MPI_2INT, MPI_MINLOC, x->comm);
    CHECK(rc == MPI_SUCCESS, "%s minloc rc %d", x->name, rc);
    for (long i = 0; i < n; i++) {
        int bv = 0, bi = -1;
        for (int k = 0; k < x->size; k++) {
            int v = ival(x->wr[k], i, salt) % 5;
            if (bi < 0 || v < bv)
                bv = v, bi = k;
        }
        if (r[i].v != bv || r[i].i != bi) {
            CHECK(0, "%s minloc n=%ld [%ld] (%d,%d) want (%d,%d)", x->name, n, i, r[i].v,
                  r[i].i, bv, bi);
            break;
        }
    }
    free(s), free(r);
}

/* MPI_INT resized to extent 8: every other int is a hole left alone. */
static void test_holey(struct ctx *x, long n, int salt)
{
    int *s = malloc((size_t)(2 * n + 1) * sizeof *s), *r = malloc((size_t)(2 * n + 1) * sizeof *r);
    for (long i = 0; i < 2 * n + 1; i++) {
        s[i] = i % 2 ? 12345 : ival(x->wr[x->rank], i / 2, salt);
        r[i] = 777;
    }
    int rc = MPI_Allreduce(s, r, (int)n, x->holey_t, MPI_SUM, x->comm);
    CHECK(rc == MPI_SUCCESS, "%s holey rc %d", x->name, rc);
    for (long i = 0; i < n; i++) {
        int want = 0;
        for (int k = 0; k < x->size; k++)
            want += ival(x->wr[k], i, salt);
        if (r[2 * i] != want || r[2 * i + 1] != 777) {
            CHECK(0, "%s holey n=%ld [%ld] %d (hole %d) want %d", x->name, n, i, r[2 * i],
                  r[2 * i + 1], want);
            break;
        }
    }
    free(s), free(r);
}

static void test_bcast(struct ctx *x, long n, int root, int salt)
{
    int *b = malloc((size_t)(n ? n : 1) * sizeof *b);
    for (long i = 0; i < n; i++)
        b[i] = x->rank == root ? ival(root, i, salt) : -1;
    int rc = MPI_Bcast(b, (int)n, MPI_INT, root, x->comm);
    CHECK(rc == MPI_SUCCESS, "%s bcast rc %d", x->name, rc);
    for (long i = 0; i < n; i++)
        if (b[i] != ival(root, i, salt)) {
            CHECK(0, "%s bcast n=%ld root=%d [%ld] %d want %d", x->name, n, root, i, b[i],
                  ival(root, i, salt));
            break;
        }
    /* a derived type with holes */
    int *h = malloc((size_t)(2 * n + 1) * sizeof *h);
    for (long i = 0; i < 2 * n + 1; i++)
        h[i] = i % 2 ? -3 : (x->rank == root ? ival(root, i / 2, salt + 1) : -1);
    rc = MPI_Bcast(h, (int)n, x->holey_t, root, x->comm);
    CHECK(rc == MPI_SUCCESS, "%s bcast holey rc %d", x->name, rc);
    for (long i = 0; i < n; i++)
        if (h[2 * i] != ival(root, i, salt + 1) || h[2 * i + 1] != -3) {
            CHECK(0, "%s bcast holey n=%ld root=%d [%ld]", x->name, n, root, i);
            break;
        }
    free(b), free(h);
}

/* Allgather of n ints (in place or not), and Allgatherv with uneven
 * counts (rank k gives n + k % 3 elements), blocks in reverse rank order
 * with a gap of one element after each, which must stay untouched. */
static void test_allgather(struct ctx *x, long n, int in_place, int salt)
{
    int p = x->size;
    int *s = malloc((size_t)(n + 3) * sizeof *s);
    int *r = malloc((size_t)(p * (n + 4) + 1) * sizeof *r);
    for (long i = 0; i < n + 3; i++)
        s[i] = ival(x->wr[x->rank], i, salt);
    for (long i = 0; i < p * n; i++)
        r[i] = -9;
    if (in_place)
        memcpy(r + x->rank * n, s, (size_t)n * sizeof *s);
    int rc = MPI_Allgather(in_place ? MPI_IN_PLACE : s, (int)n, MPI_INT, r, (int)n, MPI_INT,
                           x->comm);
    CHECK(rc == MPI_SUCCESS, "%s allgather rc %d", x->name, rc);
    for (int k = 0; k < p; k++)
        for (long i = 0; i < n; i++)
            if (r[k * n + i] != ival(x->wr[k], i, salt)) {
                CHECK(0, "%s allgather n=%ld inplace=%d: block %d [%ld] %d want %d", x->name, n,
                      in_place, k, i, r[k * n + i], ival(x->wr[k], i, salt));
                k = p;
                break;
            }
    int *counts = malloc((size_t)p * sizeof *counts), *displs = malloc((size_t)p * sizeof *displs);
    int off = 0;
    for (int k = p - 1; k >= 0; k--) {
        counts[k] = (int)n + k % 3;
        displs[k] = off;
        off += counts[k] + 1;
    }
    for (int i = 0; i < off; i++)
        r[i] = -9;
    if (in_place)
        memcpy(r + displs[x->rank], s, (size_t)counts[x->rank] * sizeof *s);
    rc = MPI_Allgatherv(in_place ? MPI_IN_PLACE : s, counts[x->rank], MPI_INT, r, counts, displs,
                        MPI_INT, x->comm);
    CHECK(rc == MPI_SUCCESS, "%s allgatherv rc %d", x->name, rc);
    for (int k = 0; k < p; k++) {
        for (long i = 0; i < counts[k]; i++)
            if (r[displs[k] + i] != ival(x->wr[k], i, salt)) {
                CHECK(0, "%s allgatherv n=%ld inplace=%d: block %d [%ld] %d want %d", x->name, n,
                      in_place, k, i, r[displs[k] + i], ival(x->wr[k], i, salt));
                break;
            }
        if (r[displs[k] + counts[k]] != -9)
            CHECK(0, "%s allgatherv n=%ld: the gap after block %d was written", x->name, n, k);
    }
    free(s), free(r), free(counts), free(displs);
}

/* Allgather of a type with holes (MPI_INT resized to 2 ints) received as
 * n ints into a contiguous buffer: the signatures match, the layouts not. */
static void test_allgather_holey(struct ctx *x, long n, int salt)
{
    int p = x->size;
    int *s = malloc((size_t)(2 * n + 1) * sizeof *s), *r = malloc((size_t)(p * n + 1) * sizeof *r);
    for (long i = 0; i < 2 * n + 1; i++)
        s[i] = i % 2 ? 4242 : ival(x->wr[x->rank], i / 2, salt);
    int rc = MPI_Allgather(s, (int)n, x->holey_t, r, (int)n, MPI_INT, x->comm);
    CHECK(rc == MPI_SUCCESS, "%s allgather holey rc %d", x->name, rc);
    for (int k = 0; k < p; k++)
        for (long i = 0; i < n; i++)
            if (r[k * n + i] != ival(x->wr[k], i, salt)) {
                CHECK(0, "%s allgather holey n=%ld block %d [%ld]", x->name, n, k, i);
                k = p;
                break;
            }
    free(s), free(r);
}

/* The element i of the block rank `from` sends rank `to`. */
static int a2a_val(int from, int to, long i, int salt)
{
    return ival(from * 64 + to, i, salt);
}

/* Alltoall of n ints per pair, plain or in place, and with a holey send
 * type received as ints. */
static int a2a_call(struct ctx *x, const void *s, MPI_Datatype st, int *r, long n, int nb)
{
    MPI_Request rq;
    int rc;
    if (nb == 0)
        return MPI_Alltoall(s, (int)n, st, r, (int)n, MPI_INT, x->comm);
    if (nb == 1)
        rc = MPI_Ialltoall(s, (int)n, st, r, (int)n, MPI_INT, x->comm, &rq);
    else
        rc = MPI_Alltoall_init(s, (int)n, st, r, (int)n, MPI_INT, x->comm, MPI_INFO_NULL, &rq);
    if (rc == MPI_SUCCESS && nb == 2)
        rc = MPI_Start(&rq);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (nb == 2)
        MPI_Request_free(&rq);
    return rc;
}

/* (nb: 0 blocking, 1 Ialltoall, 2 Alltoall_init) */
static void test_alltoall(struct ctx *x, long n, int in_place, int salt, int nb)
{
    int p = x->size, me = x->wr[x->rank];
    int *s = malloc((size_t)(2 * p * n + 1) * sizeof *s), *r = malloc((size_t)(p * n + 1) * sizeof *r);
    for (int k = 0; k < p; k++)
        for (long i = 0; i < n; i++) {
            s[k * n + i] = a2a_val(me, x->wr[k], i, salt);
            r[k * n + i] = in_place ? s[k * n + i] : -5;
        }
    int rc = a2a_call(x, in_place ? MPI_IN_PLACE : s, MPI_INT, r, n, nb);
    CHECK(rc == MPI_SUCCESS, "%s alltoall nb=%d rc %d", x->name, nb, rc);
    for (int k = 0; k < p; k++)
        for (long i = 0; i < n; i++)
            if (r[k * n + i] != a2a_val(x->wr[k], me, i, salt)) {
                CHECK(0, "%s alltoall nb=%d n=%ld inplace=%d: from %d [%ld] %d want %d", x->name,
                      nb, n, in_place, k, i, r[k * n + i], a2a_val(x->wr[k], me, i, salt));
                k = p;
                break;
            }
    if (!in_place) {
        for (long i = 0; i < 2 * p * n; i++)
            s[i] = i % 2 ? 4242 : a2a_val(me, x->wr[i / 2 / (n ? n : 1)], (i / 2) % (n ? n : 1), salt);
        rc = a2a_call(x, s, x->holey_t, r, n, nb);
        CHECK(rc == MPI_SUCCESS, "%s alltoall holey nb=%d rc %d", x->name, nb, rc);
        for (int k = 0; k < p; k++)
            for (long i = 0; i < n; i++)
                if (r[k * n + i] != a2a_val(x->wr[k], me, i, salt)) {
                    CHECK(0, "%s alltoall holey nb=%d n=%ld: from %d [%ld]", x->name, nb, n, k,
                          i);
                    k = p;
                    break;
                }
    }
    free(s), free(r);
}

/* Ints rank `from` sends rank `to` in Alltoallv/w: uneven, some zero;
 * in place (sym) the same both ways (send and receive share the counts). */
static int a2av_cnt(int from, int to, long n, int sym)
{
    if (sym && from > to)
        return a2av_cnt(to, from, n, 0);
    if (n == 0 || (from * 3 + to * 5) % 4 == 0)
        return 0;
    return (int)(n + (from + 2 * to) % 3);
}

/* One Alltoallv/w layout: counts, displacements (elements, bytes), types
 * and the buffers' lengths in ints. */
struct a2av {
    int *sc, *sd, *rc, *rd, *sdb, *rdb;
    int *ri;           /* where each received block starts, in ints */
    MPI_Datatype *st, *rt, vrt;   /* vrt: Alltoallv's receive type */
    int *sw, *rw;      /* ints per element: 2 for the holey type */
    long slen, rlen;
};

/* Both sides' blocks in reverse order with gaps; w: every other peer's
 * send block of the holey type, and every other (the other parity) receive
 * block; v with vholey: every receive block of the holey type (its
 * displacements in units of its extent, two ints). */
static void a2av_layout(struct ctx *x, struct a2av *l, long n, int w, int sym, int vholey)
{
    int p = x->size, me = x->wr[x->rank];
    l->sc = malloc(9 * (size_t)p * sizeof *l->sc);
    l->sd = l->sc + p, l->rc = l->sd + p, l->rd = l->rc + p, l->sdb = l->rd + p;
    l->rdb = l->sdb + p, l->sw = l->rdb + p, l->rw = l->sw + p, l->ri = l->rw + p;
    l->st = malloc(2 * (size_t)p * sizeof *l->st), l->rt = l->st + p;
    l->vrt = vholey && !w ? x->holey_t : MPI_INT;
    l->slen = l->rlen = 0;
    for (int k = p - 1; k >= 0; k--) {   /* (vholey: rlen stays even) */
        l->sw[k] = w && k % 2 ? 2 : 1;
        l->rw[k] = w ? (k % 2 == 0 ? 2 : 1) : (l->vrt == MPI_INT ? 1 : 2);
        l->sc[k] = a2av_cnt(me, x->wr[k], n, sym);
        l->rc[k] = a2av_cnt(x->wr[k], me, n, sym);
        l->sd[k] = (int)l->slen, l->sdb[k] = (int)(l->slen * (long)sizeof(int));
        l->ri[k] = (int)l->rlen, l->rdb[k] = (int)(l->rlen * (long)sizeof(int));
        l->rd[k] = w ? l->ri[k] : l->ri[k] / l->rw[k];
        l->slen += (long)l->sc[k] * l->sw[k] + 1;
        l->rlen += (long)l->rc[k] * l->rw[k] + 2;
        l->st[k] = l->sw[k] == 2 ? x->holey_t : MPI_INT;
        l->rt[k] = l->rw[k] == 2 ? x->holey_t : MPI_INT;
    }
}

/* (nb: 0 blocking, 1 I-form, 2 _init: *rq made, not started) */
static int a2av_call(struct ctx *x, struct a2av *l, const void *s, int *r, int w, int nb,
                     MPI_Request *rq)
{
    if (w && nb == 0)
        return MPI_Alltoallw(s, l->sc, l->sdb, l->st, r, l->rc, l->rdb, l->rt, x->comm);
    if (w && nb == 1)
        return MPI_Ialltoallw(s, l->sc, l->sdb, l->st, r, l->rc, l->rdb, l->rt, x->comm, rq);
    if (w)
        return MPI_Alltoallw_init(s, l->sc, l->sdb, l->st, r, l->rc, l->rdb, l->rt, x->comm,
                                  MPI_INFO_NULL, rq);
    if (nb == 0)
        return MPI_Alltoallv(s, l->sc, l->sd, MPI_INT, r, l->rc, l->rd, l->vrt, x->comm);
    if (nb == 1)
        return MPI_Ialltoallv(s, l->sc, l->sd, MPI_INT, r, l->rc, l->rd, l->vrt, x->comm, rq);
    return MPI_Alltoallv_init(s, l->sc, l->sd, MPI_INT, r, l->rc, l->rd, l->vrt, x->comm,
                              MPI_INFO_NULL, rq);
}

/* Every received block right, its holes and the gaps after it untouched. */
static void a2av_check(struct ctx *x, const struct a2av *l, const int *r, long n, int w,
                       int nb, int in_place, int salt)
{
    int me = x->wr[x->rank];
    for (int k = 0; k < x->size; k++) {
        const int *b = r + l->ri[k];
        for (long i = 0; i < l->rc[k]; i++)
            if (b[i * l->rw[k]] != a2a_val(x->wr[k], me, i, salt) ||
                (l->rw[k] == 2 && b[2 * i + 1] != -5)) {
                CHECK(0, "%s alltoall%s nb=%d inplace=%d n=%ld: from %d [%ld] %d want %d",
                      x->name, w ? "w" : "v", nb, in_place, n, k, i, b[i * l->rw[k]],
                      a2a_val(x->wr[k], me, i, salt));
                break;
            }
        long end = (long)l->rc[k] * l->rw[k];
        CHECK(b[end] == -5 && b[end + 1] == -5,
              "%s alltoall%s nb=%d inplace=%d n=%ld: gap after the block from %d written",
              x->name, w ? "w" : "v", nb, in_place, n, k);
    }
}

/* Alltoallv (w 0: the holey type on the receive side when non-blocking or
 * in place) or Alltoallw (w 1, holey types on both sides, byte
 * displacements) with uneven and zero counts, blocks in reverse order with
 * gaps that must stay untouched; blocking (nb 0), Ialltoallv/w (1) or the
 * _init form (2, started twice on new data); in place or not. */
static void test_alltoallv(struct ctx *x, long n, int w, int salt, int nb, int in_place)
{
    int p = x->size, me = x->wr[x->rank];
    struct a2av l;
    a2av_layout(x, &l, n, w, in_place, nb != 0 || in_place);
    int *s = calloc((size_t)l.slen, sizeof *s), *r = calloc((size_t)l.rlen, sizeof *r);
    MPI_Request rq = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    if (nb == 1 && !in_place && n == 7) {   /* bad input: an error, nothing started */
        l.sc[0] = -1;
        rc = a2av_call(x, &l, s, r, w, nb, &rq);
        CHECK(rc != MPI_SUCCESS, "%s alltoall%s: a negative count accepted", x->name,
              w ? "w" : "v");
        l.sc[0] = a2av_cnt(me, x->wr[0], n, 0), rc = MPI_SUCCESS;
    }
    if (nb == 2)
        rc = a2av_call(x, &l, in_place ? MPI_IN_PLACE : s, r, w, nb, &rq);
    for (int run = 0; run < (nb == 2 ? 2 : 1) && rc == MPI_SUCCESS; run++) {
        for (long i = 0; i < l.slen; i++)
            s[i] = -9;
        for (long i = 0; i < l.rlen; i++)
            r[i] = -5;
        int *src = in_place ? r : s, *dsp = in_place ? l.ri : l.sd, *wid = in_place ? l.rw : l.sw;
        for (int k = 0; k < p; k++)
            for (long i = 0; i < (in_place ? l.rc : l.sc)[k]; i++)
                src[dsp[k] + i * wid[k]] = a2a_val(me, x->wr[k], i, salt + run);
        if (nb == 2)
            rc = MPI_Start(&rq);
        else
            rc = a2av_call(x, &l, in_place ? MPI_IN_PLACE : s, r, w, nb, &rq);
        if (rc == MPI_SUCCESS && nb != 0)
            rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "%s alltoall%s nb=%d rc %d", x->name, w ? "w" : "v", nb, rc);
        a2av_check(x, &l, r, n, w, nb, in_place, salt + run);
    }
    if (nb == 2 && rq != MPI_REQUEST_NULL)
        MPI_Request_free(&rq);
    free(s), free(r), free(l.sc), free(l.st);
}

/* Gather then Scatter of n ints per rank at `root` (in place at the root
 * or not; a holey send type for Gather, received as ints). */
static void test_gather_scatter(struct ctx *x, long n, int root, int in_place, int salt)
{
    int p = x->size, me = x->rank == root;
    int *s = malloc((size_t)(2 * n + 1) * sizeof *s), *r = malloc((size_t)(p * (n + 2) + 1) * sizeof *r);
    for (long i = 0; i < 2 * n + 1; i++)
        s[i] = i % 2 ? 4242 : ival(x->wr[x->rank], i / 2, salt);
    for (long i = 0; i < p * n; i++)
        r[i] = me && in_place && i / n == root ? ival(x->wr[root], i % n, salt) : -4;
    int rc = MPI_Gather(me && in_place ? MPI_IN_PLACE : s, (int)n, x->holey_t, r, (int)n, MPI_INT,
                        root, x->comm);
    CHECK(rc == MPI_SUCCESS, "%s gather rc %d", x->name, rc);
    if (me)
        for (int k = 0; k < p; k++)
            for (long i = 0; i < n; i++)
                if (r[k * n + i] != ival(x->wr[k], i, salt)) {
                    CHECK(0, "%s gather n=%ld root=%d inplace=%d: block %d [%ld] %d want %d",
                          x->name, n, root, in_place, k, i, r[k * n + i], ival(x->wr[k], i, salt));
                    k = p;
                    break;
                }
    /* scatter: the root sends block k = what rank k gave + 1 */
    if (me)
        for (long i = 0; i < p * n; i++)
            r[i] += 1;
    int *got = malloc((size_t)(n + 1) * sizeof *got);
    for (long i = 0; i < n; i++)
        got[i] = -6;
    rc = MPI_Scatter(r, (int)n, MPI_INT, me && in_place ? MPI_IN_PLACE : got, (int)n, MPI_INT,
                     root, x->comm);
    CHECK(rc == MPI_SUCCESS, "%s scatter rc %d", x->name, rc);
    if (!(me && in_place))
        for (long i = 0; i < n; i++)
            if (got[i] != ival(x->wr[x->rank], i, salt) + 1) {
                CHECK(0, "%s scatter n=%ld root=%d inplace=%d: [%ld] %d want %d", x->name, n,
                      root, in_place, i, got[i], ival(x->wr[x->rank], i, salt) + 1);
                break;
            }
    free(s), free(r), free(got);
}

static void run(struct ctx *x, long large)
{
    if (x->comm == MPI_COMM_NULL)
        return;
    MPI_Comm_rank(x->comm, &x->rank);
    MPI_Comm_size(x->comm, &x->size);
    x->wr = malloc((size_t)x->size * sizeof *x->wr);
    MPI_Allgather(&wrank, 1, MPI_INT, x->wr, 1, MPI_INT, x->comm);
    long sizes[] = { 0, 1, 7, 1001, large };
    int roots[] = { 0, x->size - 1, x->size / 2 };
    for (int si = 0; si < 5; si++) {
        long n = sizes[si];
        int salt = si;
        for (int ip = 0; ip < 2; ip++) {
            test_sum(x, n, 0, ip, 1, salt);
            test_aff(x, n, 0, ip, 1, salt);
            for (int ri = 0; ri < 3 && (ri == 0 || n < large); ri++) {
                test_sum(x, n, roots[ri], ip, 0, salt + ri);
                test_aff(x, n, roots[ri], ip, 0, salt + ri);
            }
        }
        test_minloc(x, n, salt);
        test_holey(x, n, salt);
        for (int ri = 0; ri < 3; ri++)
            test_bcast(x, n, roots[ri], salt + ri);
        /* the data movers: a vector per rank pair, so a tenth of `large` */
        long m = n < large ? n : large / 10;
        for (int ip = 0; ip < 2; ip++) {
            test_allgather(x, m, ip, salt);
            test_alltoall(x, m, ip, salt, 0);
            test_alltoall(x, m, ip, salt + 1, 1 + si % 2);   /* Ialltoall, Alltoall_init */
            test_alltoallv(x, m, ip, salt, 0, 0);
            test_alltoallv(x, m, ip, salt + 4, 0, 1);
            /* Ialltoallv/w or their _init, in place or not */
            test_alltoallv(x, m, ip, salt + 2, 1 + si % 2, 0);
            test_alltoallv(x, m, ip, salt + 3, 2 - si % 2, 1);
            for (int ri = 0; ri < 3 && (ri == 0 || n < large); ri++)
                test_gather_scatter(x, m, roots[ri], ip, salt + ri);
        }
        test_allgather_holey(x, m, salt);
        CHECK(MPI_Barrier(x->comm) == MPI_SUCCESS, "%s barrier", x->name);
    }
    free(x->wr);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    long large = argc > 1 ? atol(argv[1]) : 1L << 19;

    struct ctx base = { 0 };
    MPI_Type_contiguous(2, MPI_UNSIGNED, &base.aff_t);
    MPI_Type_commit(&base.aff_t);
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &base.holey_t);
    MPI_Type_commit(&base.holey_t);
    MPI_Op_create(aff_op, 0, &base.aff_o);

    /* this rank's index on its node: the comm of all index-0 ranks holds
     * one rank per node */
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
    MPI_Type_free(&base.holey_t);
    MPI_Op_free(&base.aff_o);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("coll_hier: %s (%d failures)\n", all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
