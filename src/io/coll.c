/* The collectives the layer runs on a file's communicator (agreements,
 * rank 0's broadcasts, the ordered calls' counts), through the
 * communicator's collectives table (coll/coll.h): control blocks, a
 * schedule, or the hierarchy across nodes, whichever coll/dispatch.c
 * chose for it. */
#include "coll/coll.h"
#include "io/io.h"

static int done(int rc)
{
    return rc ? smap_failf(rc, "a collective of the file failed: %s", smap_why())
              : MPI_SUCCESS;
}

int smap_io_max(struct MPI_ABI_Comm *c, const long long *in, long long *out, int n)
{
    smap_dtype_t *t = smap_dtype_get(MPI_LONG_LONG);
    return done(smap_coll_allreduce(in, out, n, t, MPI_LONG_LONG, MPI_MAX, c));
}

int smap_io_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root,
                  struct MPI_ABI_Comm *c)
{
    return done(smap_coll_bcast(buf, count, smap_dtype_get(type), root, c));
}

int smap_io_allgather(const long long *mine, long long *all, struct MPI_ABI_Comm *c)
{
    smap_dtype_t *t = smap_dtype_get(MPI_LONG_LONG);
    struct smap_cvec none = { NULL, 0 };
    return done(smap_coll_allgather(mine, 1, t, all, 1, none, none, t, c));
}

int smap_io_allgather_n(const long long *mine, int n, long long *all, struct MPI_ABI_Comm *c)
{
    smap_dtype_t *t = smap_dtype_get(MPI_LONG_LONG);
    struct smap_cvec none = { NULL, 0 };
    return done(smap_coll_allgather(mine, n, t, all, n, none, none, t, c));
}

int smap_io_a2a(const struct smap_a2a *a, struct MPI_ABI_Comm *c)
{
    return done(smap_coll_alltoall(a, c));
}
