/* The blocking collectives through the control blocks (DESIGN.md D6): the
 * communicator has a slot (c->slot >= 0).  coll/dispatch.c puts them in the
 * table of such a communicator; coll/hier runs its node phases with them.
 * Arguments as in coll/coll.h (already checked); each returns MPI_SUCCESS
 * or an MPI error class, and then smap_why() says why. */
#ifndef SMAP_COLL_SMAP_CB_H
#define SMAP_COLL_SMAP_CB_H

#include "base/why.h"
#include "coll/coll.h"

int smap_cb_barrier(smap_comm_t *c);
/* MPI_COMM_WORLD's barrier when the job is one node (world_barrier.c):
 * the SMARTMAP node barrier, or the launcher's. */
int smap_cb_world_barrier(smap_comm_t *c);
int smap_cb_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c);
int smap_cb_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                   MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c);
int smap_cb_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                      MPI_Datatype type, MPI_Op op, smap_comm_t *c);
/* rcounts NULL: every block has `block` elements (Reduce_scatter_block). */
int smap_cb_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                           MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                           smap_comm_t *c);
int smap_cb_scan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                 MPI_Datatype type, MPI_Op op, int exclusive, smap_comm_t *c);
/* The v variants (vec) take counts and displacements, which only the root
 * reads (others may pass NULL: a v variant's path must be the root's on
 * every rank all the same); the plain ones use the scalar count.  The
 * signatures are the dispatch table's (coll.h), which points here with no
 * wrapper between: these are the small messages' latency. */
int smap_cb_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                   MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                   smap_dtype_t *rt, int root, int vec, smap_comm_t *c);
int smap_cb_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                    struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                    smap_dtype_t *rt, int root, int vec, smap_comm_t *c);
int smap_cb_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                      MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                      smap_dtype_t *rt, smap_comm_t *c);
int smap_cb_alltoall(const struct smap_a2a *a, smap_comm_t *c);

#endif
