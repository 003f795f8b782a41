/* What every MPI_T entry point (mpit.c, mpit_pvar.c) does around its
 * work: MPI_T functions return their error code and never call an error
 * handler (MPI 5.0 section 15.3.10). */
#ifndef SMAP_BINDING_MPIT_COMMON_H
#define SMAP_BINDING_MPIT_COMMON_H

#include <mpi.h>

#include "tool/tool.h"

/* Runs expr under the tool lock once MPI_T is initialised. */
#define T_CALL(expr)                           \
    do {                                       \
        int t_rc_ = smap_tool_enter();         \
        if (t_rc_ != MPI_SUCCESS)              \
            return t_rc_;                      \
        t_rc_ = (expr);                        \
        smap_tool_leave();                     \
        return t_rc_;                          \
    } while (0)

#define T_NEED(p)                              \
    do {                                       \
        if (!(p))                              \
            return MPI_T_ERR_INVALID;          \
    } while (0)

#endif
