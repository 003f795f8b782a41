/* Random nested datatypes built through the MPI API: size and bounds
 * against the reference (randtype.h), MPI_Pack / MPI_Unpack (int and _c)
 * against the naive pack, and a get_envelope / get_contents round trip: the
 * type rebuilt from its decoded contents packs the same bytes.
 * Usage: mpi_random [first_seed] [nseeds] */
#include "randtype.h"
#include "smap_test.h"

static long seed;

static MPI_Datatype build(const struct rnode *nd, int large)
{
    if (nd->kind == N_BASIC)
        return rt_basics[nd->basic].h;
    MPI_Datatype kids[RT_MAXN] = {0}, t = MPI_DATATYPE_NULL;
    int nk = nd->kind == N_STRUCT ? nd->count : 1;
    for (int i = 0; i < nk; i++)
        kids[i] = build(nd->kids[i], large);
    MPI_Datatype c = kids[0];
    int bls[RT_MAXN], di[RT_MAXN];
    MPI_Aint da[RT_MAXN];
    MPI_Count cb[RT_MAXN], cd[RT_MAXN];
    for (int i = 0; i < nd->count && i < RT_MAXN; i++) {
        bls[i] = nd->bls[i];
        di[i] = (int)nd->disps[i];
        da[i] = nd->disps[i];
        cb[i] = nd->bls[i];
        cd[i] = nd->disps[i];
    }
    MPI_Count sz[3], ss[3], st[3];
    for (int d = 0; d < nd->ndims; d++) {
        sz[d] = nd->kind == N_SUBARRAY ? nd->sizes[d] : nd->gsizes[d];
        ss[d] = nd->subsizes[d];
        st[d] = nd->starts[d];
    }
    switch (nd->kind) {
    case N_CONTIG:
        CHECK_RC(large ? MPI_Type_contiguous_c(nd->count, c, &t) : MPI_Type_contiguous(nd->count, c, &t));
        break;
    case N_VECTOR:
        CHECK_RC(large ? MPI_Type_vector_c(nd->count, nd->bl, nd->stride, c, &t)
                       : MPI_Type_vector(nd->count, nd->bl, (int)nd->stride, c, &t));
        break;
    case N_HVECTOR:
        CHECK_RC(large ? MPI_Type_create_hvector_c(nd->count, nd->bl, nd->stride, c, &t)
                       : MPI_Type_create_hvector(nd->count, nd->bl, nd->stride, c, &t));
        break;
    case N_INDEXED:
        CHECK_RC(large ? MPI_Type_indexed_c(nd->count, cb, cd, c, &t) : MPI_Type_indexed(nd->count, bls, di, c, &t));
        break;
    case N_HINDEXED:
        CHECK_RC(large ? MPI_Type_create_hindexed_c(nd->count, cb, cd, c, &t)
                       : MPI_Type_create_hindexed(nd->count, bls, da, c, &t));
        break;
    case N_INDEXED_BLOCK:
        CHECK_RC(large ? MPI_Type_create_indexed_block_c(nd->count, nd->bl, cd, c, &t)
                       : MPI_Type_create_indexed_block(nd->count, nd->bl, di, c, &t));
        break;
    case N_HINDEXED_BLOCK:
        CHECK_RC(large ? MPI_Type_create_hindexed_block_c(nd->count, nd->bl, cd, c, &t)
                       : MPI_Type_create_hindexed_block(nd->count, nd->bl, da, c, &t));
        break;
    case N_STRUCT:
        CHECK_RC(large ? MPI_Type_create_struct_c(nd->count, cb, cd, kids, &t)
                       : MPI_Type_create_struct(nd->count, bls, da, kids, &t));
        break;
    case N_RESIZED:
        CHECK_RC(large ? MPI_Type_create_resized_c(c, nd->lb, nd->extent, &t)
                       : MPI_Type_create_resized(c, nd->lb, nd->extent, &t));
        break;
    case N_DUP: CHECK_RC(MPI_Type_dup(c, &t)); break;
    case N_SUBARRAY:
        CHECK_RC(large ? MPI_Type_create_subarray_c(nd->ndims, sz, ss, st, nd->order, c, &t)
                       : MPI_Type_create_subarray(nd->ndims, nd->sizes, nd->subsizes, nd->starts,
                                                  nd->order, c, &t));
        break;
    case N_DARRAY:
        CHECK_RC(large ? MPI_Type_create_darray_c(nd->psize, nd->prank, nd->ndims, sz, nd->distribs,
                                                  nd->dargs, nd->psizes, nd->order, c, &t)
                       : MPI_Type_create_darray(nd->psize, nd->prank, nd->ndims, nd->gsizes,
                                                nd->distribs, nd->dargs, nd->psizes, nd->order, c, &t));
        break;
    }
    for (int i = 0; i < nk; i++) {
        int comb;
        CHECK_RC(MPI_Type_get_envelope_c(kids[i], &(MPI_Count){0}, &(MPI_Count){0}, &(MPI_Count){0},
                                         &(MPI_Count){0}, &comb));
        if (comb != MPI_COMBINER_NAMED)
            CHECK_RC(MPI_Type_free(&kids[i]));
    }
    return t;
}

/* Rebuilds a type from its envelope and contents (recursively). */
static MPI_Datatype rebuild(MPI_Datatype t)
{
    MPI_Count ni, na, nc, nt;
    int comb;
    CHECK_RC(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nt, &comb));
    if (comb == MPI_COMBINER_NAMED)
        return t;
    int *iv = malloc((size_t)(ni + 1) * sizeof *iv);
    MPI_Aint *av = malloc((size_t)(na + 1) * sizeof *av);
    MPI_Count *cv = malloc((size_t)(nc + 1) * sizeof *cv);
    MPI_Datatype *tv = malloc((size_t)(nt + 1) * sizeof *tv);
    CHECK_RC(MPI_Type_get_contents_c(t, ni, na, nc, nt, iv, av, cv, tv));
    MPI_Datatype *kv = malloc((size_t)(nt + 1) * sizeof *kv);
    for (MPI_Count i = 0; i < nt; i++)
        kv[i] = rebuild(tv[i]);
    MPI_Datatype r = MPI_DATATYPE_NULL;
    int L = nc > 0;   /* built by a _c constructor */
    switch (comb) {
    case MPI_COMBINER_DUP: CHECK_RC(MPI_Type_dup(kv[0], &r)); break;
    case MPI_COMBINER_CONTIGUOUS:
        CHECK_RC(L ? MPI_Type_contiguous_c(cv[0], kv[0], &r) : MPI_Type_contiguous(iv[0], kv[0], &r));
        break;
    case MPI_COMBINER_VECTOR:
        CHECK_RC(L ? MPI_Type_vector_c(cv[0], cv[1], cv[2], kv[0], &r)
                   : MPI_Type_vector(iv[0], iv[1], iv[2], kv[0], &r));
        break;
    case MPI_COMBINER_HVECTOR:
        CHECK_RC(L ? MPI_Type_create_hvector_c(cv[0], cv[1], cv[2], kv[0], &r)
                   : MPI_Type_create_hvector(iv[0], iv[1], av[0], kv[0], &r));
        break;
    case MPI_COMBINER_INDEXED:
        CHECK_RC(L ? MPI_Type_indexed_c(cv[0], cv + 1, cv + 1 + cv[0], kv[0], &r)
                   : MPI_Type_indexed(iv[0], iv + 1, iv + 1 + iv[0], kv[0], &r));
        break;
    case MPI_COMBINER_HINDEXED:
        CHECK_RC(L ? MPI_Type_create_hindexed_c(cv[0], cv + 1, cv + 1 + cv[0], kv[0], &r)
                   : MPI_Type_create_hindexed(iv[0], iv + 1, av, kv[0], &r));
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        CHECK_RC(L ? MPI_Type_create_indexed_block_c(cv[0], cv[1], cv + 2, kv[0], &r)
                   : MPI_Type_create_indexed_block(iv[0], iv[1], iv + 2, kv[0], &r));
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        CHECK_RC(L ? MPI_Type_create_hindexed_block_c(cv[0], cv[1], cv + 2, kv[0], &r)
                   : MPI_Type_create_hindexed_block(iv[0], iv[1], av, kv[0], &r));
        break;
    case MPI_COMBINER_STRUCT:
        CHECK_RC(L ? MPI_Type_create_struct_c(cv[0], cv + 1, cv + 1 + cv[0], kv, &r)
                   : MPI_Type_create_struct(iv[0], iv + 1, av, kv, &r));
        break;
    case MPI_COMBINER_RESIZED:
        CHECK_RC(L ? MPI_Type_create_resized_c(kv[0], cv[0], cv[1], &r)
                   : MPI_Type_create_resized(kv[0], av[0], av[1], &r));
        break;
    case MPI_COMBINER_SUBARRAY: {
        int n = iv[0];
        if (L)
            CHECK_RC(MPI_Type_create_subarray_c(n, cv, cv + n, cv + 2 * n, iv[1], kv[0], &r));
        else
            CHECK_RC(MPI_Type_create_subarray(n, iv + 1, iv + 1 + n, iv + 1 + 2 * n, iv[1 + 3 * n], kv[0], &r));
        break;
    }
    case MPI_COMBINER_DARRAY: {
        int n = iv[2];
        if (L)
            CHECK_RC(MPI_Type_create_darray_c(iv[0], iv[1], n, cv, iv + 3, iv + 3 + n, iv + 3 + 2 * n,
                                              iv[3 + 3 * n], kv[0], &r));
        else
            CHECK_RC(MPI_Type_create_darray(iv[0], iv[1], n, iv + 3, iv + 3 + n, iv + 3 + 2 * n,
                                            iv + 3 + 3 * n, iv[3 + 4 * n], kv[0], &r));
        break;
    }
    default: CHECK(0, "unexpected combiner %d", comb);
    }
    for (MPI_Count i = 0; i < nt; i++) {
        int c2;
        CHECK_RC(MPI_Type_get_envelope_c(tv[i], &(MPI_Count){0}, &(MPI_Count){0}, &(MPI_Count){0},
                                         &(MPI_Count){0}, &c2));
        if (c2 != MPI_COMBINER_NAMED) {
            CHECK_RC(MPI_Type_free(&tv[i]));
            CHECK_RC(MPI_Type_free(&kv[i]));
        }
    }
    free(iv); free(av); free(cv); free(tv); free(kv);
    return r;
}

static void check_seed(long s)
{
    seed = s;
    rt_seed((uint64_t)s);
    long budget = 600;
    struct rnode *nd = rt_gen((int)rt_rand(1, 4), &budget);
    int large = (int)rt_rand(0, 1);
    struct rref r;
    rt_reference(nd, &r);
    MPI_Datatype t = build(nd, large);
    MPI_Count size, lb, ext, tlb, text;
    CHECK_RC(MPI_Type_size_c(t, &size));
    CHECK_RC(MPI_Type_get_extent_c(t, &lb, &ext));
    CHECK_RC(MPI_Type_get_true_extent_c(t, &tlb, &text));
    if (size != r.size || lb != r.lb || ext != r.extent || (r.size && (tlb != r.tlb || text != r.textent))) {
        rt_print(nd, stderr);
        CHECK(0, "seed %ld: size/lb/extent/true %lld %lld %lld %lld %lld vs %ld %ld %ld %ld %ld", s,
              (long long)size, (long long)lb, (long long)ext, (long long)tlb, (long long)text,
              r.size, r.lb, r.extent, r.tlb, r.textent);
    }
    CHECK_RC(MPI_Type_commit(&t));
    MPI_Datatype t2 = rebuild(t);
    CHECK_RC(MPI_Type_commit(&t2));

    long count = rt_rand(1, 3), lo, hi;
    rt_span(&r, count, &lo, &hi);
    long len = hi - lo + 64, total = count * r.size;
    unsigned char *mem = malloc((size_t)len), *base = mem + 32 - lo;
    for (long i = 0; i < len; i++)
        mem[i] = (unsigned char)rt_next();
    unsigned char *ref = malloc((size_t)total + 1), *out = malloc((size_t)total + 1),
                  *out2 = malloc((size_t)total + 1);
    rt_pack(&r, count, base, ref);
    int pos = 0, psize;
    CHECK_RC(MPI_Pack_size((int)count, t, MPI_COMM_SELF, &psize));
    CHECK(psize == total, "seed %ld: pack size %d != %ld", s, psize, total);
    CHECK_RC(MPI_Pack(base, (int)count, t, out, (int)total, &pos, MPI_COMM_SELF));
    CHECK(pos == total && memcmp(out, ref, (size_t)total) == 0, "seed %ld: MPI_Pack differs", s);
    MPI_Count cpos = 0;
    CHECK_RC(MPI_Pack_c(base, count, t2, out2, total, &cpos, MPI_COMM_SELF));
    CHECK(cpos == total && memcmp(out2, ref, (size_t)total) == 0,
          "seed %ld: the type rebuilt from its contents packs differently", s);

    unsigned char *got = calloc(1, (size_t)len), *exp = calloc(1, (size_t)len);
    rt_unpack(&r, count, ref, total, exp + 32 - lo);
    pos = 0;
    CHECK_RC(MPI_Unpack(ref, (int)total, &pos, got + 32 - lo, (int)count, t, MPI_COMM_SELF));
    CHECK(pos == total && memcmp(got, exp, (size_t)len) == 0, "seed %ld: MPI_Unpack differs", s);

    free(mem); free(ref); free(out); free(out2); free(got); free(exp);
    CHECK_RC(MPI_Type_free(&t));
    CHECK_RC(MPI_Type_free(&t2));
    rt_ref_free(&r);
    rt_free(nd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long first = argc > 1 ? atol(argv[1]) : 1, n = argc > 2 ? atol(argv[2]) : 500;
    for (long s = first; s < first + n; s++)
        check_seed(s);
    printf("mpi_random: %ld seeds OK\n", n);
    MPI_Finalize();
    return 0;
}
