/* Pointer translation into a node peer's exposed memory (findings §2 item
 * 10): constant time, no system call, no lock.  A peer has at most
 * SMAP_REGION_KINDS views; the heap view sits at the peer's own address
 * (delta 0), so heap pointers translate to themselves. */
#ifndef SMAP_SMAP_REMOTE_H
#define SMAP_SMAP_REMOTE_H

#include "smap/smap.h"

/* The local address of peer lr's [ptr, ptr+len), or NULL unless the whole
 * range lies inside one of its mapped regions.  Self: ptr.  Bad lr (or
 * before smap_init / after smap_finalize): NULL. */
static inline void *smap_remote_inline(int lr, const void *ptr, size_t len)
{
    if ((unsigned)lr >= (unsigned)smap_npeers)
        return NULL;
    if (lr == smap_my_local_rank)
        return (void *)(uintptr_t)ptr;
    const struct smap_view *v = smap_peers[lr].view;
    uintptr_t a = (uintptr_t)ptr;
    for (int k = 0; k < SMAP_REGION_KINDS; k++) {
        /* Unsigned differences: no overflow for any ptr/len; len 0 views
         * never match. */
        uintptr_t off = a - v[k].base;
        if (off < v[k].len && len <= v[k].len - off)
            return (void *)(a + (uintptr_t)v[k].delta);
    }
    return NULL;
}

#endif
