/* The one place that chooses an algorithm per (collective, size, ranks)
 * (DESIGN.md D6).  Two algorithms exist per collective:
 *
 *   INLINE  data go through the control blocks: a source packs its block
 *           into its own slot, the peers copy it out (two copies, but one
 *           synchronisation and no pointer translation); reductions are
 *           then "replicated": each rank that needs a result folds all
 *           inputs itself.
 *   DIRECT  one copy between user buffers through SMARTMAP views (pulls),
 *           reductions "threaded": each rank reduces one slice of the
 *           element range across all ranks' buffers, in rank order.  Costs
 *           a descriptor exchange and a closing synchronisation.
 *
 * DIRECT silently becomes a chunked INLINE (bounce) transfer when a buffer
 * cannot be reached through a view (not exposed, SMAP_COPY=cma|bounce, a
 * non-contiguous layout on the source side, MPI_IN_PLACE alltoall).
 *
 * Crossovers: bytes are those of one source block (transfers) or of the
 * whole vector (reductions).  Below them the extra synchronisation of
 * DIRECT (descriptor step + closing sync) costs more than INLINE's second
 * copy.  Rows for 2 ranks are measured (`make bench-crossover`,
 * bench/results/coll_crossover.txt: the largest size at which INLINE was
 * still at least as fast, best of 5 interleaved runs, 2 ranks on 2 cores
 * of the project VM); gather and scatter have no benchmark and follow
 * allgather (the same engine, xfer.c), reduce_scatter follows allreduce.
 * Rows for more ranks are estimates (a sync ~0.1-0.2 us, an in-cache copy
 * ~40 GB/s): the only larger runs this VM allows are oversubscribed, where
 * every sync costs a context switch and INLINE wins almost everywhere,
 * which is not the case to tune for. */
#include "coll/select.h"

#include <stddef.h>
#include <string.h>

#include "base/log.h"
#include "base/tunables.h"

struct row {
    enum smap_coll_id id;
    int max_ranks;        /* row applies up to this many ranks */
    size_t inline_max;    /* INLINE up to this many bytes, DIRECT above */
};

static const struct row table[] = {
    { SMAP_COLL_BCAST, 2, 256 },
    { SMAP_COLL_BCAST, 1 << 30, 16u << 10 },
    { SMAP_COLL_GATHER, 2, 512 },
    { SMAP_COLL_GATHER, 1 << 30, 8u << 10 },
    { SMAP_COLL_SCATTER, 2, 512 },
    { SMAP_COLL_SCATTER, 1 << 30, 8u << 10 },
    { SMAP_COLL_ALLGATHER, 2, 512 },
    { SMAP_COLL_ALLGATHER, 1 << 30, 8u << 10 },
    { SMAP_COLL_ALLTOALL, 2, 512 },
    { SMAP_COLL_ALLTOALL, 1 << 30, 4u << 10 },
    { SMAP_COLL_REDUCE, 2, 2u << 10 },
    { SMAP_COLL_REDUCE, 4, 32u << 10 },
    { SMAP_COLL_REDUCE, 1 << 30, 16u << 10 },
    { SMAP_COLL_ALLREDUCE, 2, 512 },
    { SMAP_COLL_ALLREDUCE, 4, 32u << 10 },
    { SMAP_COLL_ALLREDUCE, 1 << 30, 16u << 10 },
    { SMAP_COLL_REDUCE_SCATTER, 2, 512 },
    { SMAP_COLL_REDUCE_SCATTER, 1 << 30, 16u << 10 },
    { SMAP_COLL_SCAN, 1 << 30, 16u << 10 },
};

/* SMAP_COLL_ALGO: -1 auto (the table), else the algorithm forced. */
static int mode = -2;   /* -2: SMAP_COLL_ALGO not read yet */

void smap_coll_select_reload(void)
{
    mode = -2;
}

static int forced(void)
{
    if (SMAP_UNLIKELY(mode == -2)) {
        const char *v = smap_tun.coll_algo;
        if (!strcmp(v, "inline"))
            mode = SMAP_ALGO_INLINE;
        else if (!strcmp(v, "direct"))
            mode = SMAP_ALGO_DIRECT;
        else {
            if (strcmp(v, "auto") != 0)
                smap_log(SMAP_LOG_WARN, "SMAP_COLL_ALGO='%s' is not one of auto|inline|direct: "
                         "using auto", v);
            mode = -1;
        }
    }
    return mode;
}

enum smap_coll_algo smap_coll_select(enum smap_coll_id id, size_t bytes, int nranks)
{
    if (nranks <= 1)
        return SMAP_ALGO_INLINE;   /* nothing to share: local copies only */
    int f = forced();
    if (SMAP_UNLIKELY(f >= 0))
        return (enum smap_coll_algo)f;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].id == id && nranks <= table[i].max_ranks)
            return bytes <= table[i].inline_max ? SMAP_ALGO_INLINE : SMAP_ALGO_DIRECT;
    return SMAP_ALGO_DIRECT;
}
