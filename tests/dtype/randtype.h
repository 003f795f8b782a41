/* Random nested datatypes and a naive reference for them, independent of
 * the engine: a type is a tree of constructor nodes; its reference type map
 * is the explicit list of basic pieces (offset, length), computed straight
 * from the definitions in MPI 5.0 chapter 5, element by element. */
#ifndef DTYPE_RANDTYPE_H
#define DTYPE_RANDTYPE_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_BASIC, N_CONTIG, N_VECTOR, N_HVECTOR, N_INDEXED, N_HINDEXED, N_INDEXED_BLOCK,
       N_HINDEXED_BLOCK, N_STRUCT, N_RESIZED, N_SUBARRAY, N_DARRAY, N_DUP, N_KINDS };

#define RT_MAXN 6

struct rnode {
    int kind;
    int basic;                 /* N_BASIC: index in rt_basics */
    int count, bl;
    long stride;               /* elements (VECTOR) or bytes (HVECTOR) */
    int bls[RT_MAXN];
    long disps[RT_MAXN];       /* elements or bytes */
    struct rnode *kids[RT_MAXN];  /* STRUCT: count kids; others: kids[0] */
    long lb, extent;           /* RESIZED */
    int ndims, order;
    int sizes[3], subsizes[3], starts[3];                 /* SUBARRAY */
    int psize, prank, gsizes[3], distribs[3], dargs[3], psizes[3]; /* DARRAY */
};

struct rpiece { long off, len; int esize, unit; };

struct rref {
    struct rpiece *p;
    long n, cap;
    long lb, extent, tlb, textent, size;
    int align, expl, any_bounds;
};

struct rbasic {
    MPI_Datatype h;
    const char *name;
    int npieces;
    long off[2], len[2];
    int unit[2];
    long extent;
    int align;
};

static const struct rbasic rt_basics[] = {
    {MPI_CHAR, "char", 1, {0}, {1}, {1}, 1, 1},
    {MPI_SHORT, "short", 1, {0}, {2}, {2}, 2, 2},
    {MPI_INT, "int", 1, {0}, {4}, {4}, 4, 4},
    {MPI_FLOAT, "float", 1, {0}, {4}, {4}, 4, 4},
    {MPI_DOUBLE, "double", 1, {0}, {8}, {8}, 8, 8},
    {MPI_INT64_T, "int64", 1, {0}, {8}, {8}, 8, 8},
    {MPI_C_DOUBLE_COMPLEX, "dcomplex", 1, {0}, {16}, {8}, 16, 8},
    {MPI_SHORT_INT, "short_int", 2, {0, 4}, {2, 4}, {2, 4}, 8, 4},
    {MPI_DOUBLE_INT, "double_int", 2, {0, 8}, {8, 4}, {8, 4}, 16, 8},
};
#define RT_NBASIC ((int)(sizeof rt_basics / sizeof rt_basics[0]))

/* ---- a small deterministic generator (xorshift) ---- */
static uint64_t rt_state = 88172645463325252ull;
static void rt_seed(uint64_t s) { rt_state = s * 2654435761ull + 88172645463325252ull; }
static uint64_t rt_next(void)
{
    rt_state ^= rt_state << 13;
    rt_state ^= rt_state >> 7;
    rt_state ^= rt_state << 17;
    return rt_state;
}
static long rt_rand(long lo, long hi) { return lo + (long)(rt_next() % (uint64_t)(hi - lo + 1)); }

static void rt_push(struct rref *r, long off, long len, int esize, int unit)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->p = realloc(r->p, (size_t)r->cap * sizeof *r->p);
    }
    r->p[r->n++] = (struct rpiece){off, len, esize, unit};
}

static void rt_ref_free(struct rref *r) { free(r->p); memset(r, 0, sizeof *r); }

/* Appends `c` placed at shift to r, widening r's bounds. */
static void rt_place(struct rref *r, const struct rref *c, long shift)
{
    for (long i = 0; i < c->n; i++)
        rt_push(r, c->p[i].off + shift, c->p[i].len, c->p[i].esize, c->p[i].unit);
    long lo = shift + c->lb, hi = shift + c->lb + c->extent;
    if (!r->any_bounds || lo < r->lb) r->lb = lo;
    if (!r->any_bounds || hi > r->extent) r->extent = hi;   /* ub while building */
    r->any_bounds = 1;
    if (c->align > r->align) r->align = c->align;
    r->expl |= c->expl;
}

static void rt_finish(struct rref *r, int is_struct)
{
    long ub = r->any_bounds ? r->extent : 0;
    if (!r->any_bounds) r->lb = 0;
    r->extent = ub - r->lb;
    r->size = 0;
    long tlo = 0, thi = 0;
    for (long i = 0; i < r->n; i++) {
        r->size += r->p[i].len;
        long a = r->p[i].off, b = a + r->p[i].len;
        if (i == 0 || a < tlo) tlo = a;
        if (i == 0 || b > thi) thi = b;
    }
    r->tlb = tlo;
    r->textent = thi - tlo;
    if (is_struct && !r->expl && r->align > 1 && r->extent % r->align)
        r->extent += r->align - r->extent % r->align;
}

/* darray: does process coordinate `coord` own global index g? */
static int rt_owns(long g, long G, int distrib, int darg, int P, int coord)
{
    if (distrib == MPI_DISTRIBUTE_NONE) return 1;
    long b;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (G + P - 1) / P : darg;
        return g / b == coord;
    }
    b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return (g / b) % P == coord;
}

static void rt_reference(const struct rnode *nd, struct rref *r)
{
    memset(r, 0, sizeof *r);
    r->align = 1;
    if (nd->kind == N_BASIC) {
        const struct rbasic *b = &rt_basics[nd->basic];
        for (int i = 0; i < b->npieces; i++)
            rt_push(r, b->off[i], b->len[i], (int)b->len[i], b->unit[i]);
        r->lb = 0; r->extent = b->extent; r->align = b->align; r->any_bounds = 1;
        r->size = 0;
        for (int i = 0; i < b->npieces; i++) r->size += b->len[i];
        r->tlb = 0; r->textent = b->off[b->npieces - 1] + b->len[b->npieces - 1];
        return;
    }
    struct rref c;
    int is_struct = 0;
    if (nd->kind != N_STRUCT) {
        rt_reference(nd->kids[0], &c);
        r->align = c.align;   /* alignment and explicit bounds pass up even from */
        r->expl = c.expl;     /* blocks that hold no element */
    }
    switch (nd->kind) {
    case N_CONTIG:
        for (long i = 0; i < nd->count; i++) rt_place(r, &c, i * c.extent);
        break;
    case N_VECTOR: case N_HVECTOR:
        for (long i = 0; i < nd->count; i++)
            for (long j = 0; j < nd->bl; j++)
                rt_place(r, &c, i * (nd->kind == N_VECTOR ? nd->stride * c.extent : nd->stride) + j * c.extent);
        break;
    case N_INDEXED: case N_HINDEXED: case N_INDEXED_BLOCK: case N_HINDEXED_BLOCK:
        for (int i = 0; i < nd->count; i++) {
            int bl = (nd->kind == N_INDEXED || nd->kind == N_HINDEXED) ? nd->bls[i] : nd->bl;
            long d = (nd->kind == N_INDEXED || nd->kind == N_INDEXED_BLOCK) ? nd->disps[i] * c.extent : nd->disps[i];
            for (long j = 0; j < bl; j++) rt_place(r, &c, d + j * c.extent);
        }
        break;
    case N_STRUCT:
        is_struct = 1;
        for (int i = 0; i < nd->count; i++) {
            struct rref k;
            rt_reference(nd->kids[i], &k);
            if (k.align > r->align) r->align = k.align;
            r->expl |= k.expl;
            for (long j = 0; j < nd->bls[i]; j++) rt_place(r, &k, nd->disps[i] + j * k.extent);
            rt_ref_free(&k);
        }
        break;
    case N_RESIZED: case N_DUP:
        rt_place(r, &c, 0);
        rt_finish(r, 0);
        if (nd->kind == N_RESIZED) {
            r->lb = nd->lb; r->extent = nd->extent; r->expl = 1;
        }
        rt_ref_free(&c);
        return;
    case N_SUBARRAY: case N_DARRAY: {
        int nd_ = nd->ndims;
        int coords[3] = {0, 0, 0};
        const int *full = nd->kind == N_SUBARRAY ? nd->sizes : nd->gsizes;
        if (nd->kind == N_DARRAY)
            for (int d = nd_ - 1, rr = nd->prank; d >= 0; d--) { coords[d] = rr % nd->psizes[d]; rr /= nd->psizes[d]; }
        long mult[3], total = 1;
        /* storage order: C = last index fastest */
        for (int k = 0; k < nd_; k++) {
            int d = nd->order == MPI_ORDER_C ? nd_ - 1 - k : k;
            mult[d] = total;
            total *= full[d];
        }
        int idx[3] = {0, 0, 0};
        /* iterate in storage order over the full index space, keep members */
        for (long lin = 0; lin < total; lin++) {
            long rem = lin;
            for (int k = 0; k < nd_; k++) {
                int d = nd->order == MPI_ORDER_C ? nd_ - 1 - k : k;
                idx[d] = (int)(rem % full[d]);
                rem /= full[d];
            }
            int in = 1;
            for (int d = 0; d < nd_ && in; d++) {
                if (nd->kind == N_SUBARRAY)
                    in = idx[d] >= nd->starts[d] && idx[d] < nd->starts[d] + nd->subsizes[d];
                else
                    in = rt_owns(idx[d], nd->gsizes[d], nd->distribs[d], nd->dargs[d], nd->psizes[d], coords[d]);
            }
            if (!in) continue;
            long l = 0;
            for (int d = 0; d < nd_; d++) l += idx[d] * mult[d];
            for (long i = 0; i < c.n; i++)
                rt_push(r, c.p[i].off + l * c.extent, c.p[i].len, c.p[i].esize, c.p[i].unit);
        }
        r->any_bounds = 1;
        rt_finish(r, 0);
        r->lb = c.lb; r->extent = total * c.extent; r->expl = 1; r->align = c.align;
        rt_ref_free(&c);
        return;
    }
    }
    if (nd->kind != N_STRUCT) rt_ref_free(&c);
    rt_finish(r, is_struct);
}

static inline long rt_elements(const struct rnode *nd)
{
    struct rref r;
    rt_reference(nd, &r);
    long n = 0;
    for (long i = 0; i < r.n; i++) n += r.p[i].len / r.p[i].esize;
    rt_ref_free(&r);
    return n;
}

/* A random tree: depth levels of constructors over basic types.  `budget`
 * keeps the number of basic elements per instance small. */
static struct rnode *rt_gen(int depth, long *budget)
{
    struct rnode *nd = calloc(1, sizeof *nd);
    if (depth == 0 || *budget < 8) {
        nd->kind = N_BASIC;
        nd->basic = (int)rt_rand(0, RT_NBASIC - 1);
        return nd;
    }
    nd->kind = (int)rt_rand(N_CONTIG, N_KINDS - 1);
    *budget /= 3;
    if (nd->kind == N_STRUCT) {
        nd->count = (int)rt_rand(1, 3);
        for (int i = 0; i < nd->count; i++) {
            long b = *budget;
            nd->kids[i] = rt_gen(depth - 1, &b);
            nd->bls[i] = (int)rt_rand(0, 3);
            nd->disps[i] = rt_rand(-64, 64);
        }
        return nd;
    }
    nd->kids[0] = rt_gen(depth - 1, budget);
    switch (nd->kind) {
    case N_CONTIG: nd->count = (int)rt_rand(0, 4); break;
    case N_VECTOR: nd->count = (int)rt_rand(0, 4); nd->bl = (int)rt_rand(0, 3); nd->stride = rt_rand(-6, 6); break;
    case N_HVECTOR: nd->count = (int)rt_rand(0, 4); nd->bl = (int)rt_rand(0, 3); nd->stride = rt_rand(-80, 80); break;
    case N_INDEXED: case N_HINDEXED: case N_INDEXED_BLOCK: case N_HINDEXED_BLOCK:
        nd->count = (int)rt_rand(0, 4);
        nd->bl = (int)rt_rand(0, 3);
        for (int i = 0; i < nd->count; i++) {
            nd->bls[i] = (int)rt_rand(0, 3);
            nd->disps[i] = (nd->kind == N_INDEXED || nd->kind == N_INDEXED_BLOCK) ? rt_rand(-5, 8) : rt_rand(-70, 70);
        }
        break;
    case N_RESIZED: nd->lb = rt_rand(-16, 16); nd->extent = rt_rand(1, 64); break;
    case N_SUBARRAY:
        nd->ndims = (int)rt_rand(1, 3);
        nd->order = rt_rand(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        for (int d = 0; d < nd->ndims; d++) {
            nd->sizes[d] = (int)rt_rand(1, 4);
            nd->subsizes[d] = (int)rt_rand(0, nd->sizes[d]);
            nd->starts[d] = (int)rt_rand(0, nd->sizes[d] - nd->subsizes[d]);
        }
        break;
    case N_DARRAY:
        nd->ndims = (int)rt_rand(1, 3);
        nd->order = rt_rand(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        nd->psize = 1;
        for (int d = 0; d < nd->ndims; d++) {
            nd->gsizes[d] = (int)rt_rand(1, 6);
            nd->psizes[d] = (int)rt_rand(1, 3);
            nd->psize *= nd->psizes[d];
            int k = (int)rt_rand(0, 4);
            if (k == 0 && nd->psizes[d] == 1) {
                nd->distribs[d] = MPI_DISTRIBUTE_NONE; nd->dargs[d] = MPI_DISTRIBUTE_DFLT_DARG;
            } else if (k <= 1) {
                nd->distribs[d] = MPI_DISTRIBUTE_BLOCK; nd->dargs[d] = MPI_DISTRIBUTE_DFLT_DARG;
            } else if (k == 2) {
                nd->distribs[d] = MPI_DISTRIBUTE_BLOCK;
                nd->dargs[d] = (nd->gsizes[d] + nd->psizes[d] - 1) / nd->psizes[d] + (int)rt_rand(0, 2);
            } else if (k == 3) {
                nd->distribs[d] = MPI_DISTRIBUTE_CYCLIC; nd->dargs[d] = MPI_DISTRIBUTE_DFLT_DARG;
            } else {
                nd->distribs[d] = MPI_DISTRIBUTE_CYCLIC; nd->dargs[d] = (int)rt_rand(1, 3);
            }
        }
        nd->prank = (int)rt_rand(0, nd->psize - 1);
        break;
    default: break;
    }
    return nd;
}

static void rt_free(struct rnode *nd)
{
    if (!nd) return;
    for (int i = 0; i < RT_MAXN; i++) rt_free(nd->kids[i]);
    free(nd);
}

static void rt_print(const struct rnode *nd, FILE *f)
{
    static const char *names[] = {"basic", "contig", "vector", "hvector", "indexed", "hindexed",
                                  "indexed_block", "hindexed_block", "struct", "resized",
                                  "subarray", "darray", "dup"};
    if (nd->kind == N_BASIC) { fprintf(f, "%s", rt_basics[nd->basic].name); return; }
    fprintf(f, "%s(c=%d bl=%d st=%ld lb=%ld ext=%ld nd=%d ord=%d: ", names[nd->kind], nd->count,
            nd->bl, nd->stride, nd->lb, nd->extent, nd->ndims, nd->order);
    int nk = nd->kind == N_STRUCT ? nd->count : 1;
    for (int i = 0; i < nk; i++) {
        if (nd->kind != N_CONTIG && nd->kind != N_RESIZED && nd->kind != N_DUP && nd->kind < N_SUBARRAY)
            fprintf(f, "[bl%d d%ld] ", nd->bls[i], nd->disps[i]);
        rt_print(nd->kids[i], f);
        fprintf(f, i + 1 < nk ? ", " : "");
    }
    fprintf(f, ")");
}

/* ---- reference pack/unpack over `count` instances ---- */
static void rt_pack(const struct rref *r, long count, const unsigned char *base, unsigned char *out)
{
    for (long e = 0; e < count; e++)
        for (long i = 0; i < r->n; i++) {
            memcpy(out, base + e * r->extent + r->p[i].off, (size_t)r->p[i].len);
            out += r->p[i].len;
        }
}

static void rt_unpack(const struct rref *r, long count, const unsigned char *in, long nbytes, unsigned char *base)
{
    for (long e = 0; e < count; e++)
        for (long i = 0; i < r->n && nbytes > 0; i++) {
            long l = r->p[i].len < nbytes ? r->p[i].len : nbytes;
            memcpy(base + e * r->extent + r->p[i].off, in, (size_t)l);
            in += l;
            nbytes -= l;
        }
}

/* Bytes of memory count instances touch: [*lo, *hi). */
static void rt_span(const struct rref *r, long count, long *lo, long *hi)
{
    *lo = 0; *hi = 0;
    for (long e = 0; e < count; e++)
        for (long i = 0; i < r->n; i++) {
            long a = e * r->extent + r->p[i].off, b = a + r->p[i].len;
            if ((e == 0 && i == 0) || a < *lo) *lo = a;
            if ((e == 0 && i == 0) || b > *hi) *hi = b;
        }
}

#endif
