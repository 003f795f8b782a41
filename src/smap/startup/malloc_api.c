/* The process's malloc family, exported by libmpi (findings §2 item 4).
 *
 * libmpi comes before libc in every program's lookup order, so these
 * definitions serve the program, libc's own callers (strdup, stdio, ...),
 * ld.so after start-up and libstdc++'s operator new.  All of them go to the
 * vendored jemalloc: with MALLOCX_ARENA(slot arena) when the heap slot is
 * exposed, on jemalloc's automatic arenas otherwise, so that one allocator
 * serves the whole process either way and any pointer may be freed by any
 * function.  Semantics follow glibc's (realloc(p, 0) frees, aligned_alloc
 * needs a power of two, errno ENOMEM), not jemalloc's defaults.  Under
 * valgrind with the heap unexposed (SMAP_HEAP_LIBC) everything goes to
 * glibc's malloc instead, which valgrind replaces: its leak check and
 * block checks then see the program's allocations.
 *
 * The thread cache is not per arena: an object from outside the slot that
 * is freed into it would later be handed out by a slot allocation.  So in
 * slot mode a pointer outside the slot (only the few that a recursive call
 * during the first call got) is freed past the thread cache. */
#define _GNU_SOURCE
#include "base/compiler.h"
#include "smap/startup/heap_internal.h"
#include "smap/smap.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NATURAL_ALIGN (2 * sizeof(void *) > __alignof__(long double) ? 2 * sizeof(void *) \
                                                                      : __alignof__(long double))

static SMAP_COLD void *out_of_memory(void)
{
    errno = ENOMEM;
    return NULL;
}

/* mallocx: size 0 is undefined there, and it leaves errno alone. */
static inline void *alloc_flags(size_t size, int flags)
{
    void *p = smap_je_mallocx(size ? size : 1, flags);
    return SMAP_LIKELY(p != NULL) ? p : out_of_memory();
}

static inline int lg2(size_t pow2)
{
    return smap_ctz_size(pow2);
}

/* Out of line: only fallback mode and stray pointers come here. */
static SMAP_COLD void free_outside_slot(void *p)
{
    int f = atomic_load_explicit(&smap_heap_flags, memory_order_relaxed);
    if (f == 0)
        smap_je_free(p);
    else if (f == SMAP_HEAP_LIBC)
        __libc_free(p);
    else if (p)
        smap_je_dallocx(p, MALLOCX_TCACHE_NONE);
}

static SMAP_COLD void *realloc_outside_slot(void *p, size_t size, int flags)
{
    void *q = alloc_flags(size, flags);
    if (q) {
        size_t old = smap_je_malloc_usable_size(p);
        memcpy(q, p, old < size ? old : size);
        free_outside_slot(p);
    }
    return q;
}

SMAP_EXPORT void *malloc(size_t size)
{
    int f = smap_heap_mode();
    if (f == 0)
        return smap_je_malloc(size);
    if (SMAP_UNLIKELY(f == SMAP_HEAP_LIBC))
        return __libc_malloc(size);
    return alloc_flags(size, f);
}

SMAP_EXPORT void free(void *p)
{
    if (SMAP_LIKELY(smap_heap_in_slot(p)))
        smap_je_free(p);
    else
        free_outside_slot(p);
}

SMAP_EXPORT void *calloc(size_t n, size_t m)
{
    int f = smap_heap_mode();
    if (f == 0)
        return smap_je_calloc(n, m);
    if (SMAP_UNLIKELY(f == SMAP_HEAP_LIBC))
        return __libc_calloc(n, m);
    size_t total;
    if (smap_mul_overflow_size(n, m, &total))
        return out_of_memory();
    return alloc_flags(total, f | MALLOCX_ZERO);
}

SMAP_EXPORT void *realloc(void *p, size_t size)
{
    int f = smap_heap_mode();
    if (SMAP_UNLIKELY(f == SMAP_HEAP_LIBC))
        return __libc_realloc(p, size);
    if (!p)
        return f == 0 ? smap_je_malloc(size) : alloc_flags(size, f);
    if (size == 0) {   /* glibc: frees and returns NULL */
        free(p);
        return NULL;
    }
    if (f == 0)
        return smap_je_realloc(p, size);
    if (SMAP_UNLIKELY(!smap_heap_in_slot(p)))
        return realloc_outside_slot(p, size, f);
    void *q = smap_je_rallocx(p, size, f);
    return SMAP_LIKELY(q != NULL) ? q : out_of_memory();
}

SMAP_EXPORT void *reallocarray(void *p, size_t n, size_t m)
{
    size_t total;
    if (smap_mul_overflow_size(n, m, &total))
        return out_of_memory();
    return realloc(p, total);
}

/* glibc exports no second name for it: found once, after start-up. */
static SMAP_COLD size_t libc_usable_size(void *p)
{
    static size_t (*_Atomic real)(void *);
    size_t (*fn)(void *) = atomic_load_explicit(&real, memory_order_relaxed);
    if (!fn) {
        fn = (size_t (*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
        if (!fn)
            return 0;
        atomic_store_explicit(&real, fn, memory_order_relaxed);
    }
    return fn(p);
}

SMAP_EXPORT size_t malloc_usable_size(void *p)
{
    if (!p)
        return 0;
    if (SMAP_UNLIKELY(atomic_load_explicit(&smap_heap_flags, memory_order_relaxed) == SMAP_HEAP_LIBC))
        return libc_usable_size(p);
    return smap_je_malloc_usable_size(p);
}

/* align: a power of two. */
static void *aligned(size_t align, size_t size)
{
    int f = smap_heap_mode();
    if (SMAP_UNLIKELY(f == SMAP_HEAP_LIBC))
        return __libc_memalign(align, size);
    if (align <= NATURAL_ALIGN)
        return f == 0 ? smap_je_malloc(size) : alloc_flags(size, f);
    return alloc_flags(size, f | MALLOCX_LG_ALIGN(lg2(align)));
}

SMAP_EXPORT void *aligned_alloc(size_t align, size_t size)
{
    if (align == 0 || (align & (align - 1))) {
        errno = EINVAL;
        return NULL;
    }
    return aligned(align, size);
}

/* glibc's memalign rounds a non-power-of-two alignment up. */
SMAP_EXPORT void *memalign(size_t align, size_t size)
{
    if (align > SIZE_MAX / 2 + 1) {
        errno = EINVAL;
        return NULL;
    }
    if (align & (align - 1))
        align = (size_t)1 << smap_bit_width_size(align);
    return aligned(align ? align : 1, size);
}

SMAP_EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
    if (align == 0 || align % sizeof(void *) || ((align / sizeof(void *)) & (align / sizeof(void *) - 1)))
        return EINVAL;
    int saved = errno;
    void *p = aligned(align, size);
    errno = saved;
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

SMAP_EXPORT void *valloc(size_t size)
{
    return aligned((size_t)sysconf(_SC_PAGESIZE), size);
}

SMAP_EXPORT void *pvalloc(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (size > SIZE_MAX - page)
        return out_of_memory();
    size_t rounded = (size + page - 1) & ~(page - 1);
    return aligned(page, rounded ? rounded : page);
}

/* glibc's malloc_trim would trim glibc's unused heap; here it returns the
 * freed pages of ours to the system.  1 when memory was released. */
SMAP_EXPORT int malloc_trim(size_t pad)
{
    (void)pad;
    if (smap_heap_mode() == SMAP_HEAP_LIBC)
        return 0;
    const struct smap_region *r = smap_region_self(SMAP_REGION_HEAP);
    struct stat before, after;
    int have = r->fd >= 0 && fstat(r->fd, &before) == 0;
    smap_heap_purge();
    if (!have || fstat(r->fd, &after) != 0)
        return 1;
    return after.st_blocks < before.st_blocks;
}

/* True when the "malloc" the program gets is defined in this library: a
 * function's own address is no help, it resolves through the GOT too. */
int smap_heap_malloc_is_ours(void)
{
    void *m = dlsym(RTLD_DEFAULT, "malloc");
    Dl_info mine, theirs;
    if (!m || !dladdr((void *)smap_heap_malloc_is_ours, &mine) || !dladdr(m, &theirs))
        return 1;
    return mine.dli_fbase == theirs.dli_fbase;
}
