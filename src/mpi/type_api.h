/* MPI_Type_dup / MPI_Type_free with their attributes' callbacks
 * (type_api.c): MPI_SUCCESS or an error class, the reason recorded
 * (base/why.h). */
#ifndef SMAP_MPI_TYPE_API_H
#define SMAP_MPI_TYPE_API_H

#include <mpi.h>

#include "dtype/dtype.h"

int smap_type_dup(MPI_Datatype oldtype, smap_dtype_t *old, MPI_Datatype *newtype);
/* MPI_Type_free of the program's handle *datatype to t. */
int smap_type_free(MPI_Datatype *datatype, smap_dtype_t *t);

/* ---- The constructors (type_create.c), called with the arguments as
 * given (large: the _c binding's MPI_Count arrays); each checks them,
 * raises its errors in the name func and hands the new type out. ---- */
/* The indexed family and struct: block lengths (per block or one for
 * all), displacements (in elements of oldtype or in bytes), one old type
 * or one per block (struct), as int/MPI_Aint arrays or MPI_Count ones. */
struct blocks_args {
    int combiner, large, bytes, per_block_bl, is_struct;
    MPI_Count count, bl_all;
    const int *bl_i;
    const MPI_Count *bl_c;
    const int *disp_i;
    const MPI_Aint *disp_a;
    const MPI_Count *disp_c;
    MPI_Datatype oldtype;
    const MPI_Datatype *types;
};

int smap_type_bad_blocklength(const char *func, MPI_Count i, MPI_Count bl);
int smap_type_contiguous(const char *func, int large, MPI_Count count, MPI_Datatype oldtype,
                         MPI_Datatype *newtype);
int smap_type_vector(const char *func, int large, int bytes, MPI_Count count, MPI_Count bl,
                     MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
int smap_type_blocks(const char *func, const struct blocks_args *a, MPI_Datatype *newtype);
int smap_type_resized(const char *func, int large, MPI_Datatype oldtype, MPI_Count lb,
                      MPI_Count extent, MPI_Datatype *newtype);
int smap_type_subarray(const char *func, int large, int ndims, const int *si, const int *ssi,
                       const int *sti, const MPI_Count *sc, const MPI_Count *ssc,
                       const MPI_Count *stc, int order, MPI_Datatype oldtype,
                       MPI_Datatype *newtype);
int smap_type_darray(const char *func, int large, int size, int rank, int ndims, const int *gi,
                     const MPI_Count *gc, const int *distribs, const int *dargs,
                     const int *psizes, int order, MPI_Datatype oldtype, MPI_Datatype *newtype);

#endif
