/* Shared by op.c (objects, dispatch) and op_types.c (the typed loops and
 * which predefined op accepts which predefined datatype). */
#ifndef SMAP_MPI_OP_INTERNAL_H
#define SMAP_MPI_OP_INTERNAL_H

#include <mpi.h>

#include "dtype/dtype.h"

/* The predefined ops, in table order (op.c maps ABI handles to these). */
enum smap_opx {
    SMAP_OPX_SUM, SMAP_OPX_MIN, SMAP_OPX_MAX, SMAP_OPX_PROD,
    SMAP_OPX_LAND, SMAP_OPX_LOR, SMAP_OPX_LXOR,
    SMAP_OPX_BAND, SMAP_OPX_BOR, SMAP_OPX_BXOR,
    SMAP_OPX_MINLOC, SMAP_OPX_MAXLOC,
    SMAP_OPX_REPLACE, SMAP_OPX_NO_OP,
    SMAP_OPX_N
};

/* inout[i] = in[i] op inout[i] for n contiguous elements of one basic type. */
typedef void smap_op_loop_fn(const void *in, void *inout, MPI_Count n);

/* The loop of predefined op opx (not REPLACE/NO_OP) on predefined datatype
 * t.  Returns MPI_SUCCESS and sets *fn, or MPI_ERR_OP (the standard does not
 * allow the pair) / MPI_ERR_TYPE (t is an optional type this build cannot
 * compute on), with *why saying so. */
int smap_op_loop(int opx, const smap_dtype_t *t, smap_op_loop_fn **fn, const char **why);

/* Whether t is a predefined value-index pair (MPI_2INT ...). */
static inline int smap_op_is_pair(const smap_dtype_t *t)
{
    return (t->flags & SMAP_DT_PAIR) != 0;
}

#endif
