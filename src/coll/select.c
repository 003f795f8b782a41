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
 * still at least as fast, best of 3-5 interleaved runs, 2 ranks on 2
 * cores of the project VM); gather and scatter have no benchmark and
 * follow allgather (the same engine, xfer.c), reduce_scatter follows
 * allreduce.  Bcast follows its --vary run (the root's data change every
 * call, as in a program; 2026-11-25: INLINE wins up to 8 KiB, 1 KiB 0.12
 * us against 0.17, 8 KiB 0.27 against 0.31: DIRECT keeps the root until
 * its reader is done); with an unchanged buffer a DIRECT pull hits the
 * reader's cache, which moves that crossover to 4 KiB (4 KiB 0.16 against
 * INLINE's 0.18, 8 KiB 0.19 against 0.24).  Alltoall re-measured the same
 * day: DIRECT from 1 KiB (0.22 against 0.24).
 * Rows for more ranks were measured on 4, 8 and 16 of a 16-core x86-64
 * machine (2026-11-28, `XO_NPS="16 8 4" scripts/coll_crossover.sh` from a
 * scripts/bench_offline.sh bundle, best of 2; bench/results/np16/
 * coll_crossover.txt): DIRECT's descriptor step and closing sync cost
 * 1.5-4 us there, and INLINE's copies grow with the rank count (a
 * replicated allreduce folds every rank's input on every rank: 16 KiB at
 * 16 ranks 53.7 us against DIRECT's 5.0), so the crossovers fall as ranks
 * grow: allreduce and alltoall at 512 B-1 KiB, bcast (--vary) at 512 B.
 * Reduce follows its plain run (DIRECT from 16 KiB at 8 and 16 ranks);
 * its --vary run favours INLINE to 256 KiB only because the non-roots of
 * a replicated reduce copy their input and leave, which the mean over
 * ranks rewards while the root still folds every input alone.
 * An oversubscribed node (more ranks than CPUs: smap_wait_oversubscribed)
 * keeps the second column, measured on the 2-CPU VM: there every sync
 * costs a context switch, INLINE's single sync wins far longer, and
 * bench/results/np4 and np8 hold those runs. */
#include "coll/select.h"

#include <stddef.h>
#include <string.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/tunables.h"
#include "base/wait.h"

struct row {
    int max_ranks;        /* row applies up to this many ranks */
    size_t inline_max;    /* INLINE up to this many bytes, DIRECT above */
    size_t over_max;      /* the same when the node is oversubscribed */
};
#define ANY (1 << 30)     /* the last row of every collective */

/* Rows per collective, indexed by id (a call looks at one to four rows:
 * the small collectives ask on every call). */
static const struct row *const table[] = {
    [SMAP_COLL_BCAST] = (const struct row[]){ { 2, 8u << 10, 8u << 10 }, { 4, 1u << 10, 16u << 10 },
                                              { ANY, 256, 16u << 10 } },
    [SMAP_COLL_GATHER] = (const struct row[]){ { 2, 512, 512 }, { 4, 512, 8u << 10 },
                                               { 8, 512, 8u << 10 }, { ANY, 1u << 10, 8u << 10 } },
    [SMAP_COLL_SCATTER] = (const struct row[]){ { 2, 512, 512 }, { 4, 512, 8u << 10 },
                                                { 8, 512, 8u << 10 }, { ANY, 1u << 10, 8u << 10 } },
    [SMAP_COLL_ALLGATHER] = (const struct row[]){ { 2, 512, 512 }, { 4, 512, 8u << 10 },
                                                  { 8, 512, 8u << 10 }, { ANY, 1u << 10, 8u << 10 } },
    [SMAP_COLL_ALLTOALL] = (const struct row[]){ { 2, 512, 512 }, { 8, 256, 4u << 10 },
                                                 { ANY, 512, 4u << 10 } },
    [SMAP_COLL_REDUCE] = (const struct row[]){ { 2, 2u << 10, 2u << 10 }, { 4, 4u << 10, 32u << 10 },
                                               { ANY, 8u << 10, 16u << 10 } },
    [SMAP_COLL_ALLREDUCE] = (const struct row[]){ { 2, 512, 512 }, { 4, 1u << 10, 32u << 10 },
                                                  { 8, 256, 16u << 10 }, { ANY, 512, 16u << 10 } },
    [SMAP_COLL_REDUCE_SCATTER] = (const struct row[]){ { 2, 512, 512 }, { 4, 1u << 10, 16u << 10 },
                                                       { 8, 256, 16u << 10 },
                                                       { ANY, 512, 16u << 10 } },
    [SMAP_COLL_SCAN] = (const struct row[]){ { ANY, 16u << 10, 16u << 10 } },
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
    if (SMAP_UNLIKELY((unsigned)id >= sizeof table / sizeof table[0] || !table[id]))
        return SMAP_ALGO_DIRECT;
    const struct row *r = table[id];
    while (nranks > r->max_ranks)
        r++;
    /* Every rank of a node reads the same answer (the node's CPUs and the
     * job's ranks on the machine), so all pick the same algorithm. */
    size_t max = smap_wait_oversubscribed(nranks) ? r->over_max : r->inline_max;
    return bytes <= max ? SMAP_ALGO_INLINE : SMAP_ALGO_DIRECT;
}
