/* bcast.c — MPI_Bcast latency (osu_bcast), root 0, MPI_BYTE.
 *
 * usec = time per call, mean over the ranks (min/max also printed); a
 * barrier separates the calls and is not timed.
 * --vary: the root rewrites its buffer before every call (not timed). */
#include <stdio.h>

#include "common.h"

typedef struct {
    char *buf;
    size_t size;
    int rank;
} ctx_t;

static void op(void *p)
{
    ctx_t *c = p;
    MPI_Bcast(c->buf, (int)c->size, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void refill(void *p, long i)
{
    ctx_t *c = p;
    if (c->rank == 0)
        bench_touch(c->buf, c->size, i, 0);
}

int main(int argc, char **argv)
{
    bench_opts_t o = {
        .name = "bcast", .min_size = 8, .max_size = 4u << 20,
        .it = { .base_iters = 1000, .min_iters = 10, .budget = 256.0 * (1 << 20) },
    };
    bench_init(&argc, &argv, &o, BENCH_OPT_SIZES | BENCH_OPT_VARY, "MPI_Bcast from rank 0");
    ctx_t c = { bench_alloc(o.max_size), 0, o.rank };
    bench_header(&o, "size in bytes, usec = time per call (mean over ranks), min_usec/max_usec over ranks");

    for (size_t size = bench_first_size(&o); size != BENCH_END; size = bench_next_size(&o, size)) {
        if (size > (size_t)1 << 30)
            bench_die(&o, "size %zu too large", size);
        c.size = size;
        long iters = bench_iters(&o, size), warm = bench_warmup(&o, iters);
        if (!o.no_validate) {
            uint64_t seed = bench_seed(size, 0, 0, 10);
            if (o.rank == 0)
                bench_fill(c.buf, size, seed);
            else
                bench_poison(c.buf, size, seed);
            op(&c);
            size_t bad = bench_check(c.buf, size, seed);
            if (bad != BENCH_END)
                bench_fail_at(&o, size, o.rank ? "broadcast data" : "root buffer changed", c.buf, bad, seed);
        }
        bench_coll_result(&o, size, iters, bench_time_coll(&o, warm, iters, op, refill, &c));
    }
    bench_free(c.buf);
    return bench_finish();
}
