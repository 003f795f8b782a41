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
int smap_f08_section_slow(MPI_Comm comm, const char *func, CFI_cdesc_t *d, void **base,
                          MPI_Count *count, MPI_Datatype *dt, MPI_Datatype *made);

/* A non-contiguous section passed through a contiguous temporary (every
 * choice buffer without a (count, datatype) of its own that section_slow
 * could describe: collectives, one-sided, MPI_Pack's output ...).  The
 * temporaries of one call form a list. */
struct smap_f08_tmp;
/* *base = the buffer of d: itself when contiguous, else a temporary holding
 * a copy of the section (copied back after the call when out is set),
 * prepended to *list.  MPI_ERR_NO_MEM when none can be had. */
int smap_f08_copy_slow(MPI_Comm comm, const char *func, CFI_cdesc_t *d, int out, void **base,
                       struct smap_f08_tmp **list);
/* After the call (rc its result): with no request (req NULL, or
 * MPI_REQUEST_NULL) the out temporaries are copied back when rc is
 * MPI_SUCCESS and all are freed; with one, the request's hook does that
 * at completion, copies the sections in again at each MPI_Start of a
 * persistent request, and frees them with it. */
void smap_f08_copy_end(struct smap_f08_tmp *list, int rc, const MPI_Request *req);

/* CFI_is_contiguous without the call into the Fortran runtime: the
 * elements follow each other, dimension after dimension (an empty or
 * one-element dimension never breaks that). */
static inline int smap_f08_contiguous(const CFI_cdesc_t *d)
{
    CFI_index_t want = (CFI_index_t)d->elem_len;
    for (int r = 0; r < d->rank; r++) {
        if (d->dim[r].extent > 1 && d->dim[r].sm != want)
            return 0;
        want *= d->dim[r].extent;
    }
    return 1;
}

/* The latency path inline: a scalar or contiguous buffer needs nothing. */
static inline int smap_f08_section(MPI_Comm comm, const char *func, CFI_cdesc_t *d, void **base,
                                   MPI_Count *count, MPI_Datatype *dt, MPI_Datatype *made)
{
    if (d->rank == 0 || smap_f08_contiguous(d)) {
        *made = MPI_DATATYPE_NULL;
        *base = smap_f_buf(d->base_addr);
        return MPI_SUCCESS;
    }
    return smap_f08_section_slow(comm, func, d, base, count, dt, made);
}

/* smap_f08_copy_slow behind the contiguous test. */
static inline int smap_f08_copy(MPI_Comm comm, const char *func, CFI_cdesc_t *d, int out,
                                void **base, struct smap_f08_tmp **list)
{
    if (d->rank == 0 || smap_f08_contiguous(d)) {
        *base = smap_f_buf(d->base_addr);
        return MPI_SUCCESS;
    }
    return smap_f08_copy_slow(comm, func, d, out, base, list);
}

#endif
