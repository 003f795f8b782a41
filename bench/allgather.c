/* allgather.c — MPI_Allgather latency (osu_allgather), MPI_BYTE; size is the
 * block each rank contributes (the receive buffer holds np * size bytes).
 *
 * usec = time per call, mean over the ranks (min/max also printed); a
 * barrier separates the calls and is not timed.
 * --vary: every rank rewrites its send block before every call (not timed). */
#include <stdio.h>

#include "common.h"

typedef struct {
    char *sbuf, *rbuf;
    size_t size;
    int rank;
} ctx_t;

static void op(void *p)
{
    ctx_t *c = p;
    MPI_Allgather(c->sbuf, (int)c->size, MPI_BYTE, c->rbuf, (int)c->size, MPI_BYTE, MPI_COMM_WORLD);
}

static void refill(void *p, long i)
{
    ctx_t *c = p;
    bench_touch(c->sbuf, c->size, i, c->rank);
}

int main(int argc, char **argv)
{
    bench_opts_t o = {
        .name = "allgather", .min_size = 8, .max_size = 4u << 20,
        .it = { .base_iters = 1000, .min_iters = 10, .budget = 256.0 * (1 << 20) },
    };
    bench_init(&argc, &argv, &o, BENCH_OPT_SIZES | BENCH_OPT_VARY, "MPI_Allgather, size bytes per rank");
    if ((double)o.max_size * o.np > (double)(1u << 30))
        bench_die(&o, "np * max-size must stay under 1 GiB");
    ctx_t c = { bench_alloc(o.max_size), bench_alloc(o.max_size * (size_t)o.np), 0, o.rank };
    bench_header(&o, "size = bytes per rank, usec = time per call (mean over ranks), min_usec/max_usec over ranks");

    for (size_t size = bench_first_size(&o); size != BENCH_END; size = bench_next_size(&o, size)) {
        c.size = size;
        long iters = bench_iters(&o, size), warm = bench_warmup(&o, iters);
        if (!o.no_validate) {
            bench_fill(c.sbuf, size, bench_seed(size, o.rank, 0, 13));
            for (int r = 0; r < o.np; r++)
                bench_poison(c.rbuf + (size_t)r * size, size, bench_seed(size, r, 0, 13));
            op(&c);
            for (int r = 0; r < o.np; r++) {
                uint64_t seed = bench_seed(size, r, 0, 13);
                size_t bad = bench_check(c.rbuf + (size_t)r * size, size, seed);
                if (bad != BENCH_END)
                    bench_fail(&o, size, "block from rank %d: byte %zu is 0x%02x, expected 0x%02x", r, bad,
                               (unsigned char)c.rbuf[(size_t)r * size + bad], bench_pattern_byte(seed, bad));
            }
        }
        bench_coll_result(&o, size, iters, bench_time_coll(&o, warm, iters, op, refill, &c));
    }
    bench_free(c.sbuf);
    bench_free(c.rbuf);
    return bench_finish();
}
