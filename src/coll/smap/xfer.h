/* The data-movement engine shared by bcast, gather, scatter, allgather and
 * alltoall (xfer.c).  A collective describes, for this rank, the block it
 * sends to each destination and the block it receives from each source;
 * the engine moves them either by pulls from the source's user buffer
 * through a SMARTMAP view (one copy) or through the source's control block
 * in chunks (inline payload for small blocks, the bounce path for
 * unreachable or non-contiguous sources). */
#ifndef SMAP_COLL_SMAP_XFER_H
#define SMAP_COLL_SMAP_XFER_H

#include "coll/select.h"
#include "coll/smap/csm.h"

struct xblk {
    const void *buf;
    MPI_Count count;
    smap_dtype_t *t;
};

struct xfer {
    struct csm_comm *s;
    enum smap_coll_id id;
    int same;          /* a source sends one block to all its destinations */
    int force_stage;   /* sources must stage (MPI_IN_PLACE alltoall) */
    int single;        /* 1 + the only source's rank (bcast, scatter), or 0 */
    /* The block this rank sends to comm rank j / receives from comm rank i
     * (never called with our own rank): 1 and *b filled, or 0 for none. */
    int (*src)(const struct xfer *x, int j, struct xblk *b);
    int (*dst)(const struct xfer *x, int i, struct xblk *b);
    /* This rank's block to itself, or NULL. */
    void (*self)(const struct xfer *x);
    const void *arg;   /* the collective's arguments */
};

/* Runs the transfer.  MPI_SUCCESS or an error class. */
int csm_xfer(const struct xfer *x);

/* Stream bytes of a block. */
static inline MPI_Count xblk_bytes(const struct xblk *b)
{
    return b->count * b->t->size;
}

#endif
