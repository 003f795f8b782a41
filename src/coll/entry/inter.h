/* The intercommunicator forms of the blocking collectives
 * (inter.c), called by the intracommunicator entry points when
 * comm is an intercommunicator.  (The constructors: comm/comm_create.h.) */
#ifndef SMAP_COLL_ENTRY_INTER_H
#define SMAP_COLL_ENTRY_INTER_H

#include <mpi.h>

#include "coll/coll.h"
#include "mpi/intercomm.h"

/* The blocking collectives: checks for intercommunicator semantics (root
 * MPI_ROOT / MPI_PROC_NULL / remote rank, no MPI_IN_PLACE, counts over the
 * remote group), then src/coll/inter; req non-NULL: the non-blocking
 * twin, a schedule (src/coll/nbc/inter_*.c) started as *req. */
int inter_barrier(const char *F, MPI_Comm comm, struct MPI_ABI_Comm *c, MPI_Request *req);
int inter_bcast(const char *F, void *buf, MPI_Count count, MPI_Datatype datatype, int root,
                MPI_Comm comm, struct MPI_ABI_Comm *c, MPI_Request *req);
int inter_gather(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                 void *rbuf, MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                 MPI_Datatype rtype, int root, MPI_Comm comm, struct MPI_ABI_Comm *c, int vec, MPI_Request *req);
int inter_scatter(const char *F, const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                  struct smap_cvec displs, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                  MPI_Datatype rtype, int root, MPI_Comm comm, struct MPI_ABI_Comm *c, int vec, MPI_Request *req);
int inter_allgather(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                    void *rbuf, MPI_Count rcount, struct smap_cvec rcounts,
                    struct smap_cvec displs, MPI_Datatype rtype, MPI_Comm comm,
                    struct MPI_ABI_Comm *c, int vec, MPI_Request *req);
/* kind 0: Alltoall, 1: Alltoallv, 2: Alltoallw. */
int inter_alltoall(const char *F, struct smap_a2a *a, MPI_Datatype stype, MPI_Datatype rtype,
                   MPI_Comm comm, struct MPI_ABI_Comm *c, int kind, MPI_Request *req);
int inter_reduce(const char *F, const void *sbuf, void *rbuf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                 struct MPI_ABI_Comm *c, MPI_Request *req);
/* scan: MPI_Scan / MPI_Exscan, which MPI defines for intracommunicators
 * only (MPI_ERR_COMM); else MPI_Allreduce. */
int inter_allreduce(const char *F, int scan, const void *sbuf, void *rbuf, MPI_Count count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, struct MPI_ABI_Comm *c, MPI_Request *req);
/* rcounts.p NULL: Reduce_scatter_block with `block` elements per rank. */
int inter_reduce_scatter(const char *F, const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                         MPI_Count block, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         struct MPI_ABI_Comm *c, MPI_Request *req);

#endif
