/* The collectives: the interface of src/coll to the layers above it
 * (DESIGN.md §2, D6): the binding, communicator construction (src/comm),
 * windows (src/rma).
 *
 * The caller has checked every argument (communicator, root range, counts,
 * committed types, MPI_IN_PLACE rules, the op/type pair) and resolved the
 * handles; these functions only move data.  Each returns MPI_SUCCESS or an
 * MPI error class, and then smap_why() says why in words.
 *
 * Buffers equal to MPI_IN_PLACE are passed as the constant itself: each
 * function knows where the standard allows it.  Count and displacement
 * arrays arrive as given by the int or the large-count (_c) binding, in a
 * struct smap_cvec that reads either. */
#ifndef SMAP_COLL_COLL_H
#define SMAP_COLL_COLL_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "base/why.h"
#include "base/compiler.h"
#include "dtype/dtype.h"
#include "mpi/comm.h"

/* An int[] or MPI_Count[] (counts), or an int[] or MPI_Aint[] (displs). */
struct smap_cvec {
    const void *p;
    int large;   /* 1: MPI_Count / MPI_Aint elements (both 64-bit) */
};
static inline MPI_Count smap_cvec_at(struct smap_cvec v, int i)
{
    return v.large ? ((const MPI_Count *)v.p)[i] : (MPI_Count)((const int *)v.p)[i];
}

typedef struct MPI_ABI_Comm smap_comm_t;

/* Alltoall (counts .p NULL), Alltoallv (types NULL: st/rt for all) and
 * Alltoallw (displs in bytes, one type per peer). */
struct smap_a2a {
    const void *sbuf;
    MPI_Count scount;
    struct smap_cvec scounts, sdispls;
    smap_dtype_t *st;
    const MPI_Datatype *stypes;
    void *rbuf;
    MPI_Count rcount;
    struct smap_cvec rcounts, rdispls;
    smap_dtype_t *rt;
    const MPI_Datatype *rtypes;
};

/* ---- the collectives of a communicator (coll/dispatch.c) ----------------
 *
 * Which implementation runs a communicator's collectives --
 * intercommunicator (coll/inter, nbc/inter_*), control blocks (coll/smap),
 * hierarchical (coll/hier, over a schedule when it declines a call) or
 * schedules (coll/nbc) -- is chosen once, on the communicator's first
 * collective, and kept in the table c->coll points to.  The binding and
 * every internal caller (communicator construction, windows) call these,
 * never an MPI_ function.  Arguments are checked by the caller, handles
 * resolved; each returns MPI_SUCCESS or an MPI error class, and then
 * smap_why() says why.  The non-blocking forms (smap_coll_i*) start a
 * schedule in *req; the persistent collectives pass a request made
 * persistent by the schedule engine's mode (coll/sched).  On an
 * intercommunicator the arguments have intercommunicator meaning (root
 * MPI_ROOT / MPI_PROC_NULL / remote rank); scans are not defined there and
 * answer MPI_ERR_COMM. */
struct smap_coll_ops {
    int (*barrier)(smap_comm_t *c);
    int (*bcast)(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c);
    int (*reduce)(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                  MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c);
    int (*allreduce)(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                     MPI_Datatype type, MPI_Op op, smap_comm_t *c);
    int (*reduce_scatter)(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                          MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                          smap_comm_t *c);
    int (*scan)(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                MPI_Datatype type, MPI_Op op, int exclusive, smap_comm_t *c);
    int (*gather)(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                  MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                  smap_dtype_t *rt, int root, int vec, smap_comm_t *c);
    int (*scatter)(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                   struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                   smap_dtype_t *rt, int root, int vec, smap_comm_t *c);
    int (*allgather)(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                     MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                     smap_dtype_t *rt, smap_comm_t *c);
    int (*alltoall)(const struct smap_a2a *a, smap_comm_t *c);

    int (*ibarrier)(smap_comm_t *c, MPI_Request *req);
    int (*ibcast)(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c,
                  MPI_Request *req);
    int (*ireduce)(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                   MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c, MPI_Request *req);
    int (*iallreduce)(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                      MPI_Datatype type, MPI_Op op, smap_comm_t *c, MPI_Request *req);
    int (*ireduce_scatter)(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                           MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                           smap_comm_t *c, MPI_Request *req);
    int (*iscan)(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                 MPI_Datatype type, MPI_Op op, int exclusive, smap_comm_t *c, MPI_Request *req);
    int (*igather)(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                   MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                   smap_dtype_t *rt, int root, int vec, smap_comm_t *c, MPI_Request *req);
    int (*iscatter)(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                    struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                    smap_dtype_t *rt, int root, int vec, smap_comm_t *c, MPI_Request *req);
    int (*iallgather)(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                      MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                      smap_dtype_t *rt, smap_comm_t *c, MPI_Request *req);
    int (*ialltoall)(const struct smap_a2a *a, smap_comm_t *c, MPI_Request *req);
};

/* c's table: chosen on first use (a relaxed atomic: every thread that
 * races to fill it computes the same table, SMAP_UNLIKELY after that). */
const struct smap_coll_ops *smap_coll_choose(smap_comm_t *c);
static inline const struct smap_coll_ops *smap_coll_ops_of(smap_comm_t *c)
{
    const struct smap_coll_ops *o = atomic_load_explicit(&c->coll, memory_order_relaxed);
    return SMAP_LIKELY(o != NULL) ? o : smap_coll_choose(c);
}

static inline int smap_coll_barrier(smap_comm_t *c)
{
    return smap_coll_ops_of(c)->barrier(c);
}
static inline int smap_coll_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root,
                                  smap_comm_t *c)
{
    return smap_coll_ops_of(c)->bcast(buf, count, t, root, c);
}
/* The reductions: `type` and `op` are handles (user functions get them as
 * given); t is the object behind `type`. */
static inline int smap_coll_reduce(const void *sbuf, void *rbuf, MPI_Count count,
                                   smap_dtype_t *t, MPI_Datatype type, MPI_Op op, int root,
                                   smap_comm_t *c)
{
    return smap_coll_ops_of(c)->reduce(sbuf, rbuf, count, t, type, op, root, c);
}
static inline int smap_coll_allreduce(const void *sbuf, void *rbuf, MPI_Count count,
                                      smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                                      smap_comm_t *c)
{
    return smap_coll_ops_of(c)->allreduce(sbuf, rbuf, count, t, type, op, c);
}
/* rcounts .p NULL: every block has `block` elements (Reduce_scatter_block). */
static inline int smap_coll_reduce_scatter(const void *sbuf, void *rbuf,
                                           struct smap_cvec rcounts, MPI_Count block,
                                           smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                                           smap_comm_t *c)
{
    return smap_coll_ops_of(c)->reduce_scatter(sbuf, rbuf, rcounts, block, t, type, op, c);
}
/* Scan (exclusive 0) and Exscan (1). */
static inline int smap_coll_scan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                                 MPI_Datatype type, MPI_Op op, int exclusive, smap_comm_t *c)
{
    return smap_coll_ops_of(c)->scan(sbuf, rbuf, count, t, type, op, exclusive, c);
}
/* Gather (vec 0: counts .p NULL, the scalar rcount) and Gatherv (vec 1:
 * counts and displacements, read at the root only, NULL elsewhere). */
static inline int smap_coll_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st,
                                   void *rbuf, MPI_Count rcount, struct smap_cvec rcounts,
                                   struct smap_cvec displs, smap_dtype_t *rt, int root, int vec,
                                   smap_comm_t *c)
{
    return smap_coll_ops_of(c)->gather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt,
                                       root, vec, c);
}
/* Scatter and Scatterv, the same way. */
static inline int smap_coll_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                                    struct smap_cvec displs, smap_dtype_t *st, void *rbuf,
                                    MPI_Count rcount, smap_dtype_t *rt, int root, int vec,
                                    smap_comm_t *c)
{
    return smap_coll_ops_of(c)->scatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt,
                                        root, vec, c);
}
/* Allgather (rcounts .p NULL) and Allgatherv. */
static inline int smap_coll_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st,
                                      void *rbuf, MPI_Count rcount, struct smap_cvec rcounts,
                                      struct smap_cvec displs, smap_dtype_t *rt, smap_comm_t *c)
{
    return smap_coll_ops_of(c)->allgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt,
                                          c);
}
static inline int smap_coll_alltoall(const struct smap_a2a *a, smap_comm_t *c)
{
    return smap_coll_ops_of(c)->alltoall(a, c);
}

static inline int smap_coll_ibarrier(smap_comm_t *c, MPI_Request *req)
{
    return smap_coll_ops_of(c)->ibarrier(c, req);
}
static inline int smap_coll_ibcast(void *buf, MPI_Count count, smap_dtype_t *t, int root,
                                   smap_comm_t *c, MPI_Request *req)
{
    return smap_coll_ops_of(c)->ibcast(buf, count, t, root, c, req);
}
static inline int smap_coll_ireduce(const void *sbuf, void *rbuf, MPI_Count count,
                                    smap_dtype_t *t, MPI_Datatype type, MPI_Op op, int root,
                                    smap_comm_t *c, MPI_Request *req)
{
    return smap_coll_ops_of(c)->ireduce(sbuf, rbuf, count, t, type, op, root, c, req);
}
static inline int smap_coll_iallreduce(const void *sbuf, void *rbuf, MPI_Count count,
                                       smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                                       smap_comm_t *c, MPI_Request *req)
{
    return smap_coll_ops_of(c)->iallreduce(sbuf, rbuf, count, t, type, op, c, req);
}
static inline int smap_coll_ireduce_scatter(const void *sbuf, void *rbuf,
                                            struct smap_cvec rcounts, MPI_Count block,
                                            smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                                            smap_comm_t *c, MPI_Request *req)
{
    return smap_coll_ops_of(c)->ireduce_scatter(sbuf, rbuf, rcounts, block, t, type, op, c,
                                                req);
}
static inline int smap_coll_iscan(const void *sbuf, void *rbuf, MPI_Count count,
                                  smap_dtype_t *t, MPI_Datatype type, MPI_Op op, int exclusive,
                                  smap_comm_t *c, MPI_Request *req)
{
    return smap_coll_ops_of(c)->iscan(sbuf, rbuf, count, t, type, op, exclusive, c, req);
}
static inline int smap_coll_igather(const void *sbuf, MPI_Count scount, smap_dtype_t *st,
                                    void *rbuf, MPI_Count rcount, struct smap_cvec rcounts,
                                    struct smap_cvec displs, smap_dtype_t *rt, int root,
                                    int vec, smap_comm_t *c, MPI_Request *req)
{
    return smap_coll_ops_of(c)->igather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt,
                                        root, vec, c, req);
}
static inline int smap_coll_iscatter(const void *sbuf, MPI_Count scount,
                                     struct smap_cvec scounts, struct smap_cvec displs,
                                     smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                                     smap_dtype_t *rt, int root, int vec, smap_comm_t *c,
                                     MPI_Request *req)
{
    return smap_coll_ops_of(c)->iscatter(sbuf, scount, scounts, displs, st, rbuf, rcount, rt,
                                         root, vec, c, req);
}
static inline int smap_coll_iallgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st,
                                       void *rbuf, MPI_Count rcount, struct smap_cvec rcounts,
                                       struct smap_cvec displs, smap_dtype_t *rt,
                                       smap_comm_t *c, MPI_Request *req)
{
    return smap_coll_ops_of(c)->iallgather(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt,
                                           c, req);
}
static inline int smap_coll_ialltoall(const struct smap_a2a *a, smap_comm_t *c,
                                      MPI_Request *req)
{
    return smap_coll_ops_of(c)->ialltoall(a, c, req);
}

/* MPI_Comm_free of c (collective over c when it ran collectives): frees
 * its hierarchy's sub-communicators, then its control block.  MPI_SUCCESS
 * or an MPI error class (smap_why()). */
int smap_coll_free(smap_comm_t *c);
/* c is destroyed without MPI_Comm_free (MPI_Finalize's sweep, WORLD at the
 * teardown): frees the memory of its collective state only (the
 * hierarchy's; its sub-communicators are swept with the other live ones). */
void smap_coll_forget(smap_comm_t *c);

/* Where the hierarchy (coll/hier) gets its node and leaders
 * sub-communicators:
 * construction belongs to src/comm, above coll, which registers this
 * table at start (src/comm/hier_comms.c says why a table).  make:
 * collective over c (nnodes nodes; node_of by rank in c, leader_of by node
 * index, in rank order): *node the communicator of c's members on this
 * node, by rank; *lead the leaders', at a leader, else NULL.  free:
 * collective over sub's members, frees it.  Both return MPI_SUCCESS or an
 * MPI error class. */
struct smap_hier_comms {
    int (*make)(smap_comm_t *c, int nnodes, const int *node_of, const int *leader_of,
                smap_comm_t **node, smap_comm_t **lead);
    int (*free)(smap_comm_t *sub);
};
void smap_hier_set_comms(const struct smap_hier_comms *comms);


/* The root of a Gatherv / Scatterv whose own arguments are wrong (its
 * counts or displacements) still takes the steps the others take, moving
 * nothing, and tells them: they return MPI_ERR_OTHER instead of waiting
 * for it forever (D18).  MPI_SUCCESS, or why it could not. */
int smap_coll_gatherv_fail(int root, smap_comm_t *c);
int smap_coll_scatterv_fail(int root, smap_comm_t *c);
/* Control blocks ("slots") of communicators in the collectives region.
 * WORLD has slot 0 and SELF slot 1; a new communicator gets a slot free on
 * all its members, agreed at creation (bit k of the mask: slot k is free
 * here), or none (-1: its collectives run as schedules, src/coll/nbc).  A slot's
 * step counters are only ever raised, so that a communicator reusing it
 * starts from the members' common maximum (smap_coll_slot_step, agreed
 * with MPI_MAX) while a past user of the slot may still read them. */
#define SMAP_COLL_NSLOTS 8
uint32_t smap_coll_slots_free(void);
uint64_t smap_coll_slot_step(int k);
void smap_coll_slot_claim(int k, uint64_t step);
/* Collective over c when c ran collectives: a last sync, so no member still
 * reads c's blocks, then frees c's state and its slot. */
int smap_coll_release(smap_comm_t *c);
/* Whether this process waited for a peer's data in a collective since the
 * last call (and forgets it): the node barrier then lets the producers
 * leave first (src/smap/barrier.c). */
int smap_coll_consumed_take(void);

/* The MPI function this thread runs through the control blocks (set by
 * the binding before each blocking collective): what the message of a
 * job stopped on mismatched collectives names (ctlblock.c). */
/* Initial-exec: every blocking collective stores it, and the default
 * model's __tls_get_addr call per store was measurable at 2-rank Bcast's
 * 70 ns (libmpi's TLS is in the static block already: base/lock.h). */
extern _Thread_local const char *smap_coll_func SMAP_TLS_INITIAL_EXEC;
/* MPI_Finalize: this process publishes no collective step any more; a
 * peer left waiting for one stops the job instead of hanging. */
void smap_coll_leave(void);

#endif
