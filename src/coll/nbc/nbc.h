/* Non-blocking collectives (src/coll/nbc/README.md): each function builds
 * the collective's schedule (src/coll/sched) on c and
 *   - req != NULL: starts it, *req the request that completes it
 *     (MPI_Ibcast, ...);
 *   - req == NULL: runs it to completion (the blocking collectives of a
 *     communicator without a control block).
 * Arguments are checked by the binding and arrive as in coll.h (buffers
 * may be MPI_IN_PLACE where MPI allows it).  Returns MPI_SUCCESS or an MPI
 * error class, and then smap_why() says why. */
#ifndef SMAP_COLL_NBC_NBC_H
#define SMAP_COLL_NBC_NBC_H

#include <mpi.h>

#include "base/why.h"
#include "coll/coll.h"
#include "coll/sched/sched.h"

int smap_nbc_barrier(smap_comm_t *c, MPI_Request *req);
int smap_nbc_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c,
                   MPI_Request *req);
int smap_nbc_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                    MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c, MPI_Request *req);
int smap_nbc_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                       MPI_Datatype type, MPI_Op op, smap_comm_t *c, MPI_Request *req);
int smap_nbc_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                            MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                            smap_comm_t *c, MPI_Request *req);
int smap_nbc_scan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                  MPI_Datatype type, MPI_Op op, int exclusive, smap_comm_t *c,
                  MPI_Request *req);
int smap_nbc_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                    MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                    smap_dtype_t *rt, int root, smap_comm_t *c, MPI_Request *req);
int smap_nbc_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                     struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                     smap_dtype_t *rt, int root, smap_comm_t *c, MPI_Request *req);
int smap_nbc_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                       MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                       smap_dtype_t *rt, smap_comm_t *c, MPI_Request *req);
int smap_nbc_alltoall(const struct smap_a2a *a, smap_comm_t *c, MPI_Request *req);

/* Intercommunicators (src/coll/nbc/inter_*.c): the semantics and
 * arguments of the blocking ones in coll/inter/inter.h (root MPI_ROOT,
 * MPI_PROC_NULL or a remote rank; blocks over the remote group).
 * smap_nbc_inter_none: an empty schedule, for a member that takes no part
 * (root MPI_PROC_NULL) but must still take the sequence number. */
int smap_nbc_inter_none(smap_comm_t *c, MPI_Request *req);
int smap_nbc_inter_barrier(smap_comm_t *c, MPI_Request *req);
int smap_nbc_inter_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c,
                         MPI_Request *req);
int smap_nbc_inter_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                          MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                          smap_dtype_t *rt, int root, smap_comm_t *c, MPI_Request *req);
int smap_nbc_inter_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                           struct smap_cvec displs, smap_dtype_t *st, void *rbuf,
                           MPI_Count rcount, smap_dtype_t *rt, int root, smap_comm_t *c,
                           MPI_Request *req);
int smap_nbc_inter_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                             MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                             smap_dtype_t *rt, smap_comm_t *c, MPI_Request *req);
int smap_nbc_inter_alltoall(const struct smap_a2a *a, smap_comm_t *c, MPI_Request *req);
int smap_nbc_inter_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                          MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c,
                          MPI_Request *req);
int smap_nbc_inter_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                             MPI_Datatype type, MPI_Op op, smap_comm_t *c, MPI_Request *req);
int smap_nbc_inter_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                                  MPI_Count block, MPI_Count total, smap_dtype_t *t,
                                  MPI_Datatype type, MPI_Op op, smap_comm_t *c, MPI_Request *req);

/* Appends an allreduce to s, in rounds of its own, for callers composing a
 * schedule (MPI_Comm_idup).  sbuf may be MPI_IN_PLACE; buffers are read
 * when the rounds run. */
int smap_nbc_add_allreduce(struct smap_sched *s, const void *sbuf, void *rbuf, MPI_Count count,
                           smap_dtype_t *t, MPI_Datatype type, MPI_Op op);

/* The same over both groups of an intercommunicator's schedule s: every
 * member of both gets the reduction of all inputs (op commutative).
 * In place in buf. */
int smap_nbc_add_inter_allreduce_both(struct smap_sched *s, void *buf, MPI_Count count,
                                      smap_dtype_t *t, MPI_Datatype type, MPI_Op op);

#endif
