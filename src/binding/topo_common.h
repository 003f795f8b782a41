/* What the topology entry points (topo.c, topo_cart.c, topo_graph.c)
 * share: entry checks and the constructor of a communicator with a
 * topology. */
#ifndef SMAP_BINDING_TOPO_COMMON_H
#define SMAP_BINDING_TOPO_COMMON_H

#include <mpi.h>

#include "binding/check.h"
#include "topo/topo.h"

/* An intracommunicator (topologies are not defined on intercommunicators). */
#define TOPO_ENTER(func, comm, c)                                                          \
    do {                                                                                   \
        SMAP_CHECK_RUNNING(func);                                                          \
        SMAP_CHECK_COMM(func, comm, c);                                                    \
        if (SMAP_UNLIKELY((c)->remote_group))                                              \
            return smap_err_raise(comm, MPI_ERR_COMM, func, "%s",                          \
                                  "comm is an intercommunicator");                         \
    } while (0)

/* c's topology must be of kind `want`: t = it. */
#define TOPO_NEED(func, comm, c, want, what, t)                                            \
    do {                                                                                   \
        (t) = (c)->topo;                                                                   \
        if (SMAP_UNLIKELY(!(t) || (t)->kind != (want)))                                    \
            return smap_err_raise(comm, MPI_ERR_TOPOLOGY, func,                            \
                                  "comm has no %s topology", what);                        \
    } while (0)

/* The head of a query of c's topology, which must be of kind `want`:
 * declares c and t (they are the function's variables from here on). */
#define TOPO_QUERY(func, comm, c, want, what, t)                                           \
    struct MPI_ABI_Comm *c;                                                                \
    struct smap_topo *t;                                                                   \
    TOPO_ENTER(func, comm, c);                                                             \
    TOPO_NEED(func, comm, c, want, what, t)

/* An array argument of n entries: it may be NULL only when n == 0. */
#define TOPO_CHECK_ARRAY(func, comm, n, a)                                                 \
    do {                                                                                   \
        if ((n) > 0)                                                                       \
            SMAP_CHECK_PTR(func, comm, a);                                                 \
    } while (0)

/* Returns from the entry point with a check's error (already raised). */
#define TOPO_TRY(check)                                                                    \
    do {                                                                                   \
        int rc_ = (check);                                                                 \
        if (SMAP_UNLIKELY(rc_ != MPI_SUCCESS))                                             \
            return rc_;                                                                    \
    } while (0)

/* Collective over c: the communicator of c's first n ranks, each keeping
 * its rank, with topology t attached (taken over); the other ranks get
 * MPI_COMM_NULL and pass t == NULL.  NULL on a member means t could not be
 * built (out of memory), raised after the agreement so that the other
 * members do not wait forever. */
int topo_comm_new(struct MPI_ABI_Comm *c, int n, struct smap_topo *t, MPI_Comm *newcomm,
                  const char *func);
/* MPI_INFO_NULL or a valid info object. */
int topo_check_info(const char *func, MPI_Comm comm, MPI_Info info);

#endif
