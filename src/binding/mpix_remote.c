/* MPIX_Comm_remote_ptr (include/smartmap.h): the local address of a
 * communicator peer's memory when that peer shares our node and the memory
 * is exposed.  An extension, so it has no PMPI_ twin. */
#include <mpi.h>
#include <smartmap.h>

#include "binding/check.h"
#include "boot/boot.h"
#include "mpi/group.h"
#include "smap/smap.h"

/* Local rank of job rank w, or -1 when w runs on another node.  local_ranks
 * is ascending: binary search. */
static int local_rank_of(int w)
{
    if (w >= smap_job.size || !smap_job.node_of || smap_job.node_of[w] != smap_job.node || !smap_job.local_ranks)
        return -1;
    int lo = 0, hi = smap_job.local_size - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int r = smap_job.local_ranks[mid];
        if (r == w)
            return mid;
        if (r < w)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

SMAP_EXPORT int MPIX_Comm_remote_ptr(MPI_Comm comm, int rank, const void *ptr, MPI_Aint len,
                                     void **local_view)
{
    static const char func[] = "MPIX_Comm_remote_ptr";
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING(func);
    SMAP_CHECK_COMM(func, comm, c);
    SMAP_CHECK_PTR(func, comm, local_view);
    if (len < 0)
        return smap_err_raise(comm, MPI_ERR_ARG, func, "len is negative (%lld)", (long long)len);
    if (rank == MPI_PROC_NULL) {
        *local_view = NULL;
        return MPI_SUCCESS;
    }
    if (rank < 0 || rank >= c->size)
        return smap_err_raise(comm, MPI_ERR_RANK, func, "rank %d is not in 0..%d", rank,
                              c->size - 1);
    int lr = local_rank_of(smap_group_world_rank(c->group, rank));
    *local_view = lr < 0 ? NULL : smap_remote(lr, ptr, (size_t)len);
    return MPI_SUCCESS;
}
