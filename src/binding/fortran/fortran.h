/* What the Fortran entry points (gen_f77.c and the hand-written wrappers of
 * this folder) share: argument conversion and the symbol aliases.
 *
 * Fortran passes everything by reference, a CHARACTER argument with a
 * hidden length (size_t, gfortran >= 8, ifx, flang) after the others, and
 * LOGICAL as an integer with .TRUE. = 1 (gfortran, flang; ifx with
 * -fpscomp logicals): input LOGICALs count any nonzero as true.
 * The sentinels (MPI_BOTTOM, MPI_STATUS_IGNORE, ...) are variables in
 * common blocks that sentinels.c defines; an argument is one when its
 * address is the block's. */
#ifndef SMAP_BINDING_FORTRAN_H
#define SMAP_BINDING_FORTRAN_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define SMAP_F_API __attribute__((visibility("default")))

/* The common blocks (one variable each; gfortran, ifx and flang name the
 * block /MPI_FORTRAN_BOTTOM/ mpi_fortran_bottom_). */
extern SMAP_F_API MPI_Fint mpi_fortran_bottom_;
extern SMAP_F_API MPI_Fint mpi_fortran_in_place_;
extern SMAP_F_API MPI_Fint mpi_fortran_buffer_automatic_;
extern SMAP_F_API MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
extern SMAP_F_API MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
extern SMAP_F_API MPI_Fint mpi_fortran_errcodes_ignore_[1];
extern SMAP_F_API MPI_Fint mpi_fortran_unweighted_[1];
extern SMAP_F_API MPI_Fint mpi_fortran_weights_empty_[1];
extern SMAP_F_API char mpi_fortran_argv_null_[1];
extern SMAP_F_API char mpi_fortran_argvs_null_[1];

/* A choice buffer: MPI_BOTTOM and MPI_IN_PLACE become C's. */
static inline void *smap_f_buf(const void *p)
{
    if (p == (const void *)&mpi_fortran_bottom_)
        return MPI_BOTTOM;
    if (p == (const void *)&mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    if (p == (const void *)&mpi_fortran_buffer_automatic_)
        return MPI_BUFFER_AUTOMATIC;
    return (void *)p;
}
#define SMAP_F_BUF(p) smap_f_buf(p)
/* INTEGER STATUS(MPI_STATUS_SIZE) has MPI_Status's layout (ABI: 8 ints). */
#define SMAP_F_STATUS(p) \
    ((p) == mpi_fortran_status_ignore_ ? MPI_STATUS_IGNORE : (MPI_Status *)(void *)(p))
#define SMAP_F_STATUSES(p) \
    ((p) == mpi_fortran_statuses_ignore_ ? MPI_STATUSES_IGNORE : (MPI_Status *)(void *)(p))
#define SMAP_F_ERRCODES(p) ((p) == mpi_fortran_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : (p))
#define SMAP_F_WEIGHTS(p) \
    ((p) == mpi_fortran_unweighted_ ? MPI_UNWEIGHTED \
     : (p) == mpi_fortran_weights_empty_ ? MPI_WEIGHTS_EMPTY : (p))

/* A Fortran handle to C.  A predefined handle's integer is its standard-ABI
 * value (below SMAP_F_PREDEF_MAX, src/mpi/handles.h's SMAP_HANDLE_INT_BASE)
 * and converts as itself, without PMPI_<Kind>_f2c's validation: the C call
 * validates its handles anyway, and this is the latency path. */
#define SMAP_F_PREDEF_MAX 0x400
#define SMAP_F2C(CType, Kind, i)                                              \
    ((unsigned)(i) < SMAP_F_PREDEF_MAX ? (CType)(uintptr_t)(unsigned)(i) \
                                       : PMPI_##Kind##_f2c(i))

#define SMAP_F_TRUE 1
#define SMAP_F_LOGICAL_IN(x) ((x) != 0)
#define SMAP_F_LOGICAL_OUT(c) ((c) ? SMAP_F_TRUE : 0)

/* Room beyond a Fortran string's length that a C call may write into (the
 * longest MPI_MAX_* of the ABI, MPI_MAX_LIBRARY_VERSION_STRING, and its NUL). */
#define SMAP_F_STR_SLACK (MPI_MAX_LIBRARY_VERSION_STRING + 1)

/* A NUL-terminated copy of a Fortran string without its trailing blanks
 * (NULL when out of memory); the caller frees it. */
SMAP_F_API char *smap_f_str_in(const char *f, size_t len);
/* Copies C string c into the Fortran string f of len characters,
 * blank-padded, truncated at len. */
SMAP_F_API void smap_f_str_out(const char *c, char *f, size_t len);
/* Raises MPI_ERR_NO_MEM for func on MPI_COMM_WORLD's handler. */
SMAP_F_API int smap_f_nomem(const char *func);
/* Records SMAP_F_TRUE/0 as the ABI's Fortran booleans (util.c). */
void smap_f_record_booleans(void);
/* Raises error class cls for func on comm's handler (MPI_COMM_NULL: the
 * default one) with a message (for libsmartmap_fort, which cannot reach
 * libmpi's internals). */
SMAP_F_API int smap_f_raise(MPI_Comm comm, int cls, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Hooks request req (src/mpi/request_hook.h) for libsmartmap_fort, which
 * cannot reach libmpi's internals: mpi_f08's array-section temporaries
 * are copied in at each start and out at completion, freed with it. */
struct smap_req_hook;
SMAP_F_API int smap_f_request_hook(MPI_Request req, const struct smap_req_hook *hook, void *ctx);

/* Array lengths no argument gives (the *alltoallw types, Cart_sub's
 * remain_dims): counts of comm's groups or topology (0 for a bad comm;
 * the call then reports the comm). */
SMAP_F_API int smap_f_comm_nsend(MPI_Comm comm, int neighbor);
SMAP_F_API int smap_f_comm_nrecv(MPI_Comm comm, int neighbor);
SMAP_F_API int smap_f_cartdim(MPI_Comm comm);

/* IERROR is optional in mpi_f08, which calls these same entry points:
 * absent, its pointer is NULL.  A wrapper names its parameter ierror_opt
 * and starts with SMAP_F_IERROR, which gives it an `ierror` to write. */
#define SMAP_F_IERROR          \
    MPI_Fint smap_f_ierr_ = 0; \
    MPI_Fint *ierror = ierror_opt ? ierror_opt : &smap_f_ierr_

/* pmpi_foo_ is the definition; mpi_foo_ (the name a program calls) and the
 * other manglings are weak aliases of it, so a profiling library can
 * replace mpi_foo_ and call pmpi_foo_. */
#define SMAP_F_ALIAS1(ret, sym, target, sig) \
    SMAP_F_API ret sym sig __attribute__((weak, alias(#target)));
#define SMAP_F_ALIASES(name, NAME, ret, sig)          \
    SMAP_F_ALIAS1(ret, mpi_##name##_, pmpi_##name##_, sig)  \
    SMAP_F_ALIAS1(ret, mpi_##name##__, pmpi_##name##_, sig) \
    SMAP_F_ALIAS1(ret, mpi_##name, pmpi_##name##_, sig)     \
    SMAP_F_ALIAS1(ret, MPI_##NAME, pmpi_##name##_, sig)     \
    SMAP_F_ALIAS1(ret, pmpi_##name##__, pmpi_##name##_, sig) \
    SMAP_F_ALIAS1(ret, pmpi_##name, pmpi_##name##_, sig)    \
    SMAP_F_ALIAS1(ret, PMPI_##NAME, pmpi_##name##_, sig)
/* Every spelling of another name (name2) for the same definition. */
#define SMAP_F_ALIASES2(name, name2, NAME2, ret, sig)          \
    SMAP_F_ALIAS1(ret, mpi_##name2##_, pmpi_##name##_, sig)    \
    SMAP_F_ALIAS1(ret, mpi_##name2##__, pmpi_##name##_, sig)   \
    SMAP_F_ALIAS1(ret, mpi_##name2, pmpi_##name##_, sig)       \
    SMAP_F_ALIAS1(ret, MPI_##NAME2, pmpi_##name##_, sig)       \
    SMAP_F_ALIAS1(ret, pmpi_##name2##_, pmpi_##name##_, sig)   \
    SMAP_F_ALIAS1(ret, pmpi_##name2##__, pmpi_##name##_, sig)  \
    SMAP_F_ALIAS1(ret, pmpi_##name2, pmpi_##name##_, sig)      \
    SMAP_F_ALIAS1(ret, PMPI_##NAME2, pmpi_##name##_, sig)

#endif
