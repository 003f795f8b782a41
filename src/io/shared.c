/* The shared file pointer (MPI 5.0 §14.4.4): an atomic counter in memory
 * that every rank of the file maps (D15: never a lock file).
 *
 * At open, rank 0 makes a POSIX shared-memory object of 8 bytes under an
 * unpredictable name (D18), sets the counter (0, or the file's size with
 * MPI_MODE_APPEND) and broadcasts the name; the others map it; once every
 * rank has it, rank 0 unlinks the name, so nothing is left behind whatever
 * happens later.  A rank that cannot map it (another node, with its own
 * /dev/shm) makes the file go without a shared pointer: its shared-pointer
 * calls then fail with MPI_ERR_UNSUPPORTED_OPERATION (D15's fetch-and-op
 * between nodes is not done).  The counter holds etypes of the current
 * view; independent calls take their range with one fetch_add, ordered
 * calls let rank 0 take the whole group's range and hand out prefixes in
 * rank order. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dtype/engine.h"
#include "io/io.h"
#include "mpi/comm.h"

static int max_ll(struct MPI_ABI_Comm *c, long long in, long long *out)
{
    return smap_io_max(c, &in, out, 1);
}

int smap_io_shared_create(struct MPI_ABI_File *f, MPI_Offset initial)
{
    char name[64] = "";
    int bad = 0;
    _Atomic(long long) *p = NULL;
    if (f->rank == 0) {
        unsigned long long r = 0;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
            r ^= (unsigned long long)(uintptr_t)&r ^ ((unsigned long long)getpid() << 32);
        snprintf(name, sizeof name, "/smartmap-io-%d-%016llx", (int)getpid(), r);
        int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || ftruncate(fd, sizeof *p) ||
            (p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
                MAP_FAILED) {
            p = NULL;
            bad = 1;
        }
        if (fd >= 0)
            close(fd);
        if (p)
            atomic_store_explicit(p, initial, memory_order_relaxed);
        if (bad)
            name[0] = '\0';
    }
    int rc = smap_io_bcast(name, sizeof name, MPI_CHAR, 0, f->c);
    if (rc)
        bad = 1;
    if (f->rank != 0 && name[0]) {
        int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
        if (fd < 0 ||
            (p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
            p = NULL;
            bad = 1;
        }
        if (fd >= 0)
            close(fd);
    } else if (!name[0]) {
        bad = 1;
    }
    long long any = 1;
    rc = max_ll(f->c, bad, &any);
    if (f->rank == 0 && name[0])
        shm_unlink(name);   /* every rank has mapped it, or given up */
    if (rc || any) {
        if (p)
            munmap((void *)p, sizeof *p);
        p = NULL;
    }
    f->sp = p;
    return MPI_SUCCESS;
}

void smap_io_shared_free(struct MPI_ABI_File *f)
{
    if (f->sp)
        munmap((void *)f->sp, sizeof *f->sp);
    f->sp = NULL;
}

static int need_sp(struct MPI_ABI_File *f)
{
    if (!f->sp)
        return smap_failf(MPI_ERR_UNSUPPORTED_OPERATION, "this file has no shared file "
                            "pointer: its ranks could not map one counter (ranks on several "
                            "nodes; the between-node counter is not done yet)");
    return MPI_SUCCESS;
}

/* Etypes of count elements of mt, or -class. */
static long long etypes_of(struct MPI_ABI_File *f, MPI_Count count, smap_dtype_t *mt)
{
    MPI_Count total;   /* in the file's representation */
    int rc = smap_io_datarep_bytes(f->v.rep, count, mt, &total);
    if (rc)
        return -rc;
    if (total % f->v.esize)
        return -smap_failf(MPI_ERR_IO, "only whole etypes can be accessed (%lld bytes, "
                             "etype of %lld)", (long long)total, (long long)f->v.esize);
    return total / f->v.esize;
}

int smap_io_rw_shared(struct MPI_ABI_File *f, int write, void *buf, MPI_Count count,
                      smap_dtype_t *mt, MPI_Count *bytes)
{
    *bytes = 0;
    int rc = need_sp(f);
    if (rc)
        return rc;
    if ((rc = smap_io_access_check(f, write, 1)))
        return rc;
    long long n = etypes_of(f, count, mt);
    if (n < 0)
        return (int)-n;
    long long at = atomic_fetch_add_explicit(f->sp, n, memory_order_relaxed);
    return smap_io_rw_at(f, write, at, buf, count, mt, bytes);
}

int smap_io_rw_ordered(struct MPI_ABI_File *f, int write, void *buf, MPI_Count count,
                       smap_dtype_t *mt, MPI_Count *bytes)
{
    *bytes = 0;
    int mine = need_sp(f);
    if (!mine)
        mine = smap_io_access_check(f, write, 1);
    long long n = 0;
    if (!mine && (n = etypes_of(f, count, mt)) < 0)
        mine = (int)-n;
    int rc = smap_io_agree(f, mine);
    if (rc)
        return rc;
    /* rank order: my prefix, the group's total (taken by rank 0 at once) */
    long long *all = malloc((size_t)f->size * sizeof *all);
    long long base = 0;
    mine = all ? 0 : smap_failf(MPI_ERR_NO_MEM, "out of memory");
    if ((rc = smap_io_agree(f, mine)))
        return free(all), rc;
    rc = smap_io_allgather(&n, all, f->c);
    if (rc) {
        free(all);
        return rc;
    }
    long long pre = 0, total = 0;
    for (int r = 0; r < f->size; r++) {
        if (r < f->rank)
            pre += all[r];
        total += all[r];
    }
    free(all);
    if (f->rank == 0)
        base = atomic_fetch_add_explicit(f->sp, total, memory_order_relaxed);
    rc = smap_io_bcast(&base, 1, MPI_LONG_LONG, 0, f->c);
    if (rc)
        return rc;
    mine = smap_io_rw_at(f, write, base + pre, buf, count, mt, bytes);
    return smap_io_agree(f, mine);
}

int smap_io_seek_shared(struct MPI_ABI_File *f, MPI_Offset off, int whence)
{
    int mine = need_sp(f);
    if (!mine && (f->amode & MPI_MODE_SEQUENTIAL))
        mine = smap_failf(MPI_ERR_UNSUPPORTED_OPERATION, "not allowed on a file opened with "
                                                           "MPI_MODE_SEQUENTIAL");
    int rc = smap_io_agree_value(f, off, mine, "offset");
    if (!rc)
        rc = smap_io_agree_value(f, whence, 0, "whence");
    if (rc)
        return rc;
    /* rank 0 moves the pointer; the agreement after it keeps every rank
     * from using it before */
    if (f->rank == 0) {
        long long cur = atomic_load_explicit(f->sp, memory_order_relaxed), base = 0, to = 0;
        if (whence == MPI_SEEK_CUR) {
            base = cur;
        } else if (whence == MPI_SEEK_END) {
            MPI_Offset size;
            mine = smap_io_get_size(f, &size);
            base = (smap_io_view_bytes_below(&f->v, size) + f->v.esize - 1) / f->v.esize;
        }
        if (!mine && (__builtin_add_overflow(base, off, &to) || to < 0))
            mine = smap_failf(MPI_ERR_ARG, "the new shared position (%lld %+lld etypes) "
                                "would be negative", base, (long long)off);
        if (!mine)
            atomic_store_explicit(f->sp, to, memory_order_relaxed);
    }
    return smap_io_agree(f, mine);
}

int smap_io_position_shared(struct MPI_ABI_File *f, MPI_Offset *off)
{
    int rc = need_sp(f);
    if (!rc)
        *off = atomic_load_explicit(f->sp, memory_order_relaxed);
    return rc;
}

int smap_io_shared_reset(struct MPI_ABI_File *f, MPI_Offset to)
{
    if (!f->sp)
        return MPI_SUCCESS;
    if (f->rank == 0)
        atomic_store_explicit(f->sp, to, memory_order_relaxed);
    return smap_io_agree(f, 0);
}
