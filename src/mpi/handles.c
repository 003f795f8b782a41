/* The integer <-> user object table behind MPI_*_toint / _fromint
 * (src/mpi/handles.h).  Slots live in a growing array (an integer indexes
 * it directly); a chained hash on the pointer finds an object's slot so that
 * converting the same handle again returns the same integer.  One mutex:
 * conversions are not a hot path, and the forget fast path avoids it. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "mpi/handles.h"

#define SLOT_BITS 23
#define SLOT_MASK ((1 << SLOT_BITS) - 1)
#define GEN_MASK  0x7f

struct slot {
    void *obj;          /* NULL: free */
    int next;           /* hash chain, or free list; -1 ends */
    unsigned char kind, gen;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot *slots;
static int nslots, cap, free_head = -1;
static int *buckets;     /* nbuckets chain heads, -1 = empty */
static int nbuckets;
static atomic_int live;  /* entries in use: forget skips the lock at 0 */

static unsigned hash(const void *p, int n)
{
    uintptr_t v = (uintptr_t)p;
    v ^= v >> 17;
    v *= (uintptr_t)0x9E3779B97F4A7C15u;
    return (unsigned)(v >> 7) & (unsigned)(n - 1);
}

static int find(const void *obj)
{
    if (!nbuckets)
        return -1;
    for (int s = buckets[hash(obj, nbuckets)]; s >= 0; s = slots[s].next)
        if (slots[s].obj == obj)
            return s;
    return -1;
}

/* Doubles the buckets and relinks every entry (load factor <= 1). */
static int rehash(void)
{
    int n = nbuckets ? 2 * nbuckets : 64;
    int *b = malloc((size_t)n * sizeof *b);
    if (!b)
        return -1;
    for (int i = 0; i < n; i++)
        b[i] = -1;
    for (int s = 0; s < nslots; s++) {
        if (!slots[s].obj)
            continue;
        unsigned h = hash(slots[s].obj, n);
        slots[s].next = b[h];
        b[h] = s;
    }
    free(buckets);
    buckets = b;
    nbuckets = n;
    return 0;
}

/* A free slot index, or -1. */
static int take_slot(void)
{
    if (free_head >= 0) {
        int s = free_head;
        free_head = slots[s].next;
        return s;
    }
    if (nslots == cap) {
        if (cap > SLOT_MASK / 2)
            return -1;
        int ncap = cap ? 2 * cap : 64;
        struct slot *ns = realloc(slots, (size_t)ncap * sizeof *ns);
        if (!ns)
            return -1;
        slots = ns;
        cap = ncap;
    }
    slots[nslots].gen = 0;
    return nslots++;
}

static int int_of(int s)
{
    return SMAP_HANDLE_INT_BASE + ((slots[s].gen << SLOT_BITS) | s);
}

int smap_handle_register(int kind, void *obj)
{
    int r = -1;
    pthread_mutex_lock(&lock);
    int s = find(obj);
    if (s >= 0) {
        /* memory of a freed, never forgotten object reused for another kind */
        if (slots[s].kind != kind) {
            slots[s].kind = (unsigned char)kind;
            slots[s].gen = (slots[s].gen + 1) & GEN_MASK;
        }
        r = int_of(s);
    } else if ((atomic_load(&live) < nbuckets || rehash() == 0) && (s = take_slot()) >= 0) {
        unsigned h = hash(obj, nbuckets);
        slots[s].obj = obj;
        slots[s].kind = (unsigned char)kind;
        slots[s].next = buckets[h];
        buckets[h] = s;
        atomic_fetch_add(&live, 1);
        r = int_of(s);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

void *smap_handle_lookup(int kind, int i)
{
    void *obj = NULL;
    if (i < SMAP_HANDLE_INT_BASE)
        return NULL;
    i -= SMAP_HANDLE_INT_BASE;
    int s = i & SLOT_MASK, gen = i >> SLOT_BITS;
    pthread_mutex_lock(&lock);
    if (s < nslots && slots[s].obj && slots[s].kind == kind && slots[s].gen == gen)
        obj = slots[s].obj;
    pthread_mutex_unlock(&lock);
    return obj;
}

void smap_handle_forget(void *obj)
{
    if (atomic_load(&live) == 0)
        return;
    pthread_mutex_lock(&lock);
    int s = find(obj);
    if (s >= 0) {
        int *link = &buckets[hash(obj, nbuckets)];
        while (*link != s)
            link = &slots[*link].next;
        *link = slots[s].next;
        slots[s].obj = NULL;
        slots[s].gen = (slots[s].gen + 1) & GEN_MASK;
        slots[s].next = free_head;
        free_head = s;
        atomic_fetch_sub(&live, 1);
    }
    pthread_mutex_unlock(&lock);
}
