/* lb / ub / extent through every constructor with negative displacements,
 * negative strides, negative extents and resized inner types (issue 15:
 * seen lb 22 / extent 27 where -12 / 9 are right), checked against
 * hand-computed values and by moving data through the types: replica i of
 * a type sits at i x extent (extent may be negative), and MPI_Pack,
 * MPI_Unpack and a self send-receive visit the elements at the offsets
 * computed by hand, in typemap order. */
#include <string.h>

#include "smap_test.h"

enum { SPAN = 1024, MID = 512 };

static void expect_bounds(MPI_Datatype t, MPI_Count size, MPI_Count lb, MPI_Count extent,
                          MPI_Count tlb, MPI_Count textent, const char *what)
{
    MPI_Count s, l, e, tl, te;
    CHECK_RC(MPI_Type_size_c(t, &s));
    CHECK_RC(MPI_Type_get_extent_c(t, &l, &e));
    CHECK_RC(MPI_Type_get_true_extent_c(t, &tl, &te));
    CHECK(s == size && l == lb && e == extent && tl == tlb && te == textent,
          "%s: size %lld lb %lld extent %lld true %lld/%lld; want %lld %lld %lld %lld/%lld", what,
          (long long)s, (long long)l, (long long)e, (long long)tl, (long long)te, (long long)size,
          (long long)lb, (long long)extent, (long long)tlb, (long long)textent);
    MPI_Aint al, ae;
    CHECK_RC(MPI_Type_get_extent(t, &al, &ae));
    CHECK(al == lb && ae == extent, "%s: MPI_Aint query differs", what);
}

static unsigned char pattern(long k) { return (unsigned char)(k * 13 + 1); }

/* Moves `count` of t through pack, unpack and a self send-receive; the
 * elements (elsz bytes each) must be at off[0..n) relative to the buffer's
 * base, in this order. */
static void expect_data(MPI_Datatype t, int count, int n, const int *off, int elsz,
                        const char *what)
{
    static unsigned char src[SPAN], dst[SPAN], packed[SPAN], want[SPAN];
    for (int k = 0; k < SPAN; k++)
        src[k] = pattern(k);
    for (int i = 0; i < n; i++)
        memcpy(want + i * elsz, src + MID + off[i], (size_t)elsz);
    int pos = 0, psize;
    CHECK_RC(MPI_Pack_size(count, t, MPI_COMM_SELF, &psize));
    CHECK(psize >= n * elsz, "%s: pack size %d", what, psize);
    CHECK_RC(MPI_Pack(src + MID, count, t, packed, SPAN, &pos, MPI_COMM_SELF));
    CHECK(pos == n * elsz, "%s: packed %d bytes, want %d", what, pos, n * elsz);
    for (int i = 0; i < n * elsz; i++)
        CHECK(packed[i] == want[i], "%s: packed byte %d (element %d at %d) is %d, want %d",
              what, i, i / elsz, off[i / elsz], packed[i], want[i]);
    /* unpack: exactly the element bytes are written, at the same offsets */
    memset(dst, 0, sizeof dst);
    pos = 0;
    CHECK_RC(MPI_Unpack(packed, n * elsz, &pos, dst + MID, count, t, MPI_COMM_SELF));
    int written = 0;
    for (int k = 0; k < SPAN; k++)
        written += dst[k] != 0;
    for (int i = 0; i < n; i++)
        CHECK(memcmp(dst + MID + off[i], src + MID + off[i], (size_t)elsz) == 0,
              "%s: unpacked element %d at %d", what, i, off[i]);
    CHECK(written <= n * elsz, "%s: unpack wrote %d bytes, want %d", what, written, n * elsz);
    /* the point-to-point path: typed send into a typed receive */
    memset(dst, 0, sizeof dst);
    CHECK_RC(MPI_Sendrecv(src + MID, count, t, 0, 5, dst + MID, count, t, 0, 5, MPI_COMM_SELF,
                          MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        CHECK(memcmp(dst + MID + off[i], src + MID + off[i], (size_t)elsz) == 0,
              "%s: received element %d at %d", what, i, off[i]);
}

#define OFFS(...) (sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (int[]){__VA_ARGS__}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Datatype R, R2, S, t;
    /* R: an int with lb -12, extent 9 */
    CHECK_RC(MPI_Type_create_resized(MPI_INT, -12, 9, &R));
    CHECK_RC(MPI_Type_commit(&R));
    expect_bounds(R, 4, -12, 9, 0, 4, "resized(int, -12, 9)");
    expect_data(R, 3, OFFS(0, 9, 18), 4, "3 x R");
    /* R2: an int with a negative extent: replicas at 0, -8, -16 */
    CHECK_RC(MPI_Type_create_resized(MPI_INT, 0, -8, &R2));
    CHECK_RC(MPI_Type_commit(&R2));
    expect_bounds(R2, 4, 0, -8, 0, 4, "resized(int, 0, -8)");
    expect_data(R2, 3, OFFS(0, -8, -16), 4, "3 x R2 (negative extent)");
    CHECK_RC(MPI_Type_create_resized(MPI_SHORT, -2, 6, &S));
    CHECK_RC(MPI_Type_commit(&S));

    /* contiguous */
    CHECK_RC(MPI_Type_contiguous(3, R, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 12, -12, 27, 0, 22, "contiguous(3, R)");
    expect_data(t, 2, OFFS(0, 9, 18, 27, 36, 45), 4, "2 x contiguous(3, R)");
    MPI_Type_free(&t);
    CHECK_RC(MPI_Type_contiguous(3, R2, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 12, -16, 8, -16, 20, "contiguous(3, R2)");
    expect_data(t, 2, OFFS(0, -8, -16, 8, 0, -8), 4, "2 x contiguous(3, R2)");
    MPI_Type_free(&t);

    /* vector with a negative stride */
    MPI_Datatype V;
    CHECK_RC(MPI_Type_vector(3, 1, -2, MPI_INT, &V));
    CHECK_RC(MPI_Type_commit(&V));
    expect_bounds(V, 12, -16, 20, -16, 20, "vector(3, 1, -2, int)");
    expect_data(V, 2, OFFS(0, -8, -16, 20, 12, 4), 4, "2 x vector(3, 1, -2, int)");
    CHECK_RC(MPI_Type_contiguous(2, V, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 24, -16, 40, -16, 40, "contiguous(2, negative vector)");
    expect_data(t, 1, OFFS(0, -8, -16, 20, 12, 4), 4, "contiguous(2, negative vector)");
    MPI_Type_free(&t);
    CHECK_RC(MPI_Type_vector(2, 2, -3, R, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 16, -39, 45, -27, 40, "vector(2, 2, -3, R)");
    expect_data(t, 1, OFFS(0, 9, -27, -18), 4, "vector(2, 2, -3, R)");
    MPI_Type_free(&t);
    CHECK_RC(MPI_Type_vector(3, 1, 1, R2, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 12, -16, 8, -16, 20, "vector(3, 1, 1, R2)");
    expect_data(t, 1, OFFS(0, -8, -16), 4, "vector(3, 1, 1, R2)");
    MPI_Type_free(&t);
    CHECK_RC(MPI_Type_vector(2, 1, -1, R2, &t));   /* stride -1 x extent -8 = +8 */
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 8, 0, 0, 0, 12, "vector(2, 1, -1, R2)");
    expect_data(t, 1, OFFS(0, 8), 4, "vector(2, 1, -1, R2)");
    MPI_Type_free(&t);

    /* hvector */
    CHECK_RC(MPI_Type_create_hvector(2, 2, -20, R, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 16, -32, 38, -20, 33, "hvector(2, 2, -20, R)");
    expect_data(t, 1, OFFS(0, 9, -20, -11), 4, "hvector(2, 2, -20, R)");
    MPI_Type_free(&t);

    /* indexed family */
    CHECK_RC(MPI_Type_indexed(2, (int[]){1, 2}, (int[]){3, -1}, R, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 12, -21, 45, -9, 40, "indexed({1,2}, {3,-1}, R)");
    expect_data(t, 1, OFFS(27, -9, 0), 4, "indexed({1,2}, {3,-1}, R)");
    MPI_Type_free(&t);
    CHECK_RC(MPI_Type_create_hindexed(2, (int[]){1, 2}, (MPI_Aint[]){-30, 5}, R, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 12, -42, 53, -30, 48, "hindexed({1,2}, {-30,5}, R)");
    expect_data(t, 1, OFFS(-30, 5, 14), 4, "hindexed({1,2}, {-30,5}, R)");
    MPI_Type_free(&t);
    CHECK_RC(MPI_Type_create_indexed_block(2, 2, (int[]){-2, 1}, R, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 16, -30, 45, -18, 40, "indexed_block(2, {-2,1}, R)");
    expect_data(t, 1, OFFS(-18, -9, 9, 18), 4, "indexed_block(2, {-2,1}, R)");
    MPI_Type_free(&t);
    CHECK_RC(MPI_Type_create_hindexed_block(2, 1, (MPI_Aint[]){-7, 7}, R, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 8, -19, 23, -7, 18, "hindexed_block(1, {-7,7}, R)");
    expect_data(t, 2, OFFS(-7, 7, 16, 30), 4, "2 x hindexed_block(1, {-7,7}, R)");
    MPI_Type_free(&t);
    CHECK_RC(MPI_Type_indexed(2, (int[]){1, 1}, (int[]){0, 2}, R2, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 8, -16, 8, -16, 20, "indexed({1,1}, {0,2}, R2)");
    expect_data(t, 1, OFFS(0, -16), 4, "indexed({1,1}, {0,2}, R2)");
    MPI_Type_free(&t);

    /* struct of resized members */
    CHECK_RC(MPI_Type_create_struct(2, (int[]){2, 1}, (MPI_Aint[]){-5, 10},
                                    (MPI_Datatype[]){R, S}, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 10, -17, 31, -5, 17, "struct({2,1}, {-5,10}, {R,S})");
    MPI_Type_free(&t);
    CHECK_RC(MPI_Type_create_struct(1, (int[]){1}, (MPI_Aint[]){0}, (MPI_Datatype[]){R}, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_bounds(t, 4, -12, 9, 0, 4, "struct({1}, {0}, {R})");
    expect_data(t, 3, OFFS(0, 9, 18), 4, "3 x struct(R)");
    MPI_Type_free(&t);
    CHECK_RC(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){4, -4},
                                    (MPI_Datatype[]){R2, R2}, &t));
    CHECK_RC(MPI_Type_commit(&t));
    /* markers: lb min(4,-4) = -4, ub max(-4,-12) = -4: extent 0 */
    expect_bounds(t, 8, -4, 0, -4, 12, "struct({1,1}, {4,-4}, {R2,R2})");
    expect_data(t, 1, OFFS(4, -4), 4, "struct({1,1}, {4,-4}, {R2,R2})");
    MPI_Type_free(&t);

    /* resized of resized, and dup */
    MPI_Datatype RR;
    CHECK_RC(MPI_Type_create_resized(R, 3, -9, &RR));
    CHECK_RC(MPI_Type_commit(&RR));
    expect_bounds(RR, 4, 3, -9, 0, 4, "resized(R, 3, -9)");
    expect_data(RR, 3, OFFS(0, -9, -18), 4, "3 x resized(R, 3, -9)");
    CHECK_RC(MPI_Type_dup(RR, &t));
    expect_bounds(t, 4, 3, -9, 0, 4, "dup(resized(R, 3, -9))");
    MPI_Type_free(&t);
    MPI_Type_free(&RR);
    MPI_Type_free(&V);
    MPI_Type_free(&S);
    MPI_Type_free(&R2);
    MPI_Type_free(&R);
    printf("negative_bounds: ok\n");
    MPI_Finalize();
    return 0;
}
