/* MPI_Type_create_f90_integer/real/complex: a type of the matching
 * predefined kind (selection and the types in src/dtype/f90.c), which
 * remembers the arguments for MPI_Type_get_envelope/contents.  The handle is
 * predefined: the program must not free it (MPI 5.0 §19.1.9). */
#include "binding/check.h"
#include "dtype/dtype.h"

static int f90(const char *F, int combiner, MPI_Datatype t, MPI_Datatype *newtype, int p, int r)
{
    SMAP_CHECK_RUNNING(F);
    SMAP_CHECK_PTR(F, MPI_COMM_NULL, newtype);
    if (t == MPI_DATATYPE_NULL)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F,
                              "no supported Fortran kind has precision %d and range %d "
                              "(MPI_UNDEFINED is %d)",
                              p, r, MPI_UNDEFINED);
    smap_dtype_t *f = smap_dtype_f90_type(combiner, p, r, t);
    if (!f)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_NO_MEM, F, "out of memory");
    *newtype = smap_dtype_handle(f);
    return MPI_SUCCESS;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    MPI_Datatype t = r == MPI_UNDEFINED ? MPI_DATATYPE_NULL : smap_dtype_f90_integer(r);
    return f90("MPI_Type_create_f90_integer", MPI_COMBINER_F90_INTEGER, t, newtype,
               MPI_UNDEFINED, r);
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, smap_dtype_f90_real(p, r, 0),
               newtype, p, r);
}

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX,
               smap_dtype_f90_real(p, r, 1), newtype, p, r);
}
