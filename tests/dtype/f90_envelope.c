/* MPI_Type_create_f90_integer/real/complex (issue 36, MPICH's
 * datatype/createf90types): the envelope of the returned type has combiner
 * MPI_COMBINER_F90_INTEGER/REAL/COMPLEX with the arguments as integers
 * (r; p and r), MPI_Type_get_contents returns them, the same arguments give
 * the same handle, the type cannot be freed, and it moves data like the
 * Fortran kind it stands for. */
#include "smap_expect.h"

static void want_envelope(MPI_Datatype t, int combiner, int ni, const int *ints)
{
    int nints = -1, nadds = -1, ntypes = -1, comb = -1;
    CHECK_RC(MPI_Type_get_envelope(t, &nints, &nadds, &ntypes, &comb));
    CHECK(comb == combiner, "combiner %d, expected %d", comb, combiner);
    CHECK(nints == ni && nadds == 0 && ntypes == 0, "envelope %d %d %d, expected %d 0 0", nints,
          nadds, ntypes, ni);
    int got[2] = { -7, -7 };
    MPI_Aint a[1];
    MPI_Datatype d[1];
    CHECK_RC(MPI_Type_get_contents(t, 2, 0, 0, got, a, d));
    for (int i = 0; i < ni; i++)
        CHECK(got[i] == ints[i], "contents[%d] = %d, expected %d", i, got[i], ints[i]);
    MPI_Count ci = -1, ca = -1, cc = -1, ct = -1;
    CHECK_RC(MPI_Type_get_envelope_c(t, &ci, &ca, &cc, &ct, &comb));
    CHECK(comb == combiner && ci == ni && ca == 0 && cc == 0 && ct == 0, "envelope_c");
}

static void want_size(MPI_Datatype t, int size)
{
    int s = -1;
    CHECK_RC(MPI_Type_size(t, &s));
    CHECK(s == size, "size %d, expected %d", s, size);
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    const int U = MPI_UNDEFINED;
    static const int cases[][2] = { { 3, 10 }, { 3, U }, { U, 10 }, { 7, 30 }, { 7, U }, { U, 30 } };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int p = cases[i][0], r = cases[i][1];
        MPI_Datatype t, t2, c, c2;
        CHECK_RC(MPI_Type_create_f90_real(p, r, &t));
        want_envelope(t, MPI_COMBINER_F90_REAL, 2, cases[i]);
        CHECK_RC(MPI_Type_create_f90_real(p, r, &t2));
        CHECK(t == t2, "f90_real(%d, %d) twice gave two handles", p, r);
        want_size(t, p == 7 ? 8 : 4);
        CHECK_RC(MPI_Type_create_f90_complex(p, r, &c));
        want_envelope(c, MPI_COMBINER_F90_COMPLEX, 2, cases[i]);
        CHECK_RC(MPI_Type_create_f90_complex(p, r, &c2));
        CHECK(c == c2, "f90_complex(%d, %d) twice gave two handles", p, r);
        CHECK(c != t, "real and complex share a handle");
        /* predefined: freeing it is an error and leaves it usable */
        MPI_Datatype copy = t;
        EXPECT(MPI_ERR_TYPE, MPI_Type_free(&copy));
        copy = c;
        EXPECT(MPI_ERR_TYPE, MPI_Type_free(&copy));
        want_envelope(t, MPI_COMBINER_F90_REAL, 2, cases[i]);
    }
    for (int r = 1; r <= 18; r += 4) {
        MPI_Datatype t, t2;
        CHECK_RC(MPI_Type_create_f90_integer(r, &t));
        want_envelope(t, MPI_COMBINER_F90_INTEGER, 1, &r);
        CHECK_RC(MPI_Type_create_f90_integer(r, &t2));
        CHECK(t == t2, "f90_integer(%d) twice gave two handles", r);
        MPI_Datatype copy = t;
        EXPECT(MPI_ERR_TYPE, MPI_Type_free(&copy));
    }
    /* different arguments naming the same kind are different types */
    MPI_Datatype a, b;
    CHECK_RC(MPI_Type_create_f90_real(3, U, &a));
    CHECK_RC(MPI_Type_create_f90_real(4, U, &b));
    CHECK(a != b, "f90_real(3) and f90_real(4) share a handle");

    /* the type carries data and reduces like its kind (REAL*8) */
    MPI_Datatype d8;
    CHECK_RC(MPI_Type_create_f90_real(15, 300, &d8));
    want_size(d8, 8);
    double in[3] = { 1.5, -2.0, 4.25 }, out[3] = { 0 };
    CHECK_RC(MPI_Sendrecv(in, 3, d8, 0, 0, out, 3, d8, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK(out[0] == 1.5 && out[1] == -2.0 && out[2] == 4.25, "sendrecv");
    CHECK_RC(MPI_Allreduce(in, out, 3, d8, MPI_SUM, MPI_COMM_SELF));
    CHECK(out[0] == 1.5 && out[1] == -2.0 && out[2] == 4.25, "allreduce");
    /* a derived type built on it returns it in its contents */
    MPI_Datatype v, got[1];
    int ints[3];
    MPI_Aint adds[1];
    CHECK_RC(MPI_Type_vector(2, 1, 2, d8, &v));
    CHECK_RC(MPI_Type_get_contents(v, 3, 0, 1, ints, adds, got));
    CHECK(got[0] == d8, "vector's old type");
    CHECK_RC(MPI_Type_free(&v));
    want_envelope(d8, MPI_COMBINER_F90_REAL, 2, (const int[]){ 15, 300 });
    CHECK_RC(MPI_Finalize());
    return 0;
}
