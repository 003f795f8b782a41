/* Private to the heap (heap.c, heap_hooks.c, malloc_api.c): the vendored
 * jemalloc's renamed entry points and the slot the extent hooks carve.
 *
 * scripts/vendor_jemalloc.sh renames every global symbol of Debian's
 * libjemalloc_pic.a with an "smap_je_" prefix, so jemalloc.h is included with
 * JEMALLOC_NO_RENAME and its je_* declarations are pointed at those names:
 * one source of truth for prototypes, flags and extent_hooks_t. */
#ifndef SMAP_SMAP_HEAP_INTERNAL_H
#define SMAP_SMAP_HEAP_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

#define JEMALLOC_NO_RENAME
#define je_malloc_conf smap_je_malloc_conf
#define je_malloc smap_je_malloc
#define je_calloc smap_je_calloc
#define je_realloc smap_je_realloc
#define je_free smap_je_free
#define je_posix_memalign smap_je_posix_memalign
#define je_aligned_alloc smap_je_aligned_alloc
#define je_memalign smap_je_memalign
#define je_valloc smap_je_valloc
#define je_mallocx smap_je_mallocx
#define je_rallocx smap_je_rallocx
#define je_dallocx smap_je_dallocx
#define je_sallocx smap_je_sallocx
#define je_mallctl smap_je_mallctl
#define je_malloc_usable_size smap_je_malloc_usable_size
#include <jemalloc/jemalloc.h>

/* jemalloc's "all arenas" pseudo index (MALLCTL_ARENAS_ALL). */
#define SMAP_JE_ARENAS_ALL 4096

/* ---- The slot (heap_hooks.c) -------------------------------------------
 * Set once by heap.c before the arena exists; 0/0 when there is no slot.
 * Relaxed atomics: free() reads them on every call, possibly while another
 * thread is still inside the first-call initialisation. */
extern _Atomic uintptr_t smap_heap_slot_base;
extern _Atomic size_t smap_heap_slot_len;
extern extent_hooks_t smap_heap_extent_hooks;
/* Hands [base, base+len) of memfd fd to the hooks; marks it MADV_DONTDUMP. */
void smap_heap_hooks_setup(uintptr_t base, size_t len, int fd);
/* Bytes below the bump pointer. */
size_t smap_heap_hooks_used(void);

static inline int smap_heap_in_slot(const void *p)
{
    uintptr_t base = atomic_load_explicit(&smap_heap_slot_base, memory_order_relaxed);
    size_t len = atomic_load_explicit(&smap_heap_slot_len, memory_order_relaxed);
    return (uintptr_t)p - base < len;
}

/* ---- The mode (heap.c, read by malloc_api.c) ----------------------------
 * smap_heap_flags is SMAP_HEAP_UNDECIDED until the first call has decided,
 * then the mallocx flags of every allocation: MALLOCX_ARENA(slot arena) when
 * the slot serves the process, 0 when jemalloc's automatic arenas do (not a
 * rank, heap not exposed, slot unavailable); or SMAP_HEAP_LIBC: glibc's
 * malloc serves the process, under valgrind with the heap unexposed, so
 * that valgrind's replacement of it sees the program's blocks. */
#define SMAP_HEAP_UNDECIDED (-1)
#define SMAP_HEAP_LIBC (-2)
extern _Atomic int smap_heap_flags;
/* Runs the first-call initialisation once (other threads wait; a recursive
 * call from the initialising thread gets MALLOCX_TCACHE_NONE, i.e. an
 * automatic arena that keeps nothing in the thread cache) and returns the
 * flags to use for this call. */
int smap_heap_first_call(void);

static inline int smap_heap_mode(void)
{
    int f = atomic_load_explicit(&smap_heap_flags, memory_order_acquire);
    if (SMAP_UNLIKELY(f == SMAP_HEAP_UNDECIDED))
        f = smap_heap_first_call();
    return f;
}

/* True when malloc_api.c's malloc is the process's malloc (not interposed
 * by ASan, an LD_PRELOADed allocator or an earlier library). */
int smap_heap_malloc_is_ours(void);

/* glibc's own entry points (the same functions as its malloc, free, ...,
 * which valgrind replaces by address): SMAP_HEAP_LIBC calls them. */
void *__libc_malloc(size_t size);
void __libc_free(void *p);
void *__libc_calloc(size_t n, size_t m);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);

#endif
