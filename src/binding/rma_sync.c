/* One-sided synchronisation (MPI 5.0 §12.5): fence, post/start/complete/
 * wait/test, lock/unlock(_all), flushes, sync.  Checks here, protocols in
 * src/rma/sync.c. */
#include "binding/rma_common.h"
#include "mpi/group.h"

#define ASSERT_BITS (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | \
                     MPI_MODE_NOSUCCEED)

#define CHECK_ASSERT(F, win, a, allowed)                                                   \
    do {                                                                                   \
        if (SMAP_UNLIKELY((a) & ~(allowed)))                                               \
            return RMA_RAISE(F, win, MPI_ERR_ASSERT, "assert %d holds bits this call does " \
                             "not take", (a));                                             \
    } while (0)

int PMPI_Win_fence(int assert, MPI_Win win)
{
    static const char F[] = "MPI_Win_fence";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    (void)w;
    CHECK_ASSERT(F, win, assert,
                 MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED);
    return RMA_DONE(F, win, smap_win_fence(win, assert));
}

static int with_group(const char *F, MPI_Win win, MPI_Group group, int assert, int allowed,
                      int (*fn)(MPI_Win, struct MPI_ABI_Group *, int))
{
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    (void)w;
    CHECK_ASSERT(F, win, assert, allowed);
    struct MPI_ABI_Group *g = smap_group_get(group);
    if (!g)
        return RMA_RAISE(F, win, MPI_ERR_GROUP, "group is not a valid group");
    return RMA_DONE(F, win, fn(win, g, assert));
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    return with_group("MPI_Win_post", win, group, assert,
                      MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT, smap_win_post);
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    return with_group("MPI_Win_start", win, group, assert, MPI_MODE_NOCHECK, smap_win_start);
}

int PMPI_Win_complete(MPI_Win win)
{
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN("MPI_Win_complete", win, w);
    (void)w;
    return RMA_DONE("MPI_Win_complete", win, smap_win_complete(win));
}

int PMPI_Win_wait(MPI_Win win)
{
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN("MPI_Win_wait", win, w);
    (void)w;
    return RMA_DONE("MPI_Win_wait", win, smap_win_wait(win));
}

int PMPI_Win_test(MPI_Win win, int *flag)
{
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN("MPI_Win_test", win, w);
    (void)w;
    RMA_CHECK_PTR("MPI_Win_test", win, flag);
    return RMA_DONE("MPI_Win_test", win, smap_win_test(win, flag));
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    static const char F[] = "MPI_Win_lock";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return RMA_RAISE(F, win, MPI_ERR_LOCKTYPE,
                         "lock_type %d is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE",
                         lock_type);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    RMA_CHECK_RANK(F, win, w, rank);
    CHECK_ASSERT(F, win, assert, MPI_MODE_NOCHECK);
    return RMA_DONE(F, win, smap_win_lock(win, lock_type, rank, assert));
}

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    static const char F[] = "MPI_Win_unlock";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    RMA_CHECK_RANK(F, win, w, rank);
    return RMA_DONE(F, win, smap_win_unlock(win, rank));
}

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    static const char F[] = "MPI_Win_lock_all";
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    (void)w;
    CHECK_ASSERT(F, win, assert, MPI_MODE_NOCHECK);
    return RMA_DONE(F, win, smap_win_lock_all(win, assert));
}

int PMPI_Win_unlock_all(MPI_Win win)
{
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN("MPI_Win_unlock_all", win, w);
    (void)w;
    return RMA_DONE("MPI_Win_unlock_all", win, smap_win_unlock_all(win));
}

static int flush(const char *F, MPI_Win win, int rank, int local)
{
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN(F, win, w);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank != -1)
        RMA_CHECK_RANK(F, win, w, rank);
    return RMA_DONE(F, win, smap_win_flush(win, rank, local));
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
    return flush("MPI_Win_flush", win, rank, 0);
}

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return flush("MPI_Win_flush_local", win, rank, 1);
}

int PMPI_Win_flush_all(MPI_Win win)
{
    return flush("MPI_Win_flush_all", win, -1, 0);
}

int PMPI_Win_flush_local_all(MPI_Win win)
{
    return flush("MPI_Win_flush_local_all", win, -1, 1);
}

int PMPI_Win_sync(MPI_Win win)
{
    struct MPI_ABI_Win *w;
    RMA_CHECK_WIN("MPI_Win_sync", win, w);
    (void)w;
    return RMA_DONE("MPI_Win_sync", win, smap_win_sync(win));
}
