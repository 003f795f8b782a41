/* mpi_f08's choice buffers (MPI 5.0 §19.1.2): TYPE(*), DIMENSION(..)
 * arrives as an ISO_Fortran_binding descriptor.  A contiguous one is its
 * base address (MPI_BOTTOM and MPI_IN_PLACE recognised as in mpif.h).  A
 * non-contiguous array section that goes with a (count, datatype) pair is
 * described by a datatype built on top of the user's -- nested hvectors over
 * the descriptor's strides when count covers the whole section, else an
 * hindexed_block of the first count elements -- so that the call takes
 * (base, 1, that type): no copy, and a nonblocking call may return at once
 * (the library holds its own reference to the type; the wrapper frees its
 * handle right after the call).  The section's elements must then have the
 * datatype's size and extent (the usual case: MPI_REAL on a REAL array). */
#include <ISO_Fortran_binding.h>
#include <stdlib.h>

#include "binding/fortran/f08/f08.h"

int smap_f08_contig(MPI_Comm comm, const char *func, const char *arg, CFI_cdesc_t *d,
                    int address_only, void **base)
{
    *base = smap_f_buf(d->base_addr);
    if (d->rank == 0 || address_only || smap_f08_contiguous(d))
        return MPI_SUCCESS;
    return smap_f_raise(comm, MPI_ERR_BUFFER, func,
                        "argument %s is a non-contiguous array section, which this "
                        "procedure takes only contiguous (pass a contiguous copy)", arg);
}

/* Byte offset of element i (Fortran order) of the section. */
static MPI_Aint elem_offset(const CFI_cdesc_t *d, MPI_Count i)
{
    MPI_Aint off = 0;
    for (int r = 0; r < d->rank; r++) {
        MPI_Count n = d->dim[r].extent;
        off += (MPI_Aint)(i % n) * d->dim[r].sm;
        i /= n;
    }
    return off;
}

int smap_f08_section_slow(MPI_Comm comm, const char *func, CFI_cdesc_t *d, void **base,
                          MPI_Count *count, MPI_Datatype *dt, MPI_Datatype *made)
{
    *made = MPI_DATATYPE_NULL;
    *base = smap_f_buf(d->base_addr);
    if (*base == MPI_BOTTOM || *base == MPI_IN_PLACE)
        return MPI_SUCCESS;
    MPI_Count size = 0, lb = 0, extent = 0, n = 1;
    if (PMPI_Type_size_c(*dt, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent_c(*dt, &lb, &extent) != MPI_SUCCESS)
        return MPI_SUCCESS;   /* a bad datatype: the call itself reports it */
    if (size != (MPI_Count)d->elem_len || extent != (MPI_Count)d->elem_len || lb != 0)
        return smap_f_raise(comm, MPI_ERR_TYPE, func,
                            "a non-contiguous array section of %zu-byte elements needs a "
                            "datatype of that size and extent (this one: size %lld, "
                            "extent %lld)", d->elem_len, (long long)size, (long long)extent);
    for (int r = 0; r < d->rank; r++)
        n *= d->dim[r].extent;
    if (*count > n)
        return smap_f_raise(comm, MPI_ERR_COUNT, func,
                            "count %lld exceeds the %lld elements of the array section",
                            (long long)*count, (long long)n);
    MPI_Datatype t = *dt;
    int rc = MPI_SUCCESS;
    if (*count == n) {
        for (int r = 0; r < d->rank && rc == MPI_SUCCESS; r++) {
            MPI_Datatype next;
            rc = PMPI_Type_create_hvector_c(d->dim[r].extent, 1, d->dim[r].sm, t, &next);
            if (t != *dt)
                PMPI_Type_free(&t);
            t = next;
        }
    } else {
        MPI_Count *disp = malloc((size_t)(*count > 0 ? *count : 1) * sizeof *disp);
        if (!disp)
            return smap_f_nomem(func);
        for (MPI_Count i = 0; i < *count; i++)
            disp[i] = elem_offset(d, i);
        rc = PMPI_Type_create_hindexed_block_c(*count, 1, disp, *dt, &t);
        free(disp);
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(&t);
    if (rc != MPI_SUCCESS)
        return rc;
    *made = *dt = t;
    *count = 1;
    return MPI_SUCCESS;
}

