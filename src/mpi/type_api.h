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

#endif
