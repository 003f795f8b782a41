/* Allocation throughput (not a test: no timing is asserted): small
 * malloc/free pairs and batches, ns per operation.  Built against libmpi;
 * run it under smrun (slot mode), with SMAP_EXPOSE=none (jemalloc's
 * automatic arenas) and compiled without libmpi (glibc) to compare:
 *   cc -O2 tests/smap_heap/smap_heap_bench.c -o bench_glibc */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 5000000;
    static void *batch[1000];
    volatile char sink = 0;
    for (size_t sz = 16; sz <= 4096; sz *= 4) {
        double t0 = now();
        for (long i = 0; i < iters; i++) {
            char *p = malloc(sz);
            p[0] = (char)i;
            sink += p[0];
            free(p);
        }
        double t1 = now();
        for (long i = 0; i < iters / 1000; i++) {
            for (int k = 0; k < 1000; k++)
                batch[k] = malloc(sz + (size_t)(k & 7) * 8);
            for (int k = 0; k < 1000; k++)
                free(batch[k]);
        }
        double t2 = now();
        printf("size %5zu: malloc+free pair %6.1f ns, batch of 1000 %6.1f ns per malloc+free\n",
               sz, (t1 - t0) / iters * 1e9, (t2 - t1) / (iters / 1000 * 1000) * 1e9);
    }
    return sink == 42;
}
