/* Blocking collectives on intercommunicators (MPI 5.0 section 6.2.2), and
 * the internal messages the intercommunicator constructors need.
 *
 * Everything runs over internal point-to-point on the intercommunicator's
 * collective context (smap_inter_coll_ctx: ctx + SMAP_CTX_MAX) with the
 * negative tags SMAP_INTER_TAG_REMOTE (to/from the other group) and
 * SMAP_INTER_TAG_LOCAL (within this group): no user message can match
 * them, and no collectives control block is needed.  Blocking collectives
 * are called in the same order by every member, and matching is
 * non-overtaking per (source, tag, context), so fixed tags suffice.
 *
 * Arguments are checked by the entry points (src/coll/entry/inter.c).
 * `root` is MPI_ROOT (this rank is the root), MPI_PROC_NULL (another rank
 * of this group is), or the root's rank in the remote group.  Each returns
 * MPI_SUCCESS or an MPI error class, smap_why() then says why. */
#ifndef SMAP_COLL_INTER_INTER_H
#define SMAP_COLL_INTER_INTER_H

#include <stddef.h>

#include "base/why.h"
#include "coll/coll.h"
#include "mpi/intercomm.h"
#include "p2p/p2p.h"


int smap_inter_barrier(smap_comm_t *c);
int smap_inter_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c);
int smap_inter_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                      MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                      smap_dtype_t *rt, int root, smap_comm_t *c);
int smap_inter_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                       struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                       smap_dtype_t *rt, int root, smap_comm_t *c);
/* Every member receives the remote group's blocks. */
int smap_inter_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                         MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                         smap_dtype_t *rt, smap_comm_t *c);
/* Block j goes to / comes from remote rank j. */
int smap_inter_alltoall(const struct smap_a2a *a, smap_comm_t *c);
/* The root gets the reduction of the remote group's inputs. */
int smap_inter_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                      MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c);
/* Every member gets the reduction of the remote group's inputs. */
int smap_inter_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                         MPI_Datatype type, MPI_Op op, smap_comm_t *c);
/* The reduction of the remote group's inputs (total elements each),
 * scattered over this group by rcounts (or `block` each when rcounts.p is
 * NULL). */
int smap_inter_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                              MPI_Count block, MPI_Count total, smap_dtype_t *t,
                              MPI_Datatype type, MPI_Op op, smap_comm_t *c);

/* ---- building blocks (chan.c), also used by src/comm/inter_create.c ----
 * "Local" operations run among the members of c's group (c->group,
 * c->rank, c->size) on context smap_inter_coll_ctx(c), tag
 * SMAP_INTER_TAG_LOCAL: c may be an intercommunicator, or the
 * intracommunicator an intercommunicator is being created from. */

/* Starts a send to / receive from `rank` of the remote group (remote 1) or
 * of the local group (remote 0). */
int smap_inter_isend(struct smap_preq *r, smap_comm_t *c, int remote, int rank, const void *buf,
                     MPI_Count count, smap_dtype_t *t);
void smap_inter_irecv(struct smap_preq *r, smap_comm_t *c, int remote, int rank, void *buf,
                      MPI_Count count, smap_dtype_t *t);
/* Progresses until the n requests are done: MPI_SUCCESS or the first
 * error class (MPI_ERR_TRUNCATE: the groups' counts or types disagree). */
int smap_inter_waitall(struct smap_preq *r, int n);
/* Local rank `root`'s buffer to every local member (binomial tree). */
int smap_inter_lbcast(smap_comm_t *c, int root, void *buf, MPI_Count count, smap_dtype_t *t);
/* `bytes` from every local member into all[] at local rank `root`
 * (member i's at all + i * bytes; all is ignored elsewhere). */
int smap_inter_lgather(smap_comm_t *c, int root, const void *mine, size_t bytes, void *all);

#endif
