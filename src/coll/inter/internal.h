/* Shared by the files of src/coll/inter (not an interface). */
#ifndef SMAP_COLL_INTER_INTERNAL_H
#define SMAP_COLL_INTER_INTERNAL_H

#include "coll/inter/inter.h"
#include "dtype/engine.h"

/* Blocking exchanges with one peer (remote 1: of the other group). */
int inter_sendrecv(smap_comm_t *c, int remote, int peer, const void *sbuf, MPI_Count scount,
                   smap_dtype_t *st, void *rbuf, MPI_Count rcount, smap_dtype_t *rt);
int inter_send(smap_comm_t *c, int remote, int peer, const void *buf, MPI_Count count,
               smap_dtype_t *t);
int inter_recv(smap_comm_t *c, int remote, int peer, void *buf, MPI_Count count, smap_dtype_t *t);
/* A scratch buffer laid out like a user buffer of count elements of t
 * (what to pass as the buffer), NULL when out of memory; free(*base). */
void *inter_tmp(MPI_Count count, const smap_dtype_t *t, void **base);

/* Element block i of a buffer: plain (count each, counts.p NULL) or v. */
static inline char *inter_block(const void *buf, int i, MPI_Count count, struct smap_cvec counts,
                                struct smap_cvec displs, const smap_dtype_t *t, MPI_Count *n)
{
    MPI_Count at = counts.p ? smap_cvec_at(displs, i) : (MPI_Count)i * count;
    *n = counts.p ? smap_cvec_at(counts, i) : count;
    return (char *)buf + at * t->extent;
}

#endif
