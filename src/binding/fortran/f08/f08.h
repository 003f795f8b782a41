/* mpi_f08's C side (libsmartmap_fort): descriptors of choice buffers. */
#ifndef SMAP_BINDING_FORTRAN_F08_H
#define SMAP_BINDING_FORTRAN_F08_H

#include <ISO_Fortran_binding.h>

#include "binding/fortran/fortran.h"

/* *base = the buffer of descriptor d; MPI_ERR_BUFFER naming func and arg
 * when it is a non-contiguous section (unless only its address counts).
 * Errors go to comm's handler (the call's communicator, or MPI_COMM_NULL). */
int smap_f08_contig(MPI_Comm comm, const char *func, const char *arg, CFI_cdesc_t *d,
                    int address_only, void **base);
/* The buffer of d for (count, datatype): when d is a non-contiguous
 * section, *dt and *count become a type describing it and 1, and *made is
 * that type, for the caller to free after the call (else MPI_DATATYPE_NULL). */
int smap_f08_section(MPI_Comm comm, const char *func, CFI_cdesc_t *d, void **base,
                     MPI_Count *count, MPI_Datatype *dt, MPI_Datatype *made);

#endif
