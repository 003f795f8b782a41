/* MPI_Type_create_f90_integer/real/complex (MPI 5.0 §19.1.9): the
 * predefined type of the Fortran kind that SELECTED_INT_KIND(r) /
 * SELECTED_REAL_KIND(p, r) would give, for the kinds of the usual Fortran
 * compilers on x86-64 and aarch64 (gfortran, flang): integers of 1, 2, 4,
 * 8, 16 bytes (decimal ranges 2, 4, 9, 18, 38), reals of 4, 8, 16 bytes
 * (precision 6, 15, 33; range 37, 307, 4931).  The smallest kind that
 * satisfies every given requirement is chosen. */
#include "dtype/dtype.h"

MPI_Datatype smap_dtype_f90_integer(int r)
{
    static const struct {
        int r;
        MPI_Datatype t;
    } k[] = {{2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8},
             {38, MPI_INTEGER16}};
    for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++)
        if (r <= k[i].r)
            return k[i].t;
    return MPI_DATATYPE_NULL;
}

MPI_Datatype smap_dtype_f90_real(int p, int r, int complex)
{
    static const struct {
        int p, r;
        MPI_Datatype real, cplx;
    } k[] = {{6, 37, MPI_REAL4, MPI_COMPLEX8},
             {15, 307, MPI_REAL8, MPI_COMPLEX16},
             {33, 4931, MPI_REAL16, MPI_COMPLEX32}};
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return MPI_DATATYPE_NULL;
    for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++)
        if ((p == MPI_UNDEFINED || p <= k[i].p) && (r == MPI_UNDEFINED || r <= k[i].r))
            return complex ? k[i].cplx : k[i].real;
    return MPI_DATATYPE_NULL;
}
