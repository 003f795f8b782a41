/* Checks shared by the one-sided entry points (rma_win.c, rma_ops.c,
 * rma_sync.c).  Errors on a valid window go to the window's handler;
 * errors that leave no valid window go to MPI_COMM_SELF's. */
#ifndef SMAP_BINDING_RMA_COMMON_H
#define SMAP_BINDING_RMA_COMMON_H

#include <mpi.h>

#include "binding/check.h"
#include "rma/rma.h"

#define RMA_CHECK_WIN(func, win, w)                                                        \
    do {                                                                                   \
        SMAP_CHECK_RUNNING(func);                                                          \
        (w) = smap_win_get(win);                                                           \
        if (SMAP_UNLIKELY(!(w)))                                                           \
            return smap_err_raise(MPI_COMM_NULL, MPI_ERR_WIN, func, "%s",                  \
                                  (win) == MPI_WIN_NULL ? "win is MPI_WIN_NULL"             \
                                                        : "win is not a valid window");    \
    } while (0)

#define RMA_RAISE(func, win, cls, ...) smap_win_raise(win, cls, func, __VA_ARGS__)

/* The result of a call into src/rma. */
#define RMA_DONE(func, win, rc)                                                            \
    ((rc) == MPI_SUCCESS ? MPI_SUCCESS : smap_win_raise(win, rc, func, "%s", smap_why()))

#define RMA_CHECK_PTR(func, win, ptr)                                                      \
    do {                                                                                   \
        if (SMAP_UNLIKELY(!(ptr)))                                                         \
            return RMA_RAISE(func, win, MPI_ERR_ARG, "%s is NULL", #ptr);                  \
    } while (0)

#define RMA_CHECK_RANK(func, win, w, rank)                                                 \
    do {                                                                                   \
        if (SMAP_UNLIKELY((rank) < 0 || (rank) >= (w)->n))                                 \
            return RMA_RAISE(func, win, MPI_ERR_RANK, "rank %d is not in the window's "    \
                             "group (size %d)", (rank), (w)->n);                           \
    } while (0)

#endif
