/* jemalloc extent hooks that carve the heap slot (findings §2 items 4, 9).
 *
 * The slot is one sparse memfd mapped MAP_SHARED at a fixed address.  The
 * hooks hand it out with an atomic bump pointer and never give address
 * ranges back: jemalloc retains what it frees (dalloc opts out) and reuses
 * it itself.  Physical memory is returned by punching holes in the memfd,
 * because MADV_DONTNEED does not free shmem (it only drops this process's
 * page table entries).  Memory beyond the bump pointer is MADV_DONTDUMP: a
 * core dump reads every page of a shared mapping and would allocate the
 * whole sparse slot (§3.9); each extent becomes MADV_DODUMP as it is handed
 * out, so the used part and the tail stay two VMAs. */
#define _GNU_SOURCE
#include "smap/startup/heap_internal.h"
#include "smap/smap.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

_Atomic uintptr_t smap_heap_slot_base;
_Atomic size_t smap_heap_slot_len;
static _Atomic uintptr_t bump;
static _Atomic int slot_fd = -1;
static _Atomic int exhausted_warned;

void smap_heap_hooks_setup(uintptr_t base, size_t len, int fd)
{
    /* Dump nothing until it is handed out; failure only costs core size. */
    (void)madvise((void *)base, len, MADV_DONTDUMP);
    atomic_store_explicit(&slot_fd, fd, memory_order_relaxed);
    atomic_store_explicit(&bump, base, memory_order_relaxed);
    atomic_store_explicit(&smap_heap_slot_len, len, memory_order_relaxed);
    atomic_store_explicit(&smap_heap_slot_base, base, memory_order_release);
}

size_t smap_heap_hooks_used(void)
{
    uintptr_t base = atomic_load_explicit(&smap_heap_slot_base, memory_order_acquire);
    return base ? atomic_load_explicit(&bump, memory_order_relaxed) - base : 0;
}

static void warn_exhausted(void)
{
    if (atomic_exchange_explicit(&exhausted_warned, 1, memory_order_relaxed) == 0)
        smap_early_warn("heap slot exhausted: allocations fail with ENOMEM; "
                        "raise SMAP_HEAP_SLOT (default 64G, virtual only)");
}

/* Bump allocation.  new_addr != NULL asks to extend an extent in place,
 * which only works when it ends at the bump pointer. */
static void *hook_alloc(extent_hooks_t *h, void *new_addr, size_t size, size_t align,
                        bool *zero, bool *commit, unsigned arena_ind)
{
    (void)h, (void)arena_ind;
    uintptr_t end = atomic_load_explicit(&smap_heap_slot_base, memory_order_relaxed) +
                    atomic_load_explicit(&smap_heap_slot_len, memory_order_relaxed);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (align < page)
        align = page;
    uintptr_t cur = atomic_load_explicit(&bump, memory_order_relaxed), start;
    do {
        start = new_addr ? (uintptr_t)new_addr : (cur + align - 1) & ~(uintptr_t)(align - 1);
        if (new_addr && start != cur)
            return NULL;
        if (start < cur || start > end || size > end - start) {
            if (!new_addr)
                warn_exhausted();
            return NULL;
        }
    } while (!atomic_compare_exchange_weak_explicit(&bump, &cur, start + size,
                                                    memory_order_relaxed, memory_order_relaxed));
    /* Alignment gaps stay DONTDUMP: they are never touched. */
    (void)madvise((void *)start, size, MADV_DODUMP);
    /* Fresh file range: holes read as zero, and there is nothing to commit. */
    *zero = true;
    *commit = true;
    return (void *)start;
}

/* Opting out keeps the range in jemalloc's retained set for reuse. */
static bool hook_dalloc(extent_hooks_t *h, void *addr, size_t size, bool committed,
                        unsigned arena_ind)
{
    (void)h, (void)addr, (void)size, (void)committed, (void)arena_ind;
    return true;
}

/* Gives the pages back to the system.  In a fork child the slot is private
 * anonymous memory (fork.c) and its fd is gone: there DONTNEED frees. */
static int release_pages(void *addr, size_t size)
{
    if (smap_is_fork_child())
        return madvise(addr, size, MADV_DONTNEED);
    int fd = atomic_load_explicit(&slot_fd, memory_order_relaxed);
    off_t off = (off_t)((uintptr_t)addr -
                        atomic_load_explicit(&smap_heap_slot_base, memory_order_relaxed));
    return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, (off_t)size);
}

static void hook_destroy(extent_hooks_t *h, void *addr, size_t size, bool committed,
                         unsigned arena_ind)
{
    (void)h, (void)committed, (void)arena_ind;
    (void)release_pages(addr, size);
}

/* Slot memory is always accessible: committing succeeds trivially. */
static bool hook_commit(extent_hooks_t *h, void *addr, size_t size, size_t offset,
                        size_t length, unsigned arena_ind)
{
    (void)h, (void)addr, (void)size, (void)offset, (void)length, (void)arena_ind;
    return false;
}

/* Returns false (success) only when the range now reads as zero. */
static bool hook_purge_forced(extent_hooks_t *h, void *addr, size_t size, size_t offset,
                              size_t length, unsigned arena_ind)
{
    (void)h, (void)size, (void)arena_ind;
    return release_pages((char *)addr + offset, length) != 0;
}

/* Every range of the slot is one mapping: splitting and merging need no
 * work. */
static bool hook_split(extent_hooks_t *h, void *addr, size_t size, size_t size_a,
                       size_t size_b, bool committed, unsigned arena_ind)
{
    (void)h, (void)addr, (void)size, (void)size_a, (void)size_b, (void)committed, (void)arena_ind;
    return false;
}

static bool hook_merge(extent_hooks_t *h, void *addr_a, size_t size_a, void *addr_b,
                       size_t size_b, bool committed, unsigned arena_ind)
{
    (void)h, (void)addr_a, (void)size_a, (void)addr_b, (void)size_b, (void)committed,
        (void)arena_ind;
    return false;
}

/* decommit and purge_lazy are left out: neither frees shmem (MADV_FREE
 * fails on shared mappings), so jemalloc falls back to purge_forced. */
extent_hooks_t smap_heap_extent_hooks = {
    .alloc = hook_alloc,
    .dalloc = hook_dalloc,
    .destroy = hook_destroy,
    .commit = hook_commit,
    .decommit = NULL,
    .purge_lazy = NULL,
    .purge_forced = hook_purge_forced,
    .split = hook_split,
    .merge = hook_merge,
};
