/* Blocking collectives: the interface the bindings call (DESIGN.md D6).
 *
 * The binding has checked every argument (communicator, root range, counts,
 * committed types, MPI_IN_PLACE rules, the op/type pair) and resolved the
 * handles; these functions only move data.  Each returns MPI_SUCCESS or an
 * MPI error class, and then smap_coll_why() says why in words.
 *
 * Buffers equal to MPI_IN_PLACE are passed as the constant itself: each
 * function knows where the standard allows it.  Count and displacement
 * arrays arrive as given by the int or the large-count (_c) binding, in a
 * struct smap_cvec that reads either. */
#ifndef SMAP_COLL_COLL_H
#define SMAP_COLL_COLL_H

#include <mpi.h>
#include <stdint.h>

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

int smap_coll_bcast(void *buf, MPI_Count count, smap_dtype_t *t, int root, smap_comm_t *c);

/* The reductions: `type` and `op` are handles (user functions get them as
 * given); t is the object behind `type`. */
int smap_coll_reduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                     MPI_Datatype type, MPI_Op op, int root, smap_comm_t *c);
int smap_coll_allreduce(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                        MPI_Datatype type, MPI_Op op, smap_comm_t *c);
/* rcounts NULL: every block has `block` elements (Reduce_scatter_block). */
int smap_coll_reduce_scatter(const void *sbuf, void *rbuf, struct smap_cvec rcounts,
                             MPI_Count block, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                             smap_comm_t *c);
int smap_coll_scan(const void *sbuf, void *rbuf, MPI_Count count, smap_dtype_t *t,
                   MPI_Datatype type, MPI_Op op, int exclusive, smap_comm_t *c);

/* Data movement.  The v variants take counts and displacements; the plain
 * ones pass .p == NULL there and use the scalar count. */
int smap_coll_gather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                     MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                     smap_dtype_t *rt, int root, smap_comm_t *c);
int smap_coll_scatter(const void *sbuf, MPI_Count scount, struct smap_cvec scounts,
                      struct smap_cvec displs, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                      smap_dtype_t *rt, int root, smap_comm_t *c);
/* The root of a Gatherv / Scatterv whose own arguments are wrong (its
 * counts or displacements) still takes the steps the others take, moving
 * nothing, and tells them: they return MPI_ERR_OTHER instead of waiting
 * for it forever (D18).  MPI_SUCCESS, or why it could not. */
int smap_coll_gatherv_fail(int root, smap_comm_t *c);
int smap_coll_scatterv_fail(int root, smap_comm_t *c);
int smap_coll_allgather(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                        MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                        smap_dtype_t *rt, smap_comm_t *c);
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
int smap_coll_alltoall(const struct smap_a2a *a, smap_comm_t *c);

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
/* A barrier through the control blocks (one sync). */
int smap_coll_barrier(smap_comm_t *c);
/* Whether this process waited for a peer's data in a collective since the
 * last call (and forgets it): the node barrier then lets the producers
 * leave first (src/smap/barrier.c). */
int smap_coll_consumed_take(void);

/* Why the last collective of this thread failed (static text). */
const char *smap_coll_why(void);
/* The MPI function this thread runs through the control blocks (set by
 * the binding before each blocking collective): what the message of a
 * job stopped on mismatched collectives names (ctlblock.c). */
extern _Thread_local const char *smap_coll_func;
/* MPI_Finalize: this process publishes no collective step any more; a
 * peer left waiting for one stops the job instead of hanging. */
void smap_coll_leave(void);

#endif
