/* Predefined ops on derived datatypes built from one predefined type (the
 * engine walks the type map; gaps stay untouched), on misaligned buffers,
 * and the refusals: mixed basic types and derived pair types raise
 * MPI_ERR_TYPE, a disallowed base type MPI_ERR_OP. */
#include <stdalign.h>
#include <string.h>

#include "smap_test.h"

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* vector(3 blocks of 2, stride 4) of double, 2 elements: MAX on the
 * blocks, the gaps keep their values. */
static void test_vector(void)
{
    MPI_Datatype v;
    CHECK_RC(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &v));
    CHECK_RC(MPI_Type_commit(&v));
    MPI_Aint lb, ext;
    CHECK_RC(MPI_Type_get_extent(v, &lb, &ext));
    int per = (int)(ext / (MPI_Aint)sizeof(double)), n = 2 * per;
    double a[64], b[64], b0[64];
    for (int i = 0; i < n; i++) {
        a[i] = (i * 7) % 11;
        b[i] = b0[i] = (i * 5) % 13;
    }
    CHECK_RC(MPI_Reduce_local(a, b, 2, v, MPI_MAX));
    for (int e = 0; e < 2; e++)
        for (int i = 0; i < per; i++) {
            int k = e * per + i, in_block = i % 4 < 2;
            double want = in_block ? (a[k] > b0[k] ? a[k] : b0[k]) : b0[k];
            CHECK(b[k] == want, "vector [%d]: %g want %g", k, b[k], want);
        }
    CHECK_RC(MPI_Type_free(&v));
}

/* indexed blocks of int with a resized extent, and a contiguous of a
 * contiguous: SUM. */
static void test_indexed(void)
{
    int bl[3] = {1, 3, 2}, disp[3] = {0, 2, 7};
    MPI_Datatype ix, rs, cc, c1;
    CHECK_RC(MPI_Type_indexed(3, bl, disp, MPI_INT, &ix));
    CHECK_RC(MPI_Type_create_resized(ix, 0, 10 * sizeof(int), &rs));
    CHECK_RC(MPI_Type_commit(&rs));
    int a[40], b[40], b0[40];
    for (int i = 0; i < 40; i++) {
        a[i] = i + 100;
        b[i] = b0[i] = -i;
    }
    CHECK_RC(MPI_Reduce_local(a, b, 3, rs, MPI_SUM));
    for (int i = 0; i < 30; i++) {
        int j = i % 10, in = j == 0 || (j >= 2 && j < 5) || (j >= 7 && j < 9);
        CHECK(b[i] == (in ? a[i] + b0[i] : b0[i]), "indexed [%d]=%d", i, b[i]);
    }
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &c1));
    CHECK_RC(MPI_Type_contiguous(3, c1, &cc));
    CHECK_RC(MPI_Type_commit(&cc));
    memcpy(b, b0, sizeof b);
    CHECK_RC(MPI_Reduce_local(a, b, 2, cc, MPI_BXOR));
    for (int i = 0; i < 40; i++)
        CHECK(b[i] == (i < 12 ? (a[i] ^ b0[i]) : b0[i]), "contig [%d]", i);
    MPI_Type_free(&ix);
    MPI_Type_free(&rs);
    MPI_Type_free(&c1);
    MPI_Type_free(&cc);
}

/* Buffers and elements that are not aligned for their type. */
static void test_misaligned(void)
{
    alignas(16) unsigned char ra[128], rb[128];
    double a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 20, 30, 40, 50};
    memcpy(ra + 1, a, sizeof a);
    memcpy(rb + 3, b, sizeof b);
    CHECK_RC(MPI_Reduce_local(ra + 1, rb + 3, 5, MPI_DOUBLE, MPI_SUM));
    memcpy(b, rb + 3, sizeof b);
    for (int i = 0; i < 5; i++)
        CHECK(b[i] == 11.0 * (i + 1), "misaligned [%d] %g", i, b[i]);
    /* a struct of one int at displacement 1 */
    int bl = 1;
    MPI_Aint d = 1;
    MPI_Datatype t = MPI_INT, st;
    CHECK_RC(MPI_Type_create_struct(1, &bl, &d, &t, &st));
    CHECK_RC(MPI_Type_commit(&st));
    int x = 7, y = 9, z;
    memset(ra, 0, sizeof ra);
    memset(rb, 0, sizeof rb);
    memcpy(ra + 1, &x, 4);
    memcpy(rb + 1, &y, 4);
    CHECK_RC(MPI_Reduce_local(ra, rb, 1, st, MPI_PROD));
    memcpy(&z, rb + 1, 4);
    CHECK(z == 63 && rb[0] == 0 && rb[5] == 0, "struct misaligned %d", z);
    MPI_Type_free(&st);
}

static void test_refused(void)
{
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype tt[2] = {MPI_INT, MPI_DOUBLE}, mixed, vpair, vchar;
    CHECK_RC(MPI_Type_create_struct(2, bl, d, tt, &mixed));
    CHECK_RC(MPI_Type_commit(&mixed));
    CHECK_RC(MPI_Type_contiguous(2, MPI_2INT, &vpair));
    CHECK_RC(MPI_Type_commit(&vpair));
    CHECK_RC(MPI_Type_contiguous(4, MPI_PACKED, &vchar));   /* no op combines MPI_PACKED */
    CHECK_RC(MPI_Type_commit(&vchar));
    double buf[8] = {0}, buf2[8] = {0};
    CHECK(err_class(MPI_Reduce_local(buf, buf2, 1, mixed, MPI_SUM)) == MPI_ERR_TYPE, "mixed");
    CHECK(err_class(MPI_Reduce_local(buf, buf2, 1, vpair, MPI_MINLOC)) == MPI_ERR_TYPE, "pairs");
    CHECK(err_class(MPI_Reduce_local(buf, buf2, 1, vchar, MPI_SUM)) == MPI_ERR_OP, "packed");
    /* but MINLOC on the predefined pair itself works, and ties keep the
     * smaller index */
    int p[4] = {3, 9, 3, 2}, q[4] = {3, 4, 5, 1};
    CHECK_RC(MPI_Reduce_local(p, q, 2, MPI_2INT, MPI_MINLOC));
    CHECK(q[0] == 3 && q[1] == 4 && q[2] == 3 && q[3] == 2, "minloc %d %d %d %d", q[0], q[1],
          q[2], q[3]);
    MPI_Type_free(&mixed);
    MPI_Type_free(&vpair);
    MPI_Type_free(&vchar);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_vector();
    test_indexed();
    test_misaligned();
    test_refused();
    printf("ops_derived: ok\n");
    MPI_Finalize();
    return 0;
}
