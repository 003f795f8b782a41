/* The one-sided region (smap_rma_region(): "smartmap-rma", mapped by every
 * node peer whatever SMAP_EXPOSE says) divided between window control
 * blocks and the memory of MPI_Win_allocate(_shared).
 *
 * A first-fit list of free extents, private to this rank (only we allocate
 * in our region).  Freed window memory gives its whole pages back to the
 * system (MADV_REMOVE on the shared mapping), so a long job that creates
 * and frees windows does not grow.  Control blocks are never returned to
 * the extent list: they go to a list of their own and are reused only as
 * control blocks, keeping their fence word (internal.h says why).
 *
 * The region is MADV_DONTDUMP (a core dump would allocate every hole of
 * it); what was ever handed out is dumpable again (mark_dumpable), so a
 * rank's core holds its windows and control blocks, not the region. */
#define _GNU_SOURCE
#include "rma/internal.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "smap/smap.h"

struct extent {
    size_t off, len;
};

static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static struct extent *ext;      /* sorted by offset, disjoint, not adjacent */
static size_t next, cap;
static int ready;
/* The region is MADV_DONTDUMP from its creation (smap/shared_region.c):
 * [0, dumped) has been handed out at some time and is dumpable again.
 * First fit keeps what is used near the start, so one high-water mark
 * (two VMAs) is enough and a core holds the windows without the rest. */
static size_t dumped;

struct cb_free {
    struct cb_free *next;
    struct smap_rma_cb *cb;
    size_t len;
};
static struct cb_free *cb_pool;

static int insert_at(size_t i, struct extent e)
{
    if (next == cap) {
        size_t c = cap ? 2 * cap : 64;
        struct extent *t = realloc(ext, c * sizeof *t);
        if (!t)
            return -1;
        ext = t;
        cap = c;
    }
    memmove(&ext[i + 1], &ext[i], (next - i) * sizeof *ext);
    ext[i] = e;
    next++;
    return 0;
}

static void remove_at(size_t i)
{
    memmove(&ext[i], &ext[i + 1], (next - i - 1) * sizeof *ext);
    next--;
}

/* Under arena_lock: the region, with the extent list set up once. */
static char *region(void)
{
    char *r = smap_rma_region();
    if (r && !ready) {
        ready = insert_at(0, (struct extent){ 0, smap_rma_region_size() }) == 0;
        if (!ready)
            return NULL;
    }
    return r;
}

/* Under arena_lock: makes [0, end) part of a core dump. */
static void mark_dumpable(char *r, size_t end)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    end = (end + pg - 1) & ~(pg - 1);
    if (end <= dumped)
        return;
    if (madvise(r + dumped, end - dumped, MADV_DODUMP) == 0)
        dumped = end;
}

static void *take(size_t len, size_t align)
{
    char *r = region();
    if (!r || len == 0)
        return NULL;
    for (size_t i = 0; i < next; i++) {
        size_t start = (ext[i].off + align - 1) & ~(align - 1);
        size_t end = ext[i].off + ext[i].len;
        if (start > end || end - start < len)
            continue;
        struct extent e = ext[i];
        size_t head = start - e.off, tail = end - (start + len);
        if (head && tail) {
            ext[i].len = head;
            if (insert_at(i + 1, (struct extent){ start + len, tail }) != 0) {
                ext[i] = e;
                return NULL;
            }
        } else if (head) {
            ext[i].len = head;
        } else if (tail) {
            ext[i].off = start + len;
            ext[i].len = tail;
        } else {
            remove_at(i);
        }
        mark_dumpable(r, start + len);
        return r + start;
    }
    return NULL;
}

/* Under arena_lock: gives [off, off+len) back, merging neighbours, and
 * returns the whole pages of the merged extent to the system. */
static void give(size_t off, size_t len)
{
    char *r = region();
    size_t i = 0;
    while (i < next && ext[i].off < off)
        i++;
    int prev = i > 0 && ext[i - 1].off + ext[i - 1].len == off;
    int succ = i < next && off + len == ext[i].off;
    if (prev && succ) {
        ext[i - 1].len += len + ext[i].len;
        remove_at(i);
        i--;
    } else if (prev) {
        ext[--i].len += len;
    } else if (succ) {
        ext[i].off = off;
        ext[i].len += len;
    } else if (insert_at(i, (struct extent){ off, len }) != 0) {
        return;   /* out of memory: the range is lost, nothing breaks */
    }
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t a = (ext[i].off + pg - 1) & ~(pg - 1), b = (ext[i].off + ext[i].len) & ~(pg - 1);
    if (b > a)
        madvise(r + a, b - a, MADV_REMOVE);
}

void *smap_rma_arena_alloc(size_t len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t align = len >= pg ? pg : 64;
    len = (len + 63) & ~(size_t)63;
    pthread_mutex_lock(&arena_lock);
    void *p = take(len, align);
    pthread_mutex_unlock(&arena_lock);
    return p;
}

void smap_rma_arena_free(void *p, size_t len)
{
    if (!p)
        return;
    len = (len + 63) & ~(size_t)63;
    pthread_mutex_lock(&arena_lock);
    give((size_t)((char *)p - (char *)smap_rma_region()), len);
    pthread_mutex_unlock(&arena_lock);
}

int smap_rma_in_arena(const void *p, size_t len)
{
    uintptr_t r = (uintptr_t)smap_rma_region(), a = (uintptr_t)p;
    size_t size = smap_rma_region_size();
    return r && a >= r && a - r <= size && len <= size - (a - r);
}

struct smap_rma_cb *smap_rma_cb_alloc(size_t len)
{
    len = (len + 63) & ~(size_t)63;
    struct smap_rma_cb *cb = NULL;
    pthread_mutex_lock(&arena_lock);
    for (struct cb_free **pp = &cb_pool; *pp; pp = &(*pp)->next)
        if ((*pp)->len == len) {
            struct cb_free *f = *pp;
            *pp = f->next;
            cb = f->cb;
            free(f);
            break;
        }
    if (!cb && (cb = take(len, 64)) != NULL)
        atomic_store_explicit(&cb->fence, 0, memory_order_relaxed);
    if (cb) {
        /* keep the fence word (first cache line); clear the rest but the
         * mailbox's data area, which nobody reads before writing */
        size_t data = offsetof(struct smap_rma_cb, am.data);
        size_t ctr = offsetof(struct smap_rma_cb, ctr);
        memset((char *)cb + 64, 0, data - 64);
        memset((char *)cb + ctr, 0, len - ctr);
    }
    pthread_mutex_unlock(&arena_lock);
    return cb;
}

void smap_rma_cb_free(struct smap_rma_cb *cb, size_t len)
{
    if (!cb)
        return;
    struct cb_free *f = malloc(sizeof *f);
    if (!f)
        return;   /* lost, but never reused with a lowered fence word */
    f->cb = cb;
    f->len = (len + 63) & ~(size_t)63;
    pthread_mutex_lock(&arena_lock);
    f->next = cb_pool;
    cb_pool = f;
    pthread_mutex_unlock(&arena_lock);
}
