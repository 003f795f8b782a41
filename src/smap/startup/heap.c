/* The symmetric heap (DESIGN.md D3a; findings §2 items 3, 4, 9, §3.3).
 *
 * Each rank's heap is a sparse memfd ("smartmap-heap") mapped at
 * SMAP_HEAP_SLOT_BASE + local rank * slot size, the same address in every
 * process of the node, so heap pointers need no translation.  The whole
 * malloc family of the process (malloc_api.c) is served from it by a
 * vendored jemalloc through a manual arena whose extent hooks carve the slot
 * (heap_hooks.c).  A manual arena is the only arrangement that leaves
 * nothing outside: hooks on arena 0 come too late for the thread cache that
 * jemalloc's own boot fills, and automatic arenas send huge requests to a
 * lazily created arena with default hooks.
 *
 * Everything here runs at the process's very first malloc, which may come
 * from libstdc++'s constructor before any constructor of ours: no stdio, no
 * allocation, and a recursive malloc (from pthread_atfork or jemalloc's
 * boot) is served by an automatic arena rather than waited for. */
#define _GNU_SOURCE
#include "base/compiler.h"
#include "smap/startup/heap_internal.h"
#include "smap/smap.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { ST_NEW, ST_BUSY, ST_READY };
static _Atomic int state = ST_NEW;
_Atomic int smap_heap_flags = SMAP_HEAP_UNDECIDED;
/* initial-exec: a dynamic TLS access could itself call malloc. */
static __thread int init_owner SMAP_TLS_INITIAL_EXEC;
static unsigned arena_ind;
static _Atomic int exposed;         /* the slot serves the process */
static _Atomic int interposed;      /* another malloc comes first */
static _Atomic int interpose_checked;
static uint64_t init_ns;

/* The vendored jemalloc's compiled-in options, chosen by the first call
 * before jemalloc boots.  In the slot, a single automatic arena is enough
 * (it only holds jemalloc's thread caches); oversize_threshold:0 turns off
 * the separate huge arena.  Not a rank: jemalloc's defaults.  MALLOC_CONF
 * still overrides either. */
const char *smap_je_malloc_conf;
static const char slot_conf[] = "narenas:1,oversize_threshold:0";

/* ---- Messages without stdio --------------------------------------------- */

struct msg {
    char buf[160];
    size_t n;
};

static void msg_str(struct msg *m, const char *s)
{
    while (*s && m->n + 1 < sizeof m->buf)
        m->buf[m->n++] = *s++;
    m->buf[m->n] = '\0';
}

static void msg_num(struct msg *m, uint64_t v, unsigned radix)
{
    char tmp[24];
    int i = 0;
    do {
        tmp[i++] = "0123456789abcdef"[v % radix];
        v /= radix;
    } while (v);
    if (radix == 16)
        msg_str(m, "0x");
    char out[24];
    for (int j = 0; j < i; j++)
        out[j] = tmp[i - 1 - j];
    out[i] = '\0';
    msg_str(m, out);
}

static int early_verbose(void)
{
    const char *v = smap_early_getenv("SMAP_VERBOSE");
    return v ? atoi(v) : 0;
}

/* ---- Slot --------------------------------------------------------------- */

/* Huge pages for shmem are an admin setting (findings §4b). */
static int shmem_thp_available(void)
{
    char buf[128];
    if (smap_read_small_file("/sys/kernel/mm/transparent_hugepage/shmem_enabled", buf, sizeof buf) != 0)
        return 0;
    return strstr(buf, "[advise]") || strstr(buf, "[always]") || strstr(buf, "[within_size]");
}

/* Creates and maps this rank's slot.  Returns NULL, or why it failed. */
static const char *slot_create(struct msg *why)
{
    size_t len = smap_heap_slot_size();
    uintptr_t base = SMAP_HEAP_SLOT_BASE + (uintptr_t)smap_early_local_rank() * len;
    int fd = memfd_create("smartmap-heap", MFD_CLOEXEC);
    if (fd < 0)
        return "memfd_create failed";
    if (ftruncate(fd, (off_t)len) != 0) {
        close(fd);
        return "ftruncate of the heap memfd failed";
    }
    void *p = mmap((void *)base, len, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE, fd, 0);
    if (p == MAP_FAILED || p != (void *)base) {
        int err = errno;
        if (p != MAP_FAILED)
            munmap(p, len);   /* a kernel older than 4.17 took it as a hint */
        close(fd);
        msg_str(why, "cannot map the heap slot at ");
        msg_num(why, base, 16);
        if (err == EEXIST || p != MAP_FAILED) {
            msg_str(why, ": the range is in use");
        } else if (err == ENOMEM) {
            msg_str(why, ": out of address space (ulimit -v?)");
        } else {
            msg_str(why, ": errno ");
            msg_num(why, (uint64_t)err, 10);
        }
        return why->buf;
    }
    if (shmem_thp_available())
        (void)madvise(p, len, MADV_HUGEPAGE);
    smap_heap_hooks_setup(base, len, fd);
    smap_region_set(SMAP_REGION_HEAP, base, len, fd, 0);
    return NULL;
}

static void slot_destroy(void)
{
    const struct smap_region *r = smap_region_self(SMAP_REGION_HEAP);
    int fd = r->fd;
    munmap((void *)r->base, r->len);
    close(fd);
    smap_heap_hooks_setup(0, 0, -1);
}

/* The manual arena whose hooks carve the slot.  Its metadata also comes
 * from the hooks (jemalloc 5.3's default for arenas.create). */
static const char *arena_create(void)
{
    extent_hooks_t *hooks = &smap_heap_extent_hooks;
    size_t sz = sizeof arena_ind;
    if (smap_je_mallctl("arenas.create", &arena_ind, &sz, &hooks, sizeof hooks) != 0)
        return "jemalloc could not create the slot's arena";
    /* Retained growth is geometric; cap its step so that a small slot
     * (SMAP_HEAP_SLOT) is not exhausted by one speculative grow. */
    char name[48] = "arena.";
    struct msg m = { .n = 0 };
    msg_num(&m, arena_ind, 10);
    memcpy(name + 6, m.buf, m.n);
    memcpy(name + 6 + m.n, ".retain_grow_limit", sizeof ".retain_grow_limit");
    size_t limit = smap_heap_slot_size() / 32;
    (void)smap_je_mallctl(name, NULL, NULL, &limit, sizeof limit);
    return NULL;
}

/* ---- First call ---------------------------------------------------------- */

static const char *decide(void)
{
#ifdef __SANITIZE_ADDRESS__
    return "malloc is interposed by AddressSanitizer (sanitizer build)";
#endif
    if (!smap_launched())
        return "not started by a launcher";
    if (!(smap_expose_mask() & SMAP_EXPOSE_HEAP))
        return smap_expose_excluded_why();
    if (atomic_load_explicit(&interposed, memory_order_relaxed))
        return "malloc is interposed by another allocator (LD_PRELOAD or AddressSanitizer?)";
    return NULL;
}

static void report(void)
{
    struct msg m = { .n = 0 };
    msg_str(&m, "heap: ");
    if (atomic_load_explicit(&exposed, memory_order_relaxed)) {
        msg_str(&m, "slot ");
        msg_num(&m, atomic_load_explicit(&smap_heap_slot_base, memory_order_relaxed), 16);
        msg_str(&m, " + ");
        msg_num(&m, smap_heap_slot_size() >> 20, 10);
        msg_str(&m, " MiB, arena ");
        msg_num(&m, arena_ind, 10);
    } else {
        msg_str(&m, "not exposed (");
        msg_str(&m, smap_region_self(SMAP_REGION_HEAP)->why);
        msg_str(&m, ")");
    }
    msg_str(&m, ", first-call init ");
    msg_num(&m, init_ns / 1000, 10);
    msg_str(&m, " us");
    smap_early_warn(m.buf);
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Before anything of ours allocates, so that every block is glibc's. */
static int libc_mode(void)
{
    if (!smap_under_valgrind() || (smap_expose_mask() & SMAP_EXPOSE_HEAP))
        return 0;
    atomic_store_explicit(&smap_heap_flags, SMAP_HEAP_LIBC, memory_order_release);
    return 1;
}

static void heap_init(void)
{
    uint64_t t0 = now_ns();
    int libc = libc_mode();
    struct msg why = { .n = 0 };
    const char *err = decide();
    int want = err == NULL;
    if (!err)
        err = slot_create(&why);
    /* Before jemalloc boots: its atfork handlers must come after ours. */
    smap_fork_init();
    if (!err) {
        smap_je_malloc_conf = slot_conf;
        err = arena_create();
        if (err)
            slot_destroy();
    }
    if (err) {
        smap_region_unexposed(SMAP_REGION_HEAP, err);
        if (want) {   /* a rank that should have had it */
            struct msg m = { .n = 0 };
            msg_str(&m, "the heap is not exposed: ");
            msg_str(&m, err);
            smap_early_warn(m.buf);
        }
    }
    atomic_store_explicit(&exposed, err == NULL, memory_order_relaxed);
    init_ns = now_ns() - t0;
    atomic_store_explicit(&smap_heap_flags,
                          err == NULL ? MALLOCX_ARENA(arena_ind) : libc ? SMAP_HEAP_LIBC : 0,
                          memory_order_release);
    if (early_verbose() >= 3)
        report();
}

int smap_heap_first_call(void)
{
    if (init_owner) {
        int f = atomic_load_explicit(&smap_heap_flags, memory_order_acquire);
        return f == SMAP_HEAP_LIBC ? f : MALLOCX_TCACHE_NONE;
    }
    int expect = ST_NEW;
    if (atomic_compare_exchange_strong_explicit(&state, &expect, ST_BUSY, memory_order_acq_rel,
                                                memory_order_acquire)) {
        init_owner = 1;
        heap_init();
        init_owner = 0;
        atomic_store_explicit(&state, ST_READY, memory_order_release);
    } else {
        while (atomic_load_explicit(&state, memory_order_acquire) != ST_READY)
            sched_yield();
    }
    return atomic_load_explicit(&smap_heap_flags, memory_order_acquire);
}

/* ---- Queries -------------------------------------------------------------- */

/* A malloc found before ours (ASan, LD_PRELOAD, a library linked first)
 * serves the program: the slot would hold only what reaches us by chance. */
static void check_interposition(void)
{
    if (atomic_exchange_explicit(&interpose_checked, 1, memory_order_acq_rel))
        return;
    if (!smap_heap_malloc_is_ours())
        atomic_store_explicit(&interposed, 1, memory_order_relaxed);
}

/* Before the first malloc: decide without creating a slot that would not
 * serve the program. */
static void ensure_init(void)
{
    if (atomic_load_explicit(&state, memory_order_acquire) == ST_NEW)
        check_interposition();
    (void)smap_heap_mode();
}

/* jemalloc boots in its own constructor (after ours: the archive is linked
 * after our objects) and reads malloc_conf then.  A program that has not
 * allocated yet gets its first call here, so that the conf is chosen first. */
SMAP_CONSTRUCTOR static void heap_ctor(void)
{
    ensure_init();
}

int smap_heap_exposed(void)
{
    ensure_init();
    check_interposition();
    if (atomic_load_explicit(&interposed, memory_order_relaxed) &&
        atomic_exchange_explicit(&exposed, 0, memory_order_relaxed)) {
        /* The slot keeps serving whatever reaches it; peers are told it is
         * not the heap. */
        smap_region_unexposed(SMAP_REGION_HEAP,
                              "malloc is interposed by another allocator (LD_PRELOAD or AddressSanitizer?)");
    }
    return atomic_load_explicit(&exposed, memory_order_relaxed) &&
           smap_region_self(SMAP_REGION_HEAP)->base != 0;
}

size_t smap_heap_used(void)
{
    return smap_heap_hooks_used();
}

void smap_heap_purge(void)
{
    if (smap_heap_mode() == SMAP_HEAP_LIBC)
        return;   /* jemalloc serves nothing */
    int slot = atomic_load_explicit(&smap_heap_slot_base, memory_order_relaxed) != 0;
    char name[48] = "arena.";
    struct msg m = { .n = 0 };
    msg_num(&m, slot ? arena_ind : SMAP_JE_ARENAS_ALL, 10);
    memcpy(name + 6, m.buf, m.n);
    memcpy(name + 6 + m.n, ".purge", sizeof ".purge");
    (void)smap_je_mallctl(name, NULL, NULL, NULL, 0);
}
