/* Helpers shared by the non-blocking collectives' builders. */
#ifndef SMAP_COLL_NBC_INTERNAL_H
#define SMAP_COLL_NBC_INTERNAL_H

#include <stdint.h>

#include "coll/nbc/nbc.h"
#include "dtype/engine.h"

/* Element `index` of a buffer of type t (integer arithmetic: buf may be
 * MPI_BOTTOM for absolute derived types). */
static inline void *nbc_at(const void *buf, MPI_Count index, smap_dtype_t *t)
{
    return (void *)((uintptr_t)buf + (uintptr_t)(index * smap_dtype_extent(t)));
}

static inline void *nbc_byte_at(const void *buf, MPI_Count off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

static inline smap_dtype_t *nbc_byte(void)
{
    return smap_dtype_get(MPI_BYTE);
}

/* Starts s (req) or runs it (req NULL); frees it when it could not be
 * built.  The builder's return value. */
int nbc_launch(struct smap_sched *s, MPI_Request *req);
/* A new schedule, or NULL with the reason noted (out of memory). */
struct smap_sched *nbc_new(smap_comm_t *c);

/* Appends a binomial-tree broadcast from root (rounds of its own). */
void nbc_add_bcast(struct smap_sched *s, void *buf, MPI_Count count, smap_dtype_t *t, int root);
/* Appends a reduction of every rank's `in` (count elements of t) in rank
 * order to rank 0: returns the scratch that holds the result there (NULL
 * on other ranks, and when out of memory). */
void *nbc_add_reduce0(struct smap_sched *s, const void *in, MPI_Count count, smap_dtype_t *t,
                      MPI_Datatype type, MPI_Op op);

/* Block j of one side of a collective with a block per peer: address,
 * count and type (counts.p NULL: `count` each, at j * count; types
 * non-NULL: alltoallw, byte displacements and one type per peer). */
struct nbc_blk {
    void *p;
    MPI_Count n;
    smap_dtype_t *t;
};
struct nbc_blk nbc_block(const void *buf, MPI_Count count, struct smap_cvec counts,
                         struct smap_cvec displs, smap_dtype_t *t, const MPI_Datatype *types,
                         int j);
/* Appends the scatter of rank 0's `acc` in blocks of rcounts (rcounts.p
 * NULL: `block` each) into every rank's rbuf (reduce_scatter's tail). */
void nbc_add_scatter0(struct smap_sched *s, const void *acc, void *rbuf, struct smap_cvec rcounts,
                      MPI_Count block, smap_dtype_t *t);

#endif
