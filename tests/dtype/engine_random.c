/* The datatype engine (src/dtype/engine.h) against the naive reference of
 * randtype.h, on random nested types: bounds, pack, unpack, partial
 * pack/unpack resumed at arbitrary offsets, type-to-type copy (whole and in
 * slices), element counts, external32.  Linked with src/dtype directly (no
 * MPI library, no launcher).  Usage: engine_random [first_seed] [nseeds] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "dtype/engine.h"
#include "randtype.h"

static int failures;
static long cur_seed;
static const struct rnode *cur_a, *cur_b;

#define EXPECT(cond, ...)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAIL seed %ld %s:%d: %s: ", cur_seed, __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n  type A: ");                                               \
            rt_print(cur_a, stderr);                                                       \
            if (cur_b) { fprintf(stderr, "\n  type B: "); rt_print(cur_b, stderr); }       \
            fprintf(stderr, "\n");                                                         \
            if (++failures > 5) exit(1);                                                   \
            return;                                                                        \
        }                                                                                  \
    } while (0)

static smap_dtype_t *build(const struct rnode *nd)
{
    if (nd->kind == N_BASIC)
        return smap_dtype_get(rt_basics[nd->basic].h);
    smap_dtype_t *kids[RT_MAXN] = {0}, *t = NULL;
    int nk = nd->kind == N_STRUCT ? nd->count : 1;
    for (int i = 0; i < nk; i++)
        kids[i] = build(nd->kids[i]);
    smap_dtype_t *c = kids[0];
    MPI_Count bls[RT_MAXN], sizes[3], subs[3], starts[3];
    MPI_Aint disps[RT_MAXN];
    int rc = -1;
    switch (nd->kind) {
    case N_CONTIG: rc = smap_dtype_contiguous(nd->count, c, &t); break;
    case N_VECTOR: rc = smap_dtype_hvector(nd->count, nd->bl, nd->stride * c->extent, c, &t); break;
    case N_HVECTOR: rc = smap_dtype_hvector(nd->count, nd->bl, nd->stride, c, &t); break;
    case N_INDEXED: case N_HINDEXED: case N_INDEXED_BLOCK: case N_HINDEXED_BLOCK: {
        int elems = nd->kind == N_INDEXED || nd->kind == N_INDEXED_BLOCK;
        int per = nd->kind == N_INDEXED || nd->kind == N_HINDEXED;
        for (int i = 0; i < nd->count; i++) {
            bls[i] = nd->bls[i];
            disps[i] = elems ? nd->disps[i] * c->extent : nd->disps[i];
        }
        rc = smap_dtype_blocks(nd->count, per ? bls : NULL, nd->bl, disps, NULL, c, 0, &t);
        break;
    }
    case N_STRUCT:
        for (int i = 0; i < nd->count; i++) {
            bls[i] = nd->bls[i];
            disps[i] = nd->disps[i];
        }
        rc = smap_dtype_blocks(nd->count, bls, 0, disps, kids, NULL, 1, &t);
        break;
    case N_RESIZED: rc = smap_dtype_resized(c, nd->lb, nd->extent, &t); break;
    case N_DUP: rc = smap_dtype_dup(c, &t); break;
    case N_SUBARRAY:
        for (int d = 0; d < nd->ndims; d++) {
            sizes[d] = nd->sizes[d];
            subs[d] = nd->subsizes[d];
            starts[d] = nd->starts[d];
        }
        rc = smap_dtype_subarray(nd->ndims, sizes, subs, starts, nd->order, c, &t);
        break;
    case N_DARRAY:
        for (int d = 0; d < nd->ndims; d++)
            sizes[d] = nd->gsizes[d];
        rc = smap_dtype_darray(nd->psize, nd->prank, nd->ndims, sizes, nd->distribs, nd->dargs,
                               nd->psizes, nd->order, c, &t);
        break;
    }
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "constructor failed (%d)\n", rc);
        exit(2);
    }
    for (int i = 0; i < nk; i++)
        smap_dtype_release(kids[i]);   /* the new type holds its own references */
    return t;
}

/* A buffer covering count instances of r plus margins; *base = address of
 * the instances' origin. */
struct buf { unsigned char *mem, *base; long len; };

static void buf_make(struct buf *b, const struct rref *r, long count, int fill)
{
    long lo, hi;
    rt_span(r, count, &lo, &hi);
    b->len = hi - lo + 64;
    b->mem = malloc((size_t)b->len);
    b->base = b->mem + 32 - lo;
    for (long i = 0; i < b->len; i++)
        b->mem[i] = fill >= 0 ? (unsigned char)(fill + i * 7) : (unsigned char)rt_next();
}

static void check_one(long seed)
{
    cur_seed = seed;
    rt_seed((uint64_t)seed);
    long budget = 600;
    struct rnode *na = rt_gen((int)rt_rand(1, 4), &budget);
    budget = 600;
    struct rnode *nb = rt_gen((int)rt_rand(1, 4), &budget);
    cur_a = na;
    cur_b = NULL;
    struct rref ra, rb;
    rt_reference(na, &ra);
    rt_reference(nb, &rb);
    smap_dtype_t *ta = build(na), *tb = build(nb);
    int commit_first = (int)rt_rand(0, 1);   /* also exercise uncommitted compilation */
    if (commit_first) {
        smap_dtype_commit(ta);
        smap_dtype_commit(tb);
    }
    long count = rt_rand(1, 3), bcount = rt_rand(1, 4);
    struct buf src = {0}, dst = {0}, exp = {0}, bd = {0}, be = {0};
    unsigned char *packed = NULL, *ref = NULL, *chunk = NULL;

    /* bounds */
    EXPECT(ta->size == ra.size, "size %lld != %ld", (long long)ta->size, ra.size);
    EXPECT(ta->lb == ra.lb && ta->extent == ra.extent, "lb/extent %lld/%lld != %ld/%ld",
           (long long)ta->lb, (long long)ta->extent, ra.lb, ra.extent);
    EXPECT(ra.size == 0 || (ta->true_lb == ra.tlb && ta->true_extent == ra.textent),
           "true lb/extent %lld/%lld != %ld/%ld", (long long)ta->true_lb,
           (long long)ta->true_extent, ra.tlb, ra.textent);
    EXPECT(smap_dtype_elements(ta, count * ta->size) == count * rt_elements(na),
           "elements %lld != %ld", (long long)smap_dtype_elements(ta, count * ta->size),
           count * rt_elements(na));

    long total = count * ra.size;
    buf_make(&src, &ra, count, -1);
    packed = malloc((size_t)total + 1);
    ref = malloc((size_t)total + 1);
    chunk = malloc((size_t)total + 1);
    rt_pack(&ra, count, src.base, ref);

    /* whole pack */
    EXPECT(smap_dtype_pack(src.base, count, ta, packed, 0, total + 100) == total, "pack size");
    EXPECT(memcmp(packed, ref, (size_t)total) == 0, "whole pack differs");

    /* partial pack, resumed at random offsets */
    memset(packed, 0, (size_t)total + 1);
    for (long off = 0; off < total;) {
        long n = rt_rand(1, total - off + 3);
        long got = smap_dtype_pack(src.base, count, ta, chunk, off, n);
        long want = n < total - off ? n : total - off;
        EXPECT(got == want, "partial pack at %ld returned %ld, wanted %ld", off, got, want);
        memcpy(packed + off, chunk, (size_t)got);
        off += got;
    }
    EXPECT(memcmp(packed, ref, (size_t)total) == 0, "resumed pack differs");
    EXPECT(smap_dtype_pack(src.base, count, ta, chunk, total, 10) == 0, "pack past the end");

    /* whole and partial unpack */
    buf_make(&dst, &ra, count, 3);
    buf_make(&exp, &ra, count, 3);
    rt_unpack(&ra, count, ref, total, exp.base);
    EXPECT(smap_dtype_unpack(ref, total, dst.base, count, ta, 0) == total, "unpack size");
    EXPECT(memcmp(dst.mem, exp.mem, (size_t)dst.len) == 0, "whole unpack differs");
    memset(dst.mem, 0, (size_t)dst.len);
    memset(exp.mem, 0, (size_t)exp.len);
    rt_unpack(&ra, count, ref, total, exp.base);
    for (long off = 0; off < total;) {
        long n = rt_rand(1, total - off);
        EXPECT(smap_dtype_unpack(ref + off, n, dst.base, count, ta, off) == n, "partial unpack");
        off += n;
    }
    EXPECT(memcmp(dst.mem, exp.mem, (size_t)dst.len) == 0, "resumed unpack differs");

    /* type-to-type copy A -> B */
    cur_b = nb;
    long btotal = bcount * rb.size, n = total < btotal ? total : btotal;
    buf_make(&bd, &rb, bcount, 5);
    buf_make(&be, &rb, bcount, 5);
    rt_unpack(&rb, bcount, ref, n, be.base);
    EXPECT(smap_dtype_copy(bd.base, bcount, tb, src.base, count, ta) == n, "copy size");
    EXPECT(memcmp(bd.mem, be.mem, (size_t)bd.len) == 0, "type-to-type copy differs");
    memset(bd.mem, 0, (size_t)bd.len);
    memset(be.mem, 0, (size_t)be.len);
    rt_unpack(&rb, bcount, ref, n, be.base);
    for (long off = 0; off < n;) {
        long k = rt_rand(1, n - off);
        EXPECT(smap_dtype_copy_range(bd.base, bcount, tb, src.base, count, ta, off, k) == k,
               "copy_range size");
        off += k;
    }
    EXPECT(memcmp(bd.mem, be.mem, (size_t)bd.len) == 0, "sliced type-to-type copy differs");
    cur_b = NULL;

    /* external32: every reference piece byte-reversed by unit */
    EXPECT(smap_dtype_external_size(ta) == ra.size, "external size %lld != %ld",
           (long long)smap_dtype_external_size(ta), ra.size);
    {
        unsigned char *x = ref, *e = malloc((size_t)total + 1), *p = e;
        for (long i = 0; i < count; i++)
            for (long j = 0; j < ra.n; j++)
                for (long u = 0; u < ra.p[j].len; u += ra.p[j].unit, x += ra.p[j].unit)
                    for (int q = 0; q < ra.p[j].unit; q++)
                        *p++ = x[ra.p[j].unit - 1 - q];
        int rc = smap_dtype_pack_external(src.base, count, ta, packed);
        int same = rc == MPI_SUCCESS && memcmp(packed, e, (size_t)total) == 0;
        free(e);
        EXPECT(same, "external32 pack differs (rc %d)", rc);
        memset(dst.mem, 0, (size_t)dst.len);
        memset(exp.mem, 0, (size_t)exp.len);
        rt_unpack(&ra, count, ref, total, exp.base);
        EXPECT(smap_dtype_unpack_external(packed, dst.base, count, ta) == MPI_SUCCESS, "unpack_external");
        EXPECT(memcmp(dst.mem, exp.mem, (size_t)dst.len) == 0, "external32 round trip differs");
    }

    free(src.mem); free(dst.mem); free(exp.mem); free(bd.mem); free(be.mem);
    free(packed); free(ref); free(chunk);
    smap_dtype_release(ta);
    smap_dtype_release(tb);
    rt_ref_free(&ra);
    rt_ref_free(&rb);
    rt_free(na);
    rt_free(nb);
}

int main(int argc, char **argv)
{
    long first = argc > 1 ? atol(argv[1]) : 1, n = argc > 2 ? atol(argv[2]) : 2000;
    for (long s = first; s < first + n; s++)
        check_one(s);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("engine_random: %ld seeds OK\n", n);
    return 0;
}
