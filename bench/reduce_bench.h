/* reduce_bench.h — the body shared by reduce.c, allreduce.c,
 * reduce_scatter.c and scan.c (osu_reduce, osu_allreduce,
 * osu_reduce_scatter, osu_scan): MPI_FLOAT, MPI_SUM; size is in bytes
 * (size / 4 floats): the vector, except for reduce_scatter, where it is
 * the block each rank receives (MPI_Reduce_scatter_block; the vector holds
 * np blocks).
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

enum red_kind { RED_REDUCE, RED_ALLREDUCE, RED_REDUCE_SCATTER, RED_SCAN };

typedef struct {
    float *sbuf, *rbuf;
    size_t count;    /* elements per call's result (reduce_scatter: per rank) */
    size_t scount;   /* elements of the send buffer */
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

static void op_reduce_scatter(void *p)
{
    ctx_t *c = p;
    MPI_Reduce_scatter_block(c->sbuf, c->rbuf, (int)c->count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static void op_scan(void *p)
{
    ctx_t *c = p;
    MPI_Scan(c->sbuf, c->rbuf, (int)c->count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static void refill(void *p, long i)
{
    ctx_t *c = p;
    float v = (float)((i * 3 + c->rank) % 1000);
    for (size_t k = 0; k < c->scount; k++)
        c->sbuf[k] = v;
}

static float value(uint64_t seed, int rank, size_t k)
{
    return (float)((seed % 512 + k * 7 + (size_t)rank * 13) % 1021);
}

static const struct {
    const char *name, *what;
    void (*op)(void *);
    int salt;
} red_kinds[] = {
    [RED_REDUCE] = { "reduce", "MPI_Reduce (MPI_FLOAT, MPI_SUM) to rank 0", op_reduce, 11 },
    [RED_ALLREDUCE] = { "allreduce", "MPI_Allreduce (MPI_FLOAT, MPI_SUM)", op_allreduce, 12 },
    [RED_REDUCE_SCATTER] = { "reduce_scatter",
                             "MPI_Reduce_scatter_block (MPI_FLOAT, MPI_SUM), size bytes per rank",
                             op_reduce_scatter, 16 },
    [RED_SCAN] = { "scan", "MPI_Scan (MPI_FLOAT, MPI_SUM)", op_scan, 17 },
};

/* Rank 0 checks a reduce; every rank the others.  Element k of rank r's
 * result: the sum over the ranks q that contribute (all; q <= r for scan)
 * of their element (reduce_scatter: element r * count + k). */
static void red_check(const bench_opts_t *o, enum red_kind kind, const ctx_t *c, uint64_t seed,
                      size_t size)
{
    if (kind == RED_REDUCE && o->rank != 0)
        return;
    int last = kind == RED_SCAN ? o->rank : o->np - 1;
    size_t base = kind == RED_REDUCE_SCATTER ? (size_t)o->rank * c->count : 0;
    for (size_t k = 0; k < c->count; k++) {
        float want = 0;
        for (int r = 0; r <= last; r++)
            want += value(seed, r, base + k);
        if (c->rbuf[k] != want)
            bench_fail(o, size, "element %zu is %g, expected %g", k, (double)c->rbuf[k],
                       (double)want);
    }
}

static int reduce_bench_main(int argc, char **argv, enum red_kind kind)
{
    bench_opts_t o = {
        .name = red_kinds[kind].name, .min_size = 8, .max_size = 4u << 20,
        .it = { .base_iters = 1000, .min_iters = 10, .budget = 256.0 * (1 << 20) },
    };
    void (*op)(void *) = red_kinds[kind].op;
    bench_init(&argc, &argv, &o, BENCH_OPT_SIZES | BENCH_OPT_VARY, red_kinds[kind].what);
    if (o.min_size < sizeof(float))
        o.min_size = sizeof(float);
    if (o.max_size < o.min_size)
        o.max_size = o.min_size;
    size_t blocks = kind == RED_REDUCE_SCATTER ? (size_t)o.np : 1;
    if ((double)o.max_size * blocks > (double)(1u << 30))
        bench_die(&o, "np * max-size must stay under 1 GiB");
    ctx_t c = { bench_alloc(o.max_size * blocks), bench_alloc(o.max_size), 0, 0, o.rank };
    bench_header(&o, kind == RED_REDUCE_SCATTER
                         ? "size in bytes per rank (size/4 floats, the vector np times that), usec = time per call (mean over ranks), min_usec/max_usec over ranks"
                         : "size in bytes (size/4 floats), usec = time per call (mean over ranks), min_usec/max_usec over ranks");

    for (size_t size = bench_first_size(&o); size != BENCH_END; size = bench_next_size(&o, size)) {
        if (size > (size_t)1 << 30)
            bench_die(&o, "size %zu too large", size);
        c.count = size / sizeof(float);
        c.scount = c.count * blocks;
        long iters = bench_iters(&o, size), warm = bench_warmup(&o, iters);
        if (!o.no_validate) {
            uint64_t seed = bench_seed(size, 0, 0, red_kinds[kind].salt);
            for (size_t k = 0; k < c.scount; k++)
                c.sbuf[k] = value(seed, o.rank, k);
            for (size_t k = 0; k < c.count; k++)
                c.rbuf[k] = -1.0f;
            op(&c);
            red_check(&o, kind, &c, seed, size);
        }
        bench_coll_result(&o, size, iters, bench_time_coll(&o, warm, iters, op, refill, &c));
    }
    bench_free(c.sbuf);
    bench_free(c.rbuf);
    return bench_finish();
}

#endif
