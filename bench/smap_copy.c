/* smap_copy.c — what reading a node peer's memory costs with smartmap.
 *
 * Local rank 0 copies from local rank 1's heap, main-thread stack and
 * global buffers (memcpy through smap_remote's pointer) into private memory
 * and compares with a private -> private memcpy of the same size; then the
 * same sizes with process_vm_readv (CMA, the copy engine's fallback), and
 * the first copy from never-touched peer pages (page-table set-up included).
 * Medians over --reps samples; every sample moves at least 1 MiB.  All
 * ranks also time their MPI_Init (exposure done at start-up: attach to node
 * peers, copy-engine probe; the heap, data and stack conversion before main
 * is not inside it: scripts/bench_smap.sh measures the whole start-up).
 *
 *   mpicc -no-pie -O2 smap_copy.c -o smap_copy && mpiexec -n 2 ./smap_copy
 *
 * -no-pie: the peer's buffer addresses are published in a global (`board`),
 * read at our own &board, which needs globals at the same address in every
 * rank.  Uses only mpi.h, smartmap.h and libc.
 *
 * Output: '#' comments, one "ROW size=... private=... heap=... stack=...
 * global=... cma=... first=..." line per size (GB/s; '-' when a source is
 * smaller than the size or not exposed), then "STARTUP np=... init_ms_min=
 * ... init_ms_median=... init_ms_max=...". */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <smartmap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)
#define GLOBAL_BYTES (64 * MIB)
#define STACK_BYTES (4 * MIB + 64 * KIB)   /* main-stack array: stays < 6 MiB */
#define MAX_RANKS 256

enum { SRC_PRIVATE, SRC_HEAP, SRC_STACK, SRC_GLOBAL, SRC_CMA, SRC_FIRST, NSRC };
static const char *const src_name[NSRC] = { "private", "heap", "stack", "global", "cma", "first" };

static char global_buf[GLOBAL_BYTES];
static struct {
    int ready;
    pid_t pid;
    double init_ms;
    char *heap, *stack, *global, *cold;   /* the peer's buffers */
    size_t cold_bytes;
} board;

struct opts {
    size_t min, max;
    int reps;
    int startup;   /* --startup: only the MPI_Init times */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end == 'K' || *end == 'k') v <<= 10;
    else if (*end == 'M' || *end == 'm') v <<= 20;
    return (size_t)v;
}

static void usage_exit(const char *prog, int code)
{
    fprintf(code ? stderr : stdout,
            "usage: %s [--min SIZE] [--max SIZE] [--reps N] [--quick] [--startup]\n"
            "  sizes double from --min (default 4K) to --max (default 64M, at most 64M);\n"
            "  --reps samples per size (default 11), median reported;\n"
            "  --quick: 4K..64K, 3 reps (a smoke test); --startup: only MPI_Init times\n", prog);
    exit(code);
}

static struct opts parse(int argc, char **argv)
{
    struct opts o = { 4 * KIB, 64 * MIB, 11, 0 };
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            o.max = 64 * KIB;
            o.reps = 3;
        } else if (strcmp(argv[i], "--min") == 0 && i + 1 < argc) {
            o.min = parse_size(argv[++i]);
        } else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc) {
            o.max = parse_size(argv[++i]);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            o.reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--startup") == 0) {
            o.startup = 1;
            o.min = o.max = 4 * KIB;
        } else if (strcmp(argv[i], "--help") == 0) {
            usage_exit(argv[0], 0);
        } else {
            fprintf(stderr, "smap_copy: unknown option '%s'\n", argv[i]);
            usage_exit(argv[0], 2);
        }
    }
    if (o.min < 64 || o.max > GLOBAL_BYTES || o.min > o.max || o.reps < 1 || o.reps > 1000)
        usage_exit(argv[0], 2);
    return o;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Called through a volatile pointer: the compiler cannot merge or drop
 * the repeated identical copies of a sample. */
static void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;

/* One sample: GB/s of `iters` copies of size bytes from src into dst. */
static double sample_memcpy(char *dst, const char *src, size_t size, long iters)
{
    double t0 = now_s();
    for (long i = 0; i < iters; i++)
        copy_fn(dst, src, size);
    return (double)size * (double)iters / (now_s() - t0) / 1e9;
}

static double sample_cma(pid_t pid, char *dst, const char *src, size_t size, long iters)
{
    double t0 = now_s();
    for (long i = 0; i < iters; i++) {
        struct iovec l = { dst, size }, r = { (void *)src, size };
        if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)size)
            return -1;
    }
    return (double)size * (double)iters / (now_s() - t0) / 1e9;
}

static void print_cell(double v)
{
    if (v < 0)
        printf(" %9s", "-");
    else
        printf(" %9.2f", v);
}

/* Local rank 0's work: the table. */
static void measure(const struct opts *o, int peer)
{
    typeof(board) pb;
    if (smap_get(peer, &pb, &board, sizeof pb) != 0 || !pb.ready) {
        fprintf(stderr, "smap_copy: cannot read local rank %d's board (built without -no-pie?)\n",
                peer);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char *dst = mmap(NULL, o->max, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *priv = mmap(NULL, o->max, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (dst == MAP_FAILED || priv == MAP_FAILED) {
        perror("smap_copy: mmap");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(dst, 1, o->max);
    memset(priv, 2, o->max);
    const char *src[NSRC] = { priv, smap_remote(peer, pb.heap, o->max),
                              smap_remote(peer, pb.stack, STACK_BYTES),
                              smap_remote(peer, pb.global, o->max), pb.heap, NULL };
    int cma_ok = 1;
    size_t cold_off = 0;
    printf("# smap_copy: local rank 0 copies from local rank %d into private memory, GB/s, "
           "median of %d\n", peer, o->reps);
    printf("# private: private->private memcpy; heap/stack/global: memcpy from the peer's "
           "buffer in place;\n# cma: process_vm_readv from the peer's heap; first: the first "
           "memcpy from peer heap pages never read before\n");
    printf("# direct access: heap %s, stack %s, global %s\n", src[SRC_HEAP] ? "yes" : "NO",
           src[SRC_STACK] ? "yes" : "NO", src[SRC_GLOBAL] ? "yes" : "NO");
    printf("%-10s %9s %9s %9s %9s %9s %9s %9s\n", "size", "private", "heap", "stack", "global",
           "heap/priv", "cma", "first");
    double *s = malloc((size_t)o->reps * sizeof *s);
    for (size_t size = o->min; size <= o->max; size *= 2) {
        long iters = (long)(MIB / size) > 1 ? (long)(MIB / size) : 1;
        double res[NSRC];
        for (int k = 0; k < NSRC; k++) {
            res[k] = -1;
            if (k == SRC_FIRST || !src[k] || (k == SRC_STACK && size > STACK_BYTES))
                continue;
            if (k == SRC_CMA && !cma_ok)
                continue;
            /* Warm-up: page tables and caches, as in steady use. */
            if (k == SRC_CMA)
                (void)sample_cma(pb.pid, dst, src[k], size, 1);
            else
                memcpy(dst, src[k], size);
            for (int r = 0; r < o->reps; r++)
                s[r] = k == SRC_CMA ? sample_cma(pb.pid, dst, src[k], size, iters)
                                    : sample_memcpy(dst, src[k], size, iters);
            if (k == SRC_CMA && s[0] < 0) {
                cma_ok = 0;
                printf("# process_vm_readv failed (%s): no CMA column\n", strerror(errno));
                continue;
            }
            res[k] = median(s, o->reps);
        }
        /* Cold: a fresh part of the peer's populated "cold" buffer, once. */
        const char *cold = smap_remote(peer, pb.cold + cold_off, size);
        if (cold && cold_off + size <= pb.cold_bytes) {
            res[SRC_FIRST] = sample_memcpy(dst, cold, size, 1);
            cold_off += size;
        }
        char label[32];
        if (size >= MIB)
            snprintf(label, sizeof label, "%zu MiB", size / MIB);
        else
            snprintf(label, sizeof label, "%zu KiB", size / KIB);
        printf("%-10s", label);
        for (int k = SRC_PRIVATE; k <= SRC_GLOBAL; k++)
            print_cell(res[k]);
        print_cell(res[SRC_HEAP] > 0 && res[SRC_PRIVATE] > 0 ? res[SRC_HEAP] / res[SRC_PRIVATE] : -1);
        print_cell(res[SRC_CMA]);
        print_cell(res[SRC_FIRST]);
        printf("\n");
        printf("ROW size=%zu", size);
        for (int k = 0; k < NSRC; k++)
            res[k] < 0 ? printf(" %s=-", src_name[k]) : printf(" %s=%.3f", src_name[k], res[k]);
        printf("\n");
        fflush(stdout);
    }
    free(s);
    munmap(dst, o->max);
    munmap(priv, o->max);
}

/* Rank 0 reads every local rank's MPI_Init time from its board. */
static void report_startup(int me, int n, int np)
{
    double v[MAX_RANKS];
    int got = 0;
    for (int lr = 0; lr < n && got < MAX_RANKS; lr++) {
        typeof(board) pb;
        if (lr == me)
            v[got++] = board.init_ms;
        else if (smap_get(lr, &pb, &board, sizeof pb) == 0 && pb.ready)
            v[got++] = pb.init_ms;
    }
    if (!got)
        return;
    double lo = v[0], hi = v[0];
    for (int i = 1; i < got; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    printf("STARTUP np=%d local=%d init_ms_min=%.3f init_ms_median=%.3f init_ms_max=%.3f\n", np,
           got, lo, median(v, got), hi);
}

int main(int argc, char **argv)
{
    double t0 = now_s();
    MPI_Init(&argc, &argv);
    double init_ms = (now_s() - t0) * 1e3;
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    struct opts o = parse(argc, argv);
    int me = smap_local_rank(), n = smap_local_size();

    char stack_buf[STACK_BYTES] __attribute__((aligned(4096)));
    board.pid = getpid();
    board.init_ms = init_ms;
    if (me == 1) {
        board.heap = malloc(o.max);
        board.cold_bytes = 2 * o.max;
        board.cold = malloc(board.cold_bytes);
        if (!board.heap || !board.cold) {
            perror("smap_copy: malloc");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(board.heap, 3, o.max);
        memset(board.cold, 4, board.cold_bytes);
        memset(stack_buf, 5, sizeof stack_buf);
        memset(global_buf, 6, o.max);
        board.stack = stack_buf;
        board.global = global_buf;
    }
    board.ready = 1;
    smap_node_barrier();
    if (me == 0) {
        printf("# smap_copy: %d ranks, %d on this node\n", np, n);
        if (!o.startup && n >= 2)
            measure(&o, 1);
        else if (!o.startup)
            printf("# only one rank on this node: no copy table\n");
        report_startup(me, n, np);
    }
    smap_node_barrier();   /* the peer's buffers live until the table is done */
    if (me == 1) {
        free(board.heap);
        free(board.cold);
    }
    MPI_Finalize();
    return 0;
}
