/* Datatype constructors through the MPI API: predefined sizes, hand-computed
 * size / extent / true extent of each constructor, get_envelope /
 * get_contents round trips, names, dup, free, match_size, MPI_Pack of a
 * simple strided type. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <wchar.h>

#include "smap_test.h"

static void expect_type(MPI_Datatype t, MPI_Count size, MPI_Count lb, MPI_Count extent,
                        MPI_Count tlb, MPI_Count textent, const char *what)
{
    MPI_Count s, l, e, tl, te;
    CHECK_RC(MPI_Type_size_c(t, &s));
    CHECK_RC(MPI_Type_get_extent_c(t, &l, &e));
    CHECK_RC(MPI_Type_get_true_extent_x(t, &tl, &te));
    CHECK(s == size && l == lb && e == extent && tl == tlb && te == textent,
          "%s: size %lld lb %lld extent %lld true %lld/%lld; expected %lld %lld %lld %lld/%lld",
          what, (long long)s, (long long)l, (long long)e, (long long)tl, (long long)te,
          (long long)size, (long long)lb, (long long)extent, (long long)tlb, (long long)textent);
    int is;
    MPI_Aint al, ae;
    CHECK_RC(MPI_Type_size(t, &is));
    CHECK_RC(MPI_Type_get_extent(t, &al, &ae));
    CHECK(is == size && al == lb && ae == extent, "%s: int/Aint queries differ", what);
}

static void predefined(void)
{
    struct { MPI_Datatype t; size_t size, extent; const char *name; } p[] = {
        {MPI_CHAR, 1, 1, "MPI_CHAR"}, {MPI_SHORT, sizeof(short), sizeof(short), "MPI_SHORT"},
        {MPI_INT, sizeof(int), sizeof(int), "MPI_INT"}, {MPI_LONG, sizeof(long), sizeof(long), "MPI_LONG"},
        {MPI_LONG_LONG, 8, 8, "MPI_LONG_LONG"}, {MPI_FLOAT, 4, 4, "MPI_FLOAT"},
        {MPI_DOUBLE, 8, 8, "MPI_DOUBLE"}, {MPI_LONG_DOUBLE, sizeof(long double), sizeof(long double), "MPI_LONG_DOUBLE"},
        {MPI_C_BOOL, sizeof(bool), sizeof(bool), "MPI_C_BOOL"}, {MPI_WCHAR, sizeof(wchar_t), sizeof(wchar_t), "MPI_WCHAR"},
        {MPI_INT8_T, 1, 1, "MPI_INT8_T"}, {MPI_UINT64_T, 8, 8, "MPI_UINT64_T"},
        {MPI_AINT, sizeof(MPI_Aint), sizeof(MPI_Aint), "MPI_AINT"}, {MPI_COUNT, 8, 8, "MPI_COUNT"},
        {MPI_OFFSET, 8, 8, "MPI_OFFSET"}, {MPI_BYTE, 1, 1, "MPI_BYTE"}, {MPI_PACKED, 1, 1, "MPI_PACKED"},
        {MPI_C_FLOAT_COMPLEX, 8, 8, "MPI_C_FLOAT_COMPLEX"}, {MPI_C_DOUBLE_COMPLEX, 16, 16, "MPI_C_DOUBLE_COMPLEX"},
        {MPI_C_LONG_DOUBLE_COMPLEX, 2 * sizeof(long double), 2 * sizeof(long double), "MPI_C_LONG_DOUBLE_COMPLEX"},
        {MPI_INTEGER, 4, 4, "MPI_INTEGER"}, {MPI_REAL, 4, 4, "MPI_REAL"},
        {MPI_DOUBLE_PRECISION, 8, 8, "MPI_DOUBLE_PRECISION"}, {MPI_COMPLEX, 8, 8, "MPI_COMPLEX"},
        {MPI_DOUBLE_COMPLEX, 16, 16, "MPI_DOUBLE_COMPLEX"}, {MPI_LOGICAL, 4, 4, "MPI_LOGICAL"},
        {MPI_CHARACTER, 1, 1, "MPI_CHARACTER"}, {MPI_INTEGER16, 16, 16, "MPI_INTEGER16"},
        {MPI_REAL2, 2, 2, "MPI_REAL2"}, {MPI_COMPLEX32, 32, 32, "MPI_COMPLEX32"},
        {MPI_2INT, 8, 8, "MPI_2INT"}, {MPI_FLOAT_INT, 8, 8, "MPI_FLOAT_INT"},
        {MPI_DOUBLE_INT, 12, 16, "MPI_DOUBLE_INT"}, {MPI_LONG_INT, sizeof(long) + 4, 16, "MPI_LONG_INT"},
        {MPI_SHORT_INT, 6, 8, "MPI_SHORT_INT"},
        {MPI_LONG_DOUBLE_INT, sizeof(long double) + 4, 2 * sizeof(long double), "MPI_LONG_DOUBLE_INT"},
        {MPI_2REAL, 8, 8, "MPI_2REAL"}, {MPI_2DOUBLE_PRECISION, 16, 16, "MPI_2DOUBLE_PRECISION"},
    };
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) {
        MPI_Count s, lb, e;
        CHECK_RC(MPI_Type_size_c(p[i].t, &s));
        CHECK_RC(MPI_Type_get_extent_c(p[i].t, &lb, &e));
        CHECK(s == (MPI_Count)p[i].size && lb == 0 && e == (MPI_Count)p[i].extent,
              "%s: size %lld extent %lld", p[i].name, (long long)s, (long long)e);
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        CHECK_RC(MPI_Type_get_name(p[i].t, name, &len));
        CHECK(strcmp(name, p[i].name) == 0 && len == (int)strlen(name), "name %s != %s", name, p[i].name);
        int ni, na, nd, comb;
        CHECK_RC(MPI_Type_get_envelope(p[i].t, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "%s envelope", p[i].name);
    }
    /* true extent of the padded pairs */
    expect_type(MPI_SHORT_INT, 6, 0, 8, 0, 8, "MPI_SHORT_INT");
    expect_type(MPI_DOUBLE_INT, 12, 0, 16, 0, 12, "MPI_DOUBLE_INT");
    /* committing a predefined type is allowed and changes nothing */
    MPI_Datatype t = MPI_INT;
    CHECK_RC(MPI_Type_commit(&t));
    CHECK(t == MPI_INT, "commit changed the handle");
    MPI_Datatype m;
    CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m));
    CHECK(m == MPI_REAL8, "match_size real 8");
    CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m));
    CHECK(m == MPI_INTEGER4, "match_size integer 4");
}

static void check_contents(MPI_Datatype t, int comb, int ni, const int *ints, int na,
                           const MPI_Aint *addrs, int nd, const MPI_Datatype *types)
{
    int gi, ga, gd, gc;
    CHECK_RC(MPI_Type_get_envelope(t, &gi, &ga, &gd, &gc));
    CHECK(gc == comb && gi == ni && ga == na && gd == nd, "envelope %d %d %d %d vs %d %d %d %d",
          gc, gi, ga, gd, comb, ni, na, nd);
    int ri[64];
    MPI_Aint ra[64];
    MPI_Datatype rt[64];
    CHECK_RC(MPI_Type_get_contents(t, 64, 64, 64, ri, ra, rt));
    for (int i = 0; i < ni; i++)
        CHECK(ri[i] == ints[i], "ints[%d] %d != %d", i, ri[i], ints[i]);
    for (int i = 0; i < na; i++)
        CHECK(ra[i] == addrs[i], "addrs[%d] %ld != %ld", i, (long)ra[i], (long)addrs[i]);
    for (int i = 0; i < nd; i++) {
        CHECK(rt[i] == types[i], "types[%d] differs", i);
        int a, b, c, k;
        CHECK_RC(MPI_Type_get_envelope(rt[i], &a, &b, &c, &k));
        if (k != MPI_COMBINER_NAMED)
            CHECK_RC(MPI_Type_free(&rt[i]));   /* derived types come back as new handles */
    }
}

static void constructors(void)
{
    MPI_Datatype c, v, hv, ix, hix, ib, hib, st, rs, dup, sub, big;
    /* contiguous(3, int) */
    CHECK_RC(MPI_Type_contiguous(3, MPI_INT, &c));
    expect_type(c, 12, 0, 12, 0, 12, "contiguous");
    check_contents(c, MPI_COMBINER_CONTIGUOUS, 1, (int[]){3}, 0, NULL, 1, (MPI_Datatype[]){MPI_INT});
    /* vector(3, 2, 4, double): blocks at 0, 32, 64 of 16 bytes */
    CHECK_RC(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &v));
    expect_type(v, 48, 0, 80, 0, 80, "vector");
    check_contents(v, MPI_COMBINER_VECTOR, 3, (int[]){3, 2, 4}, 0, NULL, 1, (MPI_Datatype[]){MPI_DOUBLE});
    /* vector with negative stride: blocks at 0, -24 */
    MPI_Datatype vn;
    CHECK_RC(MPI_Type_vector(2, 1, -3, MPI_DOUBLE, &vn));
    expect_type(vn, 16, -24, 32, -24, 32, "negative vector");
    /* hvector(2, 1, 20, vector) */
    CHECK_RC(MPI_Type_create_hvector(2, 1, 100, v, &hv));
    expect_type(hv, 96, 0, 180, 0, 180, "hvector");
    check_contents(hv, MPI_COMBINER_HVECTOR, 2, (int[]){2, 1}, 1, (MPI_Aint[]){100}, 1, (MPI_Datatype[]){v});
    /* indexed({2,1}, {5,-1}, int): [20,28) and [-4,0) */
    CHECK_RC(MPI_Type_indexed(2, (int[]){2, 1}, (int[]){5, -1}, MPI_INT, &ix));
    expect_type(ix, 12, -4, 32, -4, 32, "indexed");
    check_contents(ix, MPI_COMBINER_INDEXED, 5, (int[]){2, 2, 1, 5, -1}, 0, NULL, 1, (MPI_Datatype[]){MPI_INT});
    CHECK_RC(MPI_Type_create_hindexed(2, (int[]){1, 2}, (MPI_Aint[]){3, 10}, MPI_SHORT, &hix));
    expect_type(hix, 6, 3, 11, 3, 11, "hindexed");
    CHECK_RC(MPI_Type_create_indexed_block(3, 2, (int[]){0, 4, 2}, MPI_SHORT, &ib));
    expect_type(ib, 12, 0, 12, 0, 12, "indexed_block");
    CHECK_RC(MPI_Type_create_hindexed_block(2, 1, (MPI_Aint[]){8, 0}, MPI_DOUBLE, &hib));
    expect_type(hib, 16, 0, 16, 0, 16, "hindexed_block");
    check_contents(hib, MPI_COMBINER_HINDEXED_BLOCK, 2, (int[]){2, 1}, 2, (MPI_Aint[]){8, 0}, 1,
                   (MPI_Datatype[]){MPI_DOUBLE});
    /* struct { char; double } at 0 and 8: extent 16, padded; { int; char } -> 8 */
    CHECK_RC(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8},
                                    (MPI_Datatype[]){MPI_CHAR, MPI_DOUBLE}, &st));
    expect_type(st, 9, 0, 16, 0, 16, "struct char,double");
    MPI_Datatype st2;
    CHECK_RC(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 4},
                                    (MPI_Datatype[]){MPI_INT, MPI_CHAR}, &st2));
    expect_type(st2, 5, 0, 8, 0, 5, "struct int,char (padded)");
    check_contents(st2, MPI_COMBINER_STRUCT, 3, (int[]){2, 1, 1}, 2, (MPI_Aint[]){0, 4}, 2,
                   (MPI_Datatype[]){MPI_INT, MPI_CHAR});
    /* resized: explicit bounds stop the padding */
    CHECK_RC(MPI_Type_create_resized(MPI_INT, -4, 12, &rs));
    expect_type(rs, 4, -4, 12, 0, 4, "resized");
    check_contents(rs, MPI_COMBINER_RESIZED, 0, NULL, 2, (MPI_Aint[]){-4, 12}, 1, (MPI_Datatype[]){MPI_INT});
    MPI_Datatype st3;
    CHECK_RC(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 16},
                                    (MPI_Datatype[]){rs, MPI_CHAR}, &st3));
    expect_type(st3, 5, -4, 21, 0, 17, "struct with resized member (no padding)");
    /* dup keeps everything, and the name */
    CHECK_RC(MPI_Type_set_name(v, "my vector"));
    CHECK_RC(MPI_Type_dup(v, &dup));
    expect_type(dup, 48, 0, 80, 0, 80, "dup");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_RC(MPI_Type_get_name(dup, name, &len));
    CHECK(strcmp(name, "my vector") == 0, "dup name '%s'", name);
    check_contents(dup, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, (MPI_Datatype[]){v});
    /* subarray 4x5 of int, 2x3 starting at (1,2), C order: rows 1..2, cols 2..4 */
    CHECK_RC(MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2},
                                      MPI_ORDER_C, MPI_INT, &sub));
    expect_type(sub, 24, 0, 80, 28, 32, "subarray C");
    check_contents(sub, MPI_COMBINER_SUBARRAY, 8, (int[]){2, 4, 5, 2, 3, 1, 2, MPI_ORDER_C}, 0,
                   NULL, 1, (MPI_Datatype[]){MPI_INT});
    MPI_Datatype subf;
    CHECK_RC(MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2},
                                      MPI_ORDER_FORTRAN, MPI_INT, &subf));
    /* Fortran: first index fastest; elements (1..2, 2..4): offsets (i + 4j)*4 */
    expect_type(subf, 24, 0, 80, (1 + 4 * 2) * 4, ((2 + 4 * 4) - (1 + 4 * 2) + 1) * 4, "subarray F");
    /* darray: 10 ints, block over 3 procs: rank 2 owns 8..9 */
    MPI_Datatype da;
    CHECK_RC(MPI_Type_create_darray(3, 2, 1, (int[]){10}, (int[]){MPI_DISTRIBUTE_BLOCK},
                                    (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){3}, MPI_ORDER_C,
                                    MPI_INT, &da));
    expect_type(da, 8, 0, 40, 32, 8, "darray block");
    MPI_Datatype dc;   /* cyclic(2) over 3: rank 1 owns 2,3,8,9 */
    CHECK_RC(MPI_Type_create_darray(3, 1, 1, (int[]){10}, (int[]){MPI_DISTRIBUTE_CYCLIC},
                                    (int[]){2}, (int[]){3}, MPI_ORDER_C, MPI_INT, &dc));
    expect_type(dc, 16, 0, 40, 8, 32, "darray cyclic");
    /* large-count constructors and their envelopes */
    CHECK_RC(MPI_Type_vector_c(3, 2, 4, MPI_DOUBLE, &big));
    expect_type(big, 48, 0, 80, 0, 80, "vector_c");
    MPI_Count ci, ca, cc, cd;
    int comb;
    CHECK_RC(MPI_Type_get_envelope_c(big, &ci, &ca, &cc, &cd, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ci == 0 && ca == 0 && cc == 3 && cd == 1, "envelope_c");
    MPI_Count counts[3];
    MPI_Datatype ct;
    CHECK_RC(MPI_Type_get_contents_c(big, 0, 0, 3, 1, NULL, NULL, counts, &ct));
    CHECK(counts[0] == 3 && counts[1] == 2 && counts[2] == 4 && ct == MPI_DOUBLE, "contents_c");

    /* pack a committed vector: the doubles 0,1, 4,5, 8,9 */
    CHECK_RC(MPI_Type_commit(&v));
    double src[12], out[6];
    for (int i = 0; i < 12; i++)
        src[i] = i;
    int pos = 0, psize;
    CHECK_RC(MPI_Pack_size(1, v, MPI_COMM_WORLD, &psize));
    CHECK(psize == 48, "pack size %d", psize);
    CHECK_RC(MPI_Pack(src, 1, v, out, (int)sizeof out, &pos, MPI_COMM_WORLD));
    CHECK(pos == 48 && out[0] == 0 && out[1] == 1 && out[2] == 4 && out[3] == 5 && out[4] == 8 &&
          out[5] == 9, "packed vector");
    double back[12] = {0};
    pos = 0;
    CHECK_RC(MPI_Unpack(out, 48, &pos, back, 1, v, MPI_COMM_WORLD));
    CHECK(pos == 48 && back[4] == 4 && back[9] == 9 && back[2] == 0, "unpacked vector");

    /* freeing a parent keeps children alive and vice versa */
    MPI_Datatype types[] = {c, v, vn, hv, ix, hix, ib, hib, st, st2, rs, st3, dup, sub, subf, da, dc, big};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        CHECK_RC(MPI_Type_free(&types[i]));
        CHECK(types[i] == MPI_DATATYPE_NULL, "free did not reset the handle");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    predefined();
    constructors();
    MPI_Finalize();
    return 0;
}
