/* common.c — shared helpers of the smartmap benchmark programs (see common.h). */
#include "common.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(const bench_opts_t *o, unsigned accepted, const char *what)
{
    printf("usage: %s [options]\n  %s\n\noptions:\n", o->name, what);
    if (accepted & BENCH_OPT_SIZES) {
        printf("  --min-size N    smallest message size in bytes (K/M suffixes allowed; default %zu)\n",
               o->min_size);
        printf("  --max-size N    largest message size (default %zu)\n", o->max_size);
    }
    printf("  --iters N       iterations for small messages (default %ld; large messages\n"
           "                  use fewer, in proportion, but at least %ld)\n",
           o->it.base_iters, o->it.min_iters);
    printf("  --warmup N      warm-up iterations per size (default iters/10, at least 2)\n");
    printf("  --quick         fewer sizes (0, 1, 8 and powers of 4) and a tenth of the iterations\n");
    if (accepted & BENCH_OPT_WINDOW) {
        printf("  --window N      messages in flight per window (default %d)\n", o->window);
        printf("  --distinct      one receive buffer per window slot (default: one shared buffer, as OSU)\n");
    }
    if (accepted & BENCH_OPT_VARY)
        printf("  --vary          change the data every iteration (outside the timed part),\n"
               "                  so no cache keeps a valid copy of the previous iteration's data\n");
    printf("  --no-validate   skip the per-size check of the received data\n");
    printf("  --help          this text\n\n"
           "Prints one line per size: RESULT bench=%s vary=0|1 np=N size=BYTES iters=N usec=T ...\n",
           o->name);
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return -1;
    unsigned long long mul = 1;
    if (*end == 'k' || *end == 'K')
        mul = 1024, end++;
    else if (*end == 'm' || *end == 'M')
        mul = 1024 * 1024, end++;
    else if (*end == 'g' || *end == 'G')
        mul = 1024ull * 1024 * 1024, end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end)
        return -1;
    *out = (size_t)(v * mul);
    return 0;
}

static int parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0)
        return -1;
    *out = v;
    return 0;
}

static void bad_option(const bench_opts_t *o, const char *msg, const char *arg)
{
    if (o->rank == 0)
        fprintf(stderr, "%s: %s '%s' (try --help)\n", o->name, msg, arg);
    MPI_Finalize();
    exit(2);
}

void bench_init(int *argc, char ***argv, bench_opts_t *o, unsigned accepted, const char *what)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &o->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &o->np);
    o->warmup = -1;

    int n = *argc;
    char **v = *argv;
    for (int i = 1; i < n; i++) {
        const char *a = v[i];
        const char *val = NULL;
        char key[32];
        /* --key=value or --key value */
        const char *eq = strchr(a, '=');
        if (eq && (size_t)(eq - a) < sizeof key) {
            memcpy(key, a, (size_t)(eq - a));
            key[eq - a] = 0;
            val = eq + 1;
        } else {
            snprintf(key, sizeof key, "%s", a);
        }
#define NEED_VAL()                                                   \
        do {                                                         \
            if (!val) {                                              \
                if (i + 1 >= n)                                      \
                    bad_option(o, "missing value for", key);         \
                val = v[++i];                                        \
            }                                                        \
        } while (0)
        if (!strcmp(key, "--help") || !strcmp(key, "-h")) {
            if (o->rank == 0)
                usage(o, accepted, what);
            MPI_Finalize();
            exit(0);
        } else if ((accepted & BENCH_OPT_SIZES) && !strcmp(key, "--min-size")) {
            NEED_VAL();
            if (parse_size(val, &o->min_size))
                bad_option(o, "bad size", val);
        } else if ((accepted & BENCH_OPT_SIZES) && !strcmp(key, "--max-size")) {
            NEED_VAL();
            if (parse_size(val, &o->max_size))
                bad_option(o, "bad size", val);
        } else if (!strcmp(key, "--iters")) {
            NEED_VAL();
            if (parse_long(val, &o->iters) || o->iters < 1)
                bad_option(o, "bad iteration count", val);
        } else if (!strcmp(key, "--warmup")) {
            NEED_VAL();
            if (parse_long(val, &o->warmup))
                bad_option(o, "bad warm-up count", val);
        } else if ((accepted & BENCH_OPT_WINDOW) && !strcmp(key, "--window")) {
            NEED_VAL();
            long w;
            if (parse_long(val, &w) || w < 1 || w > 4096)
                bad_option(o, "bad window (1..4096)", val);
            o->window = (int)w;
        } else if ((accepted & BENCH_OPT_WINDOW) && !strcmp(key, "--distinct") && !eq) {
            o->distinct = 1;
        } else if (!strcmp(key, "--quick") && !eq) {
            o->quick = 1;
        } else if ((accepted & BENCH_OPT_VARY) && !strcmp(key, "--vary") && !eq) {
            o->vary = 1;
        } else if (!strcmp(key, "--no-validate") && !eq) {
            o->no_validate = 1;
        } else {
            bad_option(o, "unknown option", a);
        }
#undef NEED_VAL
    }
    if (o->min_size > o->max_size)
        bad_option(o, "--min-size is larger than --max-size", "");
    /* Scale the defaults once, so bench_iters stays simple. */
    if (o->iters > 0) {
        o->it.budget = o->it.budget * (double)o->iters / (double)o->it.base_iters;
        o->it.base_iters = o->iters;
        if (o->it.min_iters > o->iters)
            o->it.min_iters = o->iters;
    }
    if (o->quick) {
        o->it.base_iters = o->it.base_iters / 10 > 1 ? o->it.base_iters / 10 : 1;
        o->it.budget /= 8;
        o->it.min_iters = o->it.min_iters / 2 > 2 ? o->it.min_iters / 2 : 2;
        if (o->it.min_iters > o->it.base_iters)
            o->it.min_iters = o->it.base_iters;
    }
}

void bench_header(const bench_opts_t *o, const char *columns)
{
    if (o->rank != 0)
        return;
    printf("# smartmap bench: %s  np=%d  vary=%d  quick=%d", o->name, o->np, o->vary, o->quick);
    if (o->window)
        printf("  window=%d%s", o->window, o->distinct ? " (distinct buffers)" : "");
    printf("\n# %s\n", columns);
    fflush(stdout);
}

static int is_pow4(size_t s)
{
    return s && !(s & (s - 1)) && (__builtin_ctzll((unsigned long long)s) % 2 == 0);
}

static int quick_keeps(const bench_opts_t *o, size_t s)
{
    return s == o->min_size || s == o->max_size || s == 0 || s == 1 || s == 8 || is_pow4(s);
}

/* The next size of the full sequence: 0 → 1 → 2 → 4 ...; a min that is
 * not a power of two is followed by the next power of two. */
static size_t step(const bench_opts_t *o, size_t s)
{
    if (s >= o->max_size)
        return BENCH_END;
    size_t n = 1;
    while (n <= s)
        n <<= 1;
    return n > o->max_size ? o->max_size : n;
}

size_t bench_first_size(const bench_opts_t *o)
{
    return o->min_size;
}

size_t bench_next_size(const bench_opts_t *o, size_t s)
{
    do {
        s = step(o, s);
    } while (s != BENCH_END && o->quick && !quick_keeps(o, s));
    return s;
}

long bench_iters(const bench_opts_t *o, size_t size)
{
    long it = o->it.base_iters;
    if (size > 0) {
        double b = o->it.budget / (double)size;
        if (b < (double)it)
            it = (long)b;
    }
    if (it < o->it.min_iters)
        it = o->it.min_iters;
    return it < 1 ? 1 : it;
}

long bench_warmup(const bench_opts_t *o, long iters)
{
    if (o->warmup >= 0)
        return o->warmup;
    long w = iters / 10;
    return w < 2 ? 2 : w;
}

void *bench_alloc(size_t n)
{
    void *p = NULL;
    size_t sz = n ? n : 1;
    if (posix_memalign(&p, 4096, sz)) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", sz);
        MPI_Abort(MPI_COMM_WORLD, 2);
        exit(2);
    }
    memset(p, 0, sz);
    return p;
}

void bench_free(void *p)
{
    free(p);
}

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

uint8_t bench_pattern_byte(uint64_t seed, size_t i)
{
    uint64_t w = mix64(seed * 0x9e3779b97f4a7c15ull + (uint64_t)(i >> 3));
    return (uint8_t)(w >> ((i & 7) * 8));
}

/* Fills word by word (the pattern is defined per 8-byte word). */
static void fill_impl(uint8_t *b, size_t n, uint64_t seed, int invert)
{
    uint8_t inv = invert ? 0xff : 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = mix64(seed * 0x9e3779b97f4a7c15ull + (uint64_t)(i >> 3));
        if (invert)
            w = ~w;
        memcpy(b + i, &w, 8);   /* little or big endian: checked the same way below */
    }
    for (; i < n; i++)
        b[i] = (uint8_t)(bench_pattern_byte(seed, i) ^ inv);
}

void bench_fill(void *buf, size_t n, uint64_t seed)
{
    fill_impl(buf, n, seed, 0);
}

void bench_poison(void *buf, size_t n, uint64_t seed)
{
    fill_impl(buf, n, seed, 1);
}

size_t bench_check(const void *buf, size_t n, uint64_t seed)
{
    const uint8_t *b = buf;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = mix64(seed * 0x9e3779b97f4a7c15ull + (uint64_t)(i >> 3)), got;
        memcpy(&got, b + i, 8);
        if (got != w) {
            for (size_t j = i; j < i + 8; j++) {
                uint8_t e;
                memcpy(&e, (const uint8_t *)&w + (j - i), 1);
                if (b[j] != e)
                    return j;
            }
        }
    }
    for (; i < n; i++)
        if (b[i] != bench_pattern_byte(seed, i))
            return i;
    return BENCH_END;
}

void bench_touch(void *buf, size_t n, long iter, int rank)
{
    memset(buf, (int)((iter * 37 + rank * 101 + 1) & 0xff), n);
}

uint64_t bench_seed(size_t size, int src, int dst, int tag)
{
    return mix64(((uint64_t)size << 20) ^ ((uint64_t)(unsigned)src << 40) ^
                 ((uint64_t)(unsigned)dst << 52) ^ (uint64_t)(unsigned)tag ^ 0x5eed);
}

void bench_fail(const bench_opts_t *o, size_t size, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "VALIDATION FAILED bench=%s size=%zu rank=%d: %s\n", o->name, size, o->rank, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

void bench_fail_at(const bench_opts_t *o, size_t size, const char *what,
                   const void *buf, size_t bad, uint64_t seed)
{
    bench_fail(o, size, "%s: byte %zu is 0x%02x, expected 0x%02x", what, bad,
               ((const uint8_t *)buf)[bad], bench_pattern_byte(seed, bad));
}

void bench_die(const bench_opts_t *o, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (o->rank == 0)
        fprintf(stderr, "%s: %s\n", o->name, msg);
    fflush(stderr);
    MPI_Finalize();
    exit(2);
}

bench_stats_t bench_gather(const bench_opts_t *o, double mine)
{
    bench_stats_t s = {0, 0, 0, 0, 0};
    double v = mine;
    for (int r = 0; r < o->np; r++) {
        if (o->rank == 0 && r > 0)
            MPI_Recv(&v, 1, MPI_DOUBLE, r, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (o->rank == 0)
            v = mine;
        else if (r == o->rank)
            MPI_Send(&mine, 1, MPI_DOUBLE, 0, 999, MPI_COMM_WORLD);
        if (o->rank != 0 || v < 0)
            continue;
        if (s.count == 0 || v < s.min)
            s.min = v;
        if (s.count == 0 || v > s.max)
            s.max = v;
        s.sum += v;
        s.count++;
    }
    s.avg = s.count ? s.sum / s.count : 0;
    return s;
}

void bench_result(const bench_opts_t *o, size_t size, long iters, double usec, const char *extra_fmt, ...)
{
    char extra[256] = "";
    if (extra_fmt && *extra_fmt) {
        va_list ap;
        va_start(ap, extra_fmt);
        extra[0] = ' ';
        vsnprintf(extra + 1, sizeof extra - 1, extra_fmt, ap);
        va_end(ap);
        if (!extra[1])
            extra[0] = 0;
    }
    printf("RESULT bench=%s vary=%d np=%d size=%zu iters=%ld usec=%.4f%s\n",
           o->name, o->vary, o->np, size, iters, usec, extra);
    fflush(stdout);
}

double bench_time_coll(const bench_opts_t *o, long warm, long iters,
                       bench_op_fn op, bench_refill_fn refill, void *ctx)
{
    double acc = 0;
    for (long i = 0; i < warm + iters; i++) {
        if (o->vary && refill)
            refill(ctx, i);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        op(ctx);
        double dt = MPI_Wtime() - t0;
        if (i >= warm)
            acc += dt;
    }
    return acc / (double)iters * 1e6;
}

void bench_coll_result(const bench_opts_t *o, size_t size, long iters, double usec)
{
    bench_stats_t s = bench_gather(o, usec);
    if (o->rank == 0)
        bench_result(o, size, iters, s.avg, "min_usec=%.4f max_usec=%.4f", s.min, s.max);
}

int bench_finish(void)
{
    MPI_Finalize();
    return 0;
}
