/* The live MPI_Alloc_mem blocks: an open-addressing hash set of their
 * addresses (linear probing, deletion by backward shift, so no tombstones
 * accumulate), grown when half full.  Alloc_mem and Free_mem are not hot
 * paths; what matters is that a bad pointer is recognised without touching
 * the memory it points to. */
#include <stdint.h>
#include <stdlib.h>

#include <mpi.h>

#include "base/lock.h"
#include "base/why.h"
#include "mpi/info.h"
#include "mpi/mem.h"

static struct smap_lock mem_lock = SMAP_LOCK_INITIALIZER;
static void **slots;    /* NULL = empty */
static size_t cap;      /* a power of two, or 0 */
static size_t used;

static size_t home(const void *p, size_t mask)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & mask;
}

static void put(void **tab, size_t mask, void *p)
{
    size_t i = home(p, mask);
    while (tab[i])
        i = (i + 1) & mask;
    tab[i] = p;
}

static int grow(void)
{
    size_t ncap = cap ? cap * 2 : 64;
    void **n = calloc(ncap, sizeof *n);
    if (!n)
        return -1;
    for (size_t i = 0; i < cap; i++)
        if (slots[i])
            put(n, ncap - 1, slots[i]);
    free(slots);
    slots = n;
    cap = ncap;
    return 0;
}

/* The slot holding p, or cap when p is not in the set. */
static size_t find(const void *p)
{
    if (!cap)
        return 0;
    size_t mask = cap - 1;
    for (size_t i = home(p, mask); slots[i]; i = (i + 1) & mask)
        if (slots[i] == p)
            return i;
    return cap;
}

/* Empties slot i and moves back the entries of its probe run that would no
 * longer be reachable past the hole. */
static void remove_at(size_t i)
{
    size_t mask = cap - 1;
    slots[i] = NULL;
    for (size_t j = (i + 1) & mask; slots[j]; j = (j + 1) & mask) {
        size_t h = home(slots[j], mask);
        /* slots[j] may stay when its home lies cyclically in (i, j] */
        if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
            slots[i] = slots[j];
            slots[j] = NULL;
            i = j;
        }
    }
    used--;
}

void *smap_mem_alloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        return NULL;
    smap_mt_lock(&mem_lock);
    int ok = (used + 1) * 2 <= cap || grow() == 0;
    if (ok) {
        put(slots, cap - 1, p);
        used++;
    }
    smap_mt_unlock(&mem_lock);
    if (!ok) {
        free(p);
        return NULL;
    }
    return p;
}

int smap_mem_free(void *p)
{
    smap_mt_lock(&mem_lock);
    size_t i = find(p);
    int found = i < cap;
    if (found)
        remove_at(i);
    smap_mt_unlock(&mem_lock);
    if (!found)
        return -1;
    free(p);
    return 0;
}

/* ---- MPI_Alloc_mem and MPI_Free_mem (their generated stubs in
 * src/binding/gen/memory.c check baseptr).  The memory comes from malloc,
 * which the symmetric heap serves (src/smap/heap.c): it is already exposed
 * to node peers, so nothing special is needed for single-copy transfers
 * from or into it.  No info key changes that; valid info objects are
 * accepted and ignored, as MPI allows. ---- */

int smap_mem_alloc_into(MPI_Aint size, MPI_Info info, void *baseptr)
{
    if (size < 0)
        return smap_failf(MPI_ERR_ARG, "size %lld is negative", (long long)size);
    if (info != MPI_INFO_NULL && !smap_info_get(info))
        return smap_fail(MPI_ERR_INFO, "info is not a valid info object");
    void *p = smap_mem_alloc((size_t)size);
    if (!p)
        return smap_failf(MPI_ERR_NO_MEM, "cannot allocate %lld bytes", (long long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int smap_mem_free_checked(void *base)
{
    /* NULL is accepted, as free(NULL) is and the peers do */
    if (base && smap_mem_free(base) != 0)
        return smap_failf(MPI_ERR_BASE,
                          "%p is not a block MPI_Alloc_mem returned (or it was freed already)",
                          base);
    return MPI_SUCCESS;
}
