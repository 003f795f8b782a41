/* Algorithm selection for the collectives (select.c holds the table). */
#ifndef SMAP_COLL_SELECT_H
#define SMAP_COLL_SELECT_H

#include <stddef.h>

enum smap_coll_id {
    SMAP_COLL_BCAST,
    SMAP_COLL_GATHER,
    SMAP_COLL_SCATTER,
    SMAP_COLL_ALLGATHER,
    SMAP_COLL_ALLTOALL,
    SMAP_COLL_REDUCE,
    SMAP_COLL_ALLREDUCE,
    SMAP_COLL_REDUCE_SCATTER,
    SMAP_COLL_SCAN,
};

enum smap_coll_algo { SMAP_ALGO_INLINE, SMAP_ALGO_DIRECT };

enum smap_coll_algo smap_coll_select(enum smap_coll_id id, size_t bytes, int nranks);
/* SMAP_COLL_ALGO changed (MPI_T): the next selection reads it again.  All
 * ranks must hold the same value when they enter a collective. */
void smap_coll_select_reload(void);

#endif
