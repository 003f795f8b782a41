/* Hierarchical collectives for communicators spanning nodes (DESIGN.md
 * D13, src/coll/hier/README.md): an on-node phase on a per-node
 * sub-communicator (the control-block algorithms of src/coll/smap) and an
 * inter-node phase among one leader per node.
 *
 * The hierarchical table (coll/dispatch.c) calls smap_hier_use(c) for a
 * blocking collective of an intracommunicator without a control block;
 * when it says yes, the
 * smap_hier_* function below runs the collective, with the arguments of
 * coll.h.  Each returns MPI_SUCCESS, an MPI error class (smap_why()
 * says why), or SMAP_HIER_FLAT: this call is not one the hierarchy keeps
 * correct (a non-commutative op over nodes whose ranks interleave) and the
 * caller runs the flat schedule instead.  Every member of c decides alike. */
#ifndef SMAP_COLL_HIER_HIER_H
#define SMAP_COLL_HIER_HIER_H

#include <mpi.h>

#include "base/why.h"
#include "coll/coll.h"

#define SMAP_HIER_FLAT (-2)

/* Whether c's blocking collectives go through the hierarchy: c spans
 * several nodes and SMAP_COLL_HIER is on.  Builds c's state on first use
 * (collective over c: every member asks at the same collective). */
int smap_hier_use(smap_comm_t *c);

int smap_hier_barrier(smap_comm_t *c);
int smap_hier_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c);
int smap_hier_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                     MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c);
int smap_hier_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                        MPI_Datatype type, MPI_Op op, smap_comm_t *c);
int smap_hier_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                        MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                        smap_dtype_t *rt, smap_comm_t *c);
/* rcounts .p NULL: Reduce_scatter_block (every block `block` elements). */
int smap_hier_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                             MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                             smap_comm_t *c);
/* Scan (exclusive 0) and Exscan (1). */
int smap_hier_scan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                   MPI_Datatype type, MPI_Op op, int exclusive, smap_comm_t *c);
/* The plain forms only (counts .p NULL; dispatch.c calls the v forms
 * below for Gatherv and Scatterv). */
int smap_hier_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                     MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                     smap_dtype_t *rt, int root, smap_comm_t *c);
int smap_hier_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                      struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                      smap_dtype_t *rt, int root, smap_comm_t *c);
/* The v forms: counts and displacements read at the root only. */
int smap_hier_gatherv(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                      struct smap_cvec rcounts, struct smap_cvec displs, smap_dtype_t *rt,
                      int root, smap_comm_t *c);
int smap_hier_scatterv(const void *sbuf, struct smap_cvec scounts, struct smap_cvec displs,
                       smap_dtype_t *st, void *rbuf, MPI_Count rcount, smap_dtype_t *rt,
                       int root, smap_comm_t *c);
/* Alltoall, Alltoallv and Alltoallw: every form with
 * SMAP_COLL_HIER_ALLTOALL=1, else only plain Alltoall with blocks up to
 * SMAP_COLL_HIER_ALLTOALL_MAX (otherwise SMAP_HIER_FLAT; also for the v
 * and w forms with one rank per node). */
int smap_hier_alltoall(const struct smap_a2a *a, smap_comm_t *c);

/* Non-blocking (and persistent: the request pointer the binding passes)
 * forms as one schedule on c that follows the nodes (nbc*.c), started in
 * *req.  smap_hier_nb_use(c): the job spans nodes and SMAP_COLL_HIER is on
 * (local: builds nothing).  They answer SMAP_HIER_FLAT when c is on one
 * node, when nothing moves, for a non-commutative op over interleaved
 * nodes (Iscan, Iexscan: any op), for Igather/Iscatter below their
 * crossovers, for the four rooted forms and Ialltoallv/w with one rank per
 * node, and for the Ialltoall forms that Alltoall would run flat (above). */
int smap_hier_nb_use(smap_comm_t *c);
int smap_hier_ibcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c,
                     MPI_Request *req);
/* Ireduce (all 0) and Iallreduce (all 1). */
int smap_hier_ireduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                      MPI_Datatype type, MPI_Op op, int root, int all, smap_comm_t *c,
                      MPI_Request *req);
int smap_hier_ibarrier(smap_comm_t *c, MPI_Request *req);
/* Iallgather, and Iallgatherv (rcounts .p non-NULL). */
int smap_hier_iallgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                         MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                         smap_dtype_t *rt, smap_comm_t *c, MPI_Request *req);
/* rcounts .p NULL: Ireduce_scatter_block. */
int smap_hier_ireduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                              MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                              smap_comm_t *c, MPI_Request *req);
/* Iscan (exclusive 0) and Iexscan (1). */
int smap_hier_iscan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                    MPI_Datatype type, MPI_Op op, int exclusive, smap_comm_t *c,
                    MPI_Request *req);
/* The plain forms (nbc_gather.c). */
int smap_hier_igather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                      MPI_Count rcount, smap_dtype_t *rt, int root, smap_comm_t *c,
                      MPI_Request *req);
int smap_hier_iscatter(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                       MPI_Count rcount, smap_dtype_t *rt, int root, smap_comm_t *c,
                       MPI_Request *req);
/* The v forms (nbc_gatherv.c): counts and displacements read at the root
 * only; the leaders learn their members' sizes while the schedule runs. */
int smap_hier_igatherv(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                       struct smap_cvec rcounts, struct smap_cvec displs, smap_dtype_t *rt,
                       int root, smap_comm_t *c, MPI_Request *req);
int smap_hier_iscatterv(const void *sbuf, struct smap_cvec scounts, struct smap_cvec displs,
                        smap_dtype_t *st, void *rbuf, MPI_Count rcount, smap_dtype_t *rt,
                        int root, smap_comm_t *c, MPI_Request *req);
/* Ialltoall, Ialltoallv, Ialltoallw, on smap_hier_alltoall's terms
 * (alltoall.c, nbc_alltoallv.c). */
int smap_hier_ialltoall(const struct smap_a2a *a, smap_comm_t *c, MPI_Request *req);

/* MPI_Comm_free of c (collective): frees the sub-communicators. */
int smap_hier_release(smap_comm_t *c);
/* c is destroyed without MPI_Comm_free (MPI_Finalize's sweep, WORLD at
 * finalize): frees the memory only; the sub-communicators are swept with
 * the other live ones. */
void smap_hier_forget(smap_comm_t *c);


#endif
