#include "base/free_later.h"

#include <stdatomic.h>
#include <stdlib.h>

/* A ring: each call takes the next slot and frees what the slot held.
 * What is left at exit stays reachable from here (no leak report). */
static void *_Atomic ring[SMAP_FREE_LATER_N];
static atomic_uint next;

void smap_free_later(void *p)
{
    if (!p)
        return;
    unsigned i = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed) % SMAP_FREE_LATER_N;
    free(atomic_exchange_explicit(&ring[i], p, memory_order_acq_rel));
}
