/* What smartmap keeps in MPI_Status's hidden fields (MPI_internal[5] of the
 * standard ABI's mpi.h), with inline accessors for the layers that fill a
 * status (point-to-point, requests, I/O) and for src/mpi/status_api.c.
 *
 *   MPI_internal[0]  byte count, low 32 bits  (stored as an unsigned bit pattern)
 *   MPI_internal[1]  byte count, high 32 bits (so counts past 2^31 bytes fit)
 *   MPI_internal[2]  cancelled flag: 0 or 1
 *   MPI_internal[3]  reserved, 0
 *   MPI_internal[4]  reserved, 0
 *
 * The count is kept in bytes of the packed stream (what was received), not
 * in elements: MPI_Get_count / MPI_Get_elements turn it into entries or
 * basic elements of whatever datatype the caller asks with
 * (smap_dtype_elements).  MPI_SOURCE / MPI_TAG / MPI_ERROR are the public
 * fields and are set directly.
 *
 * Every helper takes a real status: callers must skip MPI_STATUS_IGNORE
 * (NULL) themselves.  Nothing here raises MPI errors. */
#ifndef SMAP_MPI_STATUS_H
#define SMAP_MPI_STATUS_H

#include <stdint.h>
#include <string.h>

#include <mpi.h>

enum {
    SMAP_STATUS_BYTES_LO = 0,
    SMAP_STATUS_BYTES_HI = 1,
    SMAP_STATUS_CANCELLED = 2,
};

/* The byte count (>= 0). */
static inline MPI_Count smap_status_bytes(const MPI_Status *st)
{
    uint64_t lo = (uint32_t)st->MPI_internal[SMAP_STATUS_BYTES_LO];
    uint64_t hi = (uint32_t)st->MPI_internal[SMAP_STATUS_BYTES_HI];
    return (MPI_Count)((hi << 32) | lo);
}

/* Set the byte count (bytes >= 0). */
static inline void smap_status_set_bytes(MPI_Status *st, MPI_Count bytes)
{
    uint64_t b = (uint64_t)bytes;
    st->MPI_internal[SMAP_STATUS_BYTES_LO] = (int)(uint32_t)b;
    st->MPI_internal[SMAP_STATUS_BYTES_HI] = (int)(uint32_t)(b >> 32);
}

static inline int smap_status_cancelled(const MPI_Status *st)
{
    return st->MPI_internal[SMAP_STATUS_CANCELLED] != 0;
}

static inline void smap_status_set_cancelled(MPI_Status *st, int flag)
{
    st->MPI_internal[SMAP_STATUS_CANCELLED] = flag != 0;
}

/* A completed operation: source, tag, byte count; not cancelled.  MPI_ERROR
 * is left alone, as MPI says for single-completion calls (MPI_Recv,
 * MPI_Wait, …); the multiple-completion calls set it themselves. */
static inline void smap_status_fill(MPI_Status *st, int source, int tag, MPI_Count bytes)
{
    st->MPI_SOURCE = source;
    st->MPI_TAG = tag;
    smap_status_set_bytes(st, bytes);
    st->MPI_internal[SMAP_STATUS_CANCELLED] = 0;
    st->MPI_internal[3] = 0;
    st->MPI_internal[4] = 0;
}

/* MPI's "empty" status (MPI_PROC_NULL peers, inactive requests):
 * MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, count 0, not cancelled. */
static inline void smap_status_set_empty(MPI_Status *st)
{
    st->MPI_ERROR = MPI_SUCCESS;
    smap_status_fill(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
}

/* MPI_Status_c2f and its kin: C, Fortran (MPI_Fint[MPI_F_STATUS_SIZE])
 * and Fortran 2008 (MPI_F08_status) statuses have the same 8-int layout in
 * the standard ABI. */
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint) &&
                   sizeof(MPI_F08_status) == sizeof(MPI_Status),
               "status layouts differ");

static inline void smap_status_copy(void *to, const void *from)
{
    memmove(to, from, sizeof(MPI_Status));
}

/* ---- Counts through a datatype (status_api.c), for MPI_Get_count,
 * MPI_Get_elements, MPI_Status_set_elements and their large-count twins:
 * MPI_SUCCESS or an error class, the reason recorded (base/why.h).  The
 * _int forms give MPI_UNDEFINED for a count past INT_MAX. ---- */
struct MPI_ABI_Datatype;
void smap_status_count(const MPI_Status *status, struct MPI_ABI_Datatype *t, MPI_Count *count);
void smap_status_count_int(const MPI_Status *status, struct MPI_ABI_Datatype *t, int *count);
int smap_status_elements(const MPI_Status *status, struct MPI_ABI_Datatype *t, MPI_Count *count);
int smap_status_elements_int(const MPI_Status *status, struct MPI_ABI_Datatype *t, int *count);
int smap_status_set_elements(MPI_Status *status, struct MPI_ABI_Datatype *t, MPI_Count count);

#endif
