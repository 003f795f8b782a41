/* reduce_bench.h — the body shared by reduce.c and allreduce.c (osu_reduce /
 * osu_allreduce): MPI_FLOAT, MPI_SUM; size is in bytes (size / 4 floats).
 *
 * usec = time per call, mean over the ranks (min/max also printed); a
 * barrier separates the calls and is not timed.  Validation uses small
 * integer values, so the float sums are exact in any order.
 * --vary: every rank rewrites its send buffer before every call (not timed).
 * A header rather than a second .c file so that every benchmark stays one
 * program built from its own source plus common.c, with any MPI. */
#ifndef BENCH_REDUCE_BENCH_H
#define BENCH_REDUCE_BENCH_H

#include <stdio.h>

#include "common.h"

typedef struct {
    float *sbuf, *rbuf;
    size_t count;
    int rank;
} ctx_t;

static void op_reduce(void *p)
{
    ctx_t *c = p;
    MPI_Reduce(c->sbuf, c->rbuf, (int)c->count, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
}

static void op_allreduce(void *p)
{
    ctx_t *c = p;
    MPI_Allreduce(c->sbuf, c->rbuf, (int)c->count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static void refill(void *p, long i)
{
    ctx_t *c = p;
    float v = (float)((i * 3 + c->rank) % 1000);
    for (size_t k = 0; k < c->count; k++)
        c->sbuf[k] = v;
}

static float value(uint64_t seed, int rank, size_t k)
{
    return (float)((seed % 512 + k * 7 + (size_t)rank * 13) % 1021);
}

/* all: MPI_Allreduce (every rank checks the result), else MPI_Reduce to
 * rank 0 (rank 0 checks). */
static int reduce_bench_main(int argc, char **argv, int all)
{
    bench_opts_t o = {
        .name = all ? "allreduce" : "reduce", .min_size = 8, .max_size = 4u << 20,
        .it = { .base_iters = 1000, .min_iters = 10, .budget = 256.0 * (1 << 20) },
    };
    void (*op)(void *) = all ? op_allreduce : op_reduce;
    bench_init(&argc, &argv, &o, BENCH_OPT_SIZES | BENCH_OPT_VARY,
               all ? "MPI_Allreduce (MPI_FLOAT, MPI_SUM)" : "MPI_Reduce (MPI_FLOAT, MPI_SUM) to rank 0");
    if (o.min_size < sizeof(float))
        o.min_size = sizeof(float);
    if (o.max_size < o.min_size)
        o.max_size = o.min_size;
    ctx_t c = { bench_alloc(o.max_size), bench_alloc(o.max_size), 0, o.rank };
    bench_header(&o, "size in bytes (size/4 floats), usec = time per call (mean over ranks), min_usec/max_usec over ranks");

    for (size_t size = bench_first_size(&o); size != BENCH_END; size = bench_next_size(&o, size)) {
        if (size > (size_t)1 << 30)
            bench_die(&o, "size %zu too large", size);
        c.count = size / sizeof(float);
        long iters = bench_iters(&o, size), warm = bench_warmup(&o, iters);
        if (!o.no_validate) {
            uint64_t seed = bench_seed(size, 0, 0, all ? 12 : 11);
            for (size_t k = 0; k < c.count; k++) {
                c.sbuf[k] = value(seed, o.rank, k);
                c.rbuf[k] = -1.0f;
            }
            op(&c);
            if (all || o.rank == 0) {
                for (size_t k = 0; k < c.count; k++) {
                    float want = 0;
                    for (int r = 0; r < o.np; r++)
                        want += value(seed, r, k);
                    if (c.rbuf[k] != want)
                        bench_fail(&o, size, "element %zu is %g, expected %g", k, (double)c.rbuf[k],
                                   (double)want);
                }
            }
        }
        bench_coll_result(&o, size, iters, bench_time_coll(&o, warm, iters, op, refill, &c));
    }
    bench_free(c.sbuf);
    bench_free(c.rbuf);
    return bench_finish();
}

#endif
