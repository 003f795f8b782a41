/* common.h — shared helpers of the smartmap benchmark programs.
 *
 * Every program in bench/ uses only the MPI standard (plus libc), so it builds
 * and runs unchanged with smartmap, Open MPI and MPICH.  The helpers here parse
 * the common options, step through the message sizes, pick the iteration
 * counts, fill and check buffers, and print the machine-readable RESULT lines:
 *
 *   RESULT bench=<name> vary=<0|1> np=<ranks> size=<bytes> iters=<n> usec=<t> ...
 *
 * Only these MPI calls are used outside the benchmarked operation itself:
 * MPI_Init, MPI_Finalize, MPI_Comm_rank, MPI_Comm_size, MPI_Barrier, MPI_Wtime,
 * MPI_Abort (on failure only) and, to collect per-rank timings at rank 0,
 * MPI_Send/MPI_Recv (bench_gather; never used by the barrier benchmark,
 * so that it runs on an MPI that has nothing but MPI_Barrier). */
#ifndef SMAP_BENCH_COMMON_H
#define SMAP_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

/* How a benchmark's default iteration count shrinks with the message size:
 * iters(size) = clamp(budget / size, min_iters, base_iters). */
typedef struct {
    long base_iters;     /* small messages */
    long min_iters;      /* never fewer */
    double budget;       /* bytes moved per size and per rank (per message direction) */
} bench_iters_t;

typedef struct {
    const char *name;    /* benchmark name, as printed in RESULT lines */
    int rank, np;
    size_t min_size, max_size;
    long iters;          /* --iters: base iteration count (0: the benchmark's default) */
    long warmup;         /* --warmup: warm-up iterations (-1: iters/10, at least 2) */
    int window;          /* --window: messages in flight (bw, bibw, msgrate) */
    int quick;           /* --quick: fewer sizes (powers of 4) and iterations */
    int vary;            /* --vary: the data changes every iteration */
    int distinct;        /* --distinct: one receive buffer per window slot */
    int no_validate;     /* --no-validate */
    bench_iters_t it;    /* defaults of this benchmark */
} bench_opts_t;

/* Flags telling bench_init which options a benchmark accepts. */
enum {
    BENCH_OPT_SIZES    = 1 << 0,   /* --min-size/--max-size */
    BENCH_OPT_WINDOW   = 1 << 1,   /* --window, --distinct */
    BENCH_OPT_VARY     = 1 << 2,   /* --vary */
};

/* MPI_Init, then parse argv.  `o` comes in with the benchmark's defaults
 * (name, min/max size, window, it); the options override them.  On --help or
 * a bad option it prints (rank 0), finalizes and exits (0 or 2). */
void bench_init(int *argc, char ***argv, bench_opts_t *o, unsigned accepted, const char *what);

/* Prints the "# ..." header lines (rank 0). */
void bench_header(const bench_opts_t *o, const char *columns);

/* Message sizes: for (s = bench_first_size(o); s != BENCH_END; s = bench_next_size(o, s)).
 * Powers of two from min to max (0 first when min is 0); with --quick only
 * 0, 1, 8, the powers of four and max. */
#define BENCH_END ((size_t)-1)
size_t bench_first_size(const bench_opts_t *o);
size_t bench_next_size(const bench_opts_t *o, size_t s);

/* Iteration and warm-up counts for one size. */
long bench_iters(const bench_opts_t *o, size_t size);
long bench_warmup(const bench_opts_t *o, long iters);

/* Page-aligned, zero-filled, already touched memory; exits on failure. */
void *bench_alloc(size_t n);
void bench_free(void *p);

/* The reference pattern: a hash of (seed, byte index); changes every byte. */
uint8_t bench_pattern_byte(uint64_t seed, size_t i);
void bench_fill(void *buf, size_t n, uint64_t seed);
/* Fills with the bitwise complement of the pattern: differs at every byte. */
void bench_poison(void *buf, size_t n, uint64_t seed);
/* Returns the index of the first byte that differs from the pattern, or BENCH_END. */
size_t bench_check(const void *buf, size_t n, uint64_t seed);
/* Cheap per-iteration change for --vary (memset with an iteration-dependent byte). */
void bench_touch(void *buf, size_t n, long iter, int rank);

/* Seeds: one per (benchmark step, size, source rank, destination rank). */
uint64_t bench_seed(size_t size, int src, int dst, int tag);

/* Validation failure: prints "VALIDATION FAILED bench=... size=... rank=... <msg>"
 * on stderr and aborts the job (exit code 3). */
void bench_fail(const bench_opts_t *o, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
/* Reports a mismatch found by bench_check at `bad` in `buf`. */
void bench_fail_at(const bench_opts_t *o, size_t size, const char *what,
                   const void *buf, size_t bad, uint64_t seed) __attribute__((noreturn));
/* Any other fatal error (not a validation failure): exit code 2. */
void bench_die(const bench_opts_t *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* Collects one double per rank at rank 0 with MPI_Send/MPI_Recv.  Negative
 * values mean "this rank has no value" (e.g. the passive side of a pair).
 * On rank 0 fills the statistics over the ranks that have a value. */
typedef struct {
    double sum, avg, min, max;
    int count;
} bench_stats_t;
bench_stats_t bench_gather(const bench_opts_t *o, double mine);

/* Prints one RESULT line (rank 0 only; the caller checks) and flushes.
 * `extra` is appended verbatim ("" for none): e.g. "mbps=1234.5". */
void bench_result(const bench_opts_t *o, size_t size, long iters, double usec, const char *extra_fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Collective timing loop (OSU style): for each of warm + iters iterations,
 * `refill(ctx, i)` when --vary (not timed), MPI_Barrier (not timed), then
 * one timed `op(ctx)`.  Returns this rank's mean time per call in usec. */
typedef void (*bench_op_fn)(void *ctx);
typedef void (*bench_refill_fn)(void *ctx, long iter);
double bench_time_coll(const bench_opts_t *o, long warm, long iters,
                       bench_op_fn op, bench_refill_fn refill, void *ctx);
/* Gathers the per-rank usec and prints
 * RESULT ... usec=<mean over ranks> min_usec=... max_usec=... (rank 0). */
void bench_coll_result(const bench_opts_t *o, size_t size, long iters, double usec);

/* Ends the program: MPI_Finalize and return code 0. */
int bench_finish(void);

#endif
