/* Settings the SMARTMAP layer needs before MPI_Init: at the first malloc
 * (which can come from libstdc++'s constructor, before any of ours) and in
 * the library constructor.  Nothing here may allocate, so the environment is
 * scanned directly and messages go out with write(2).  The same variables are
 * declared in the tunables table, which validates them at MPI_Init. */
#include "smap/smap.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef SMAP_HAVE_VALGRIND_H
#include <valgrind/valgrind.h>
#endif

extern char **environ;

const char *smap_early_getenv(const char *name)
{
    size_t n = strlen(name);
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static int word_is(const char *w, size_t len, const char *name)
{
    return strlen(name) == len && strncmp(w, name, len) == 0;
}

int smap_parse_expose(const char *s, const char **bad, size_t *badlen)
{
    static const struct { const char *name; unsigned bits; } words[] = {
        { "all", SMAP_EXPOSE_ALL },   { "none", 0 },
        { "heap", SMAP_EXPOSE_HEAP }, { "data", SMAP_EXPOSE_DATA },
        { "stack", SMAP_EXPOSE_STACK }, { "threads", SMAP_EXPOSE_THREADS },
    };
    unsigned mask = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        size_t i;
        for (i = 0; i < sizeof words / sizeof words[0]; i++)
            if (word_is(s, len, words[i].name))
                break;
        if (i == sizeof words / sizeof words[0]) {
            if (bad) *bad = s;
            if (badlen) *badlen = len;
            return -1;
        }
        mask |= words[i].bits;
        s += len;
        if (*s == ',')
            s++;
    }
    /* Thread stacks live on the heap: without it they cannot be exposed. */
    if (!(mask & SMAP_EXPOSE_HEAP))
        mask &= ~(unsigned)SMAP_EXPOSE_THREADS;
    return (int)mask;
}

/* valgrind's own client request where its header was found at build time;
 * otherwise its preloaded core, which it puts in every client's LD_PRELOAD. */
int smap_under_valgrind(void)
{
    static int cached = -1;
    if (cached < 0) {
#ifdef SMAP_HAVE_VALGRIND_H
        cached = RUNNING_ON_VALGRIND != 0;
#else
        const char *p = smap_early_getenv("LD_PRELOAD");
        cached = p && strstr(p, "/vgpreload_core-") != NULL;
#endif
    }
    return cached;
}

unsigned smap_expose_mask(void)
{
    static int cached = -1;
    if (cached < 0) {
        const char *v = smap_early_getenv("SMAP_EXPOSE");
        int m = v ? smap_parse_expose(v, NULL, NULL) : -1;
        /* Under valgrind nothing by default: memcheck's leak scan reads
         * every page of every shared mapping (64 GiB per heap slot) and
         * its allocator must see the program's blocks (malloc_api.c). */
        if (m < 0)
            m = smap_under_valgrind() && !v ? 0 : (int)SMAP_EXPOSE_ALL;
        cached = m;
    }
    return (unsigned)cached;
}

const char *smap_expose_excluded_why(void)
{
    if (smap_under_valgrind() && !smap_early_getenv("SMAP_EXPOSE"))
        return "running under valgrind (SMAP_EXPOSE=all overrides)";
    return "SMAP_EXPOSE excludes it";
}

int smap_parse_copy_level(const char *s)
{
    if (strcmp(s, "direct") == 0) return SMAP_COPY_DIRECT;
    if (strcmp(s, "cma") == 0) return SMAP_COPY_CMA;
    if (strcmp(s, "bounce") == 0) return SMAP_COPY_BOUNCE;
    return -1;
}

int smap_launched(void)
{
    return smap_early_getenv("PMI_RANK") || smap_early_getenv("PMI_FD") ||
           smap_early_getenv("SMAP_LOCAL_RANK") || smap_early_getenv("PMIX_RANK");
}

static int parse_nonneg(const char *v)
{
    if (!v || !*v)
        return -1;
    long x = 0;
    for (; *v; v++) {
        if (*v < '0' || *v > '9' || x > 1000000)
            return -1;
        x = x * 10 + (*v - '0');
    }
    return (int)x;
}

int smap_early_local_rank(void)
{
    /* smrun, hydra, Open MPI's mpirun, Slurm's srun (any --mpi), PALS;
     * PMI_RANK, the global rank, is right only on one node. */
    static const char *const vars[] = { "SMAP_LOCAL_RANK", "MPI_LOCALRANKID",
                                        "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
                                        "PALS_LOCAL_RANKID", "PMI_RANK" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        int r = parse_nonneg(smap_early_getenv(vars[i]));
        if (r >= 0)
            return r;
    }
    return 0;
}

size_t smap_heap_slot_size(void)
{
    static size_t cached;
    if (!cached) {
        size_t sz = (size_t)64 << 30;
        const char *v = smap_early_getenv("SMAP_HEAP_SLOT");
        if (v && *v) {
            char *end;
            unsigned long long x = strtoull(v, &end, 10);
            int shift = 0;
            if (*end == 'K' || *end == 'k') shift = 10, end++;
            else if (*end == 'M' || *end == 'm') shift = 20, end++;
            else if (*end == 'G' || *end == 'g') shift = 30, end++;
            else if (*end == 'T' || *end == 't') shift = 40, end++;
            /* Invalid or too small values keep the default; MPI_Init
             * reports malformed ones through the tunables table. */
            if (*end == '\0' && x > 0 && x < (1ull << (63 - shift)) &&
                (x << shift) >= ((size_t)1 << 30))
                sz = (size_t)(x << shift);
        }
        sz = (sz + ((size_t)1 << 30) - 1) & ~(((size_t)1 << 30) - 1);
        cached = sz;
    }
    return cached;
}

int smap_read_small_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return 0;
}

void smap_early_warn(const char *msg)
{
    static const char prefix[] = "smartmap: ";
    ssize_t rc = write(2, prefix, sizeof prefix - 1);
    rc = write(2, msg, strlen(msg));
    rc = write(2, "\n", 1);
    (void)rc;
}
