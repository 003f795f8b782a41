/* rooted_bench.h — the body shared by gather.c and scatter.c (osu_gather /
 * osu_scatter): MPI_BYTE, root 0; size is the block of one rank (the root's
 * buffer holds np * size bytes).
 *
 * usec = time per call, mean over the ranks (min/max also printed); a
 * barrier separates the calls and is not timed.
 * --vary: the senders (every rank for gather, the root for scatter)
 * rewrite their send buffer before every call (not timed).
 * A header rather than a second .c file so that every benchmark stays one
 * program built from its own source plus common.c, with any MPI. */
#ifndef BENCH_ROOTED_BENCH_H
#define BENCH_ROOTED_BENCH_H

#include <stdio.h>

#include "common.h"

typedef struct {
    char *block, *all;   /* one rank's block; the root's np blocks */
    size_t size;
    int rank, np;
} ctx_t;

static void op_gather(void *p)
{
    ctx_t *c = p;
    MPI_Gather(c->block, (int)c->size, MPI_BYTE, c->all, (int)c->size, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void op_scatter(void *p)
{
    ctx_t *c = p;
    MPI_Scatter(c->all, (int)c->size, MPI_BYTE, c->block, (int)c->size, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void refill_gather(void *p, long i)
{
    ctx_t *c = p;
    bench_touch(c->block, c->size, i, c->rank);
}

static void refill_scatter(void *p, long i)
{
    ctx_t *c = p;
    if (c->rank == 0)
        bench_touch(c->all, c->size * (size_t)c->np, i, 0);
}

/* gather: MPI_Gather to rank 0 (rank 0 checks every block); else
 * MPI_Scatter from rank 0 (every rank checks its block). */
static int rooted_bench_main(int argc, char **argv, int gather)
{
    bench_opts_t o = {
        .name = gather ? "gather" : "scatter", .min_size = 8, .max_size = 4u << 20,
        .it = { .base_iters = 1000, .min_iters = 10, .budget = 256.0 * (1 << 20) },
    };
    bench_init(&argc, &argv, &o, BENCH_OPT_SIZES | BENCH_OPT_VARY,
               gather ? "MPI_Gather to rank 0, size bytes per rank"
                      : "MPI_Scatter from rank 0, size bytes per rank");
    if ((double)o.max_size * o.np > (double)(1u << 30))
        bench_die(&o, "np * max-size must stay under 1 GiB");
    ctx_t c = { bench_alloc(o.max_size), o.rank == 0 ? bench_alloc(o.max_size * (size_t)o.np) : NULL,
                0, o.rank, o.np };
    void (*op)(void *) = gather ? op_gather : op_scatter;
    bench_header(&o, "size = bytes per rank, usec = time per call (mean over ranks), min_usec/max_usec over ranks");

    for (size_t size = bench_first_size(&o); size != BENCH_END; size = bench_next_size(&o, size)) {
        c.size = size;
        long iters = bench_iters(&o, size), warm = bench_warmup(&o, iters);
        if (!o.no_validate) {
            int salt = gather ? 14 : 15;
            if (gather) {
                bench_fill(c.block, size, bench_seed(size, o.rank, 0, salt));
            } else {
                bench_poison(c.block, size, bench_seed(size, o.rank, 0, salt));
                for (int r = 0; r < o.np && o.rank == 0; r++)
                    bench_fill(c.all + (size_t)r * size, size, bench_seed(size, r, 0, salt));
            }
            for (int r = 0; r < o.np && o.rank == 0 && gather; r++)
                bench_poison(c.all + (size_t)r * size, size, bench_seed(size, r, 0, salt));
            op(&c);
            for (int r = 0; r < o.np; r++) {
                if (gather ? o.rank != 0 : r != o.rank)
                    continue;
                uint64_t seed = bench_seed(size, r, 0, salt);
                char *got = gather ? c.all + (size_t)r * size : c.block;
                size_t bad = bench_check(got, size, seed);
                if (bad != BENCH_END)
                    bench_fail(&o, size, "block of rank %d: byte %zu is 0x%02x, expected 0x%02x", r,
                               bad, (unsigned char)got[bad], bench_pattern_byte(seed, bad));
            }
        }
        bench_coll_result(&o, size, iters,
                          bench_time_coll(&o, warm, iters, op, gather ? refill_gather : refill_scatter, &c));
    }
    bench_free(c.block);
    if (c.all)
        bench_free(c.all);
    return bench_finish();
}

#endif
