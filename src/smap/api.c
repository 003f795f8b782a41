/* The public direct-access API of include/smartmap.h (all but
 * smap_node_barrier, which lives with the barrier in barrier.c).
 *
 * These are thin: the peer table and the copy engine do the work.  They
 * are usable between MPI_Init and MPI_Finalize, i.e. while the peer table
 * exists; outside that window they answer -1/NULL/EINVAL rather than touch
 * a table that is not there.
 *
 * SMAP_COPY limits the copy engine (smap_get/smap_put and the library's
 * own copies), not the translation: smap_remote reflects what is exposed
 * (SMAP_EXPOSE), so an application that asks for a pointer still gets one
 * under SMAP_COPY=bounce. */
#include <errno.h>
#include <smartmap.h>
#include <stddef.h>

#include "base/compiler.h"
#include "smap/remote.h"
#include "smap/smap.h"

/* The peer table exists (MPI_Init attached the node, MPI_Finalize has not
 * torn it down). */
static inline int attached(void)
{
    return smap_peers != NULL && smap_nlocal > 0;
}

static inline int valid_peer(int lr)
{
    return attached() && lr >= 0 && lr < smap_nlocal;
}

SMAP_EXPORT int smap_local_rank(void)
{
    return attached() ? smap_my_local_rank : -1;
}

SMAP_EXPORT int smap_local_size(void)
{
    return attached() ? smap_nlocal : -1;
}

SMAP_EXPORT void *smap_remote(int local_rank, const void *ptr, size_t len)
{
    if (SMAP_UNLIKELY(!valid_peer(local_rank)))
        return NULL;
    if (local_rank == smap_my_local_rank)
        return (void *)(uintptr_t)ptr;
    return smap_remote_inline(local_rank, ptr, len);
}

/* errno as include/smartmap.h promises, from what the copy engine left:
 * EPERM (CMA forbidden by SMAP_COPY or the kernel), EFAULT (not mapped in
 * the peer), ESRCH (the peer has exited). */
static int copy_result(int level)
{
    return level == SMAP_COPY_BOUNCE ? -1 : 0;
}

SMAP_EXPORT int smap_get(int local_rank, void *dst, const void *src, size_t len)
{
    if (SMAP_UNLIKELY(!valid_peer(local_rank) || (len && (!dst || !src)))) {
        errno = EINVAL;
        return -1;
    }
    return copy_result(smap_copy_from(local_rank, dst, src, len));
}

SMAP_EXPORT int smap_put(int local_rank, void *dst, const void *src, size_t len)
{
    if (SMAP_UNLIKELY(!valid_peer(local_rank) || (len && (!dst || !src)))) {
        errno = EINVAL;
        return -1;
    }
    return copy_result(smap_copy_to(local_rank, dst, src, len));
}
