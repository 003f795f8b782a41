/* The shared file pointer (MPI 5.0 §14.4.4): an atomic counter that every
 * rank of the file reaches (D15: never a lock file).
 *
 * On one node it is a POSIX shared-memory object of 8 bytes: rank 0 makes
 * it under an unpredictable name (D18), sets the counter (0, or the
 * file's size with MPI_MODE_APPEND) and broadcasts the name; the others
 * map it; once every rank has it, rank 0 unlinks the name, so nothing is
 * left behind whatever happens later.  When the file's communicator spans
 * nodes (by the job's placement, never by whether /dev/shm happens to be
 * shared: emulated hosts share it, real ones do not) the counter is one
 * 8-byte window on rank 0 (src/rma, MPI_WIN_FLAVOR_ALLOCATE) inside a
 * lock_all epoch held from open to close: every access is a fetch-and-op
 * on it, atomic on rank 0's node (C11 atomics) and from other nodes
 * (served by rank 0's progress, or the provider's atomics).  A file whose
 * ranks cannot get either goes without a shared pointer: its shared-pointer
 * calls then fail with MPI_ERR_UNSUPPORTED_OPERATION.  The counter holds
 * etypes of the current view; independent calls take their range with
 * one fetch_add, ordered calls let rank 0 take the whole group's range and
 * hand out prefixes in rank order. */
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
#include "rma/rma.h"

static int max_ll(struct MPI_ABI_Comm *c, long long in, long long *out)
{
    return smap_io_max(c, &in, out, 1);
}

/* ---- the counter between nodes: a window on rank 0 ---- */

/* One fetch-and-op of a long long on the counter: result <- counter,
 * counter <- counter op v (MPI_SUM, MPI_REPLACE, MPI_NO_OP). */
static int win_fop(struct MPI_ABI_File *f, MPI_Op op, long long v, long long *result)
{
    smap_dtype_t *ll = smap_dtype_get(MPI_LONG_LONG);
    long long dummy;
    struct smap_rma_op_args a = {
        .oaddr = &v, .ocount = 1, .otype = ll,
        .raddr = result ? result : &dummy, .rcount = 1, .rtype = ll,
        .tcount = 1, .ttype = ll, .op = op,
    };
    if (op == MPI_NO_OP) {
        a.oaddr = NULL;
        a.ocount = 0;
        a.otype = NULL;
    }
    int rc = smap_rma_op(f->spw, SMAP_RMA_GACC, 0, 0, &a);
    /* a get_accumulate completes when it returns (its answer came back);
     * the flush costs nothing more and keeps that true of any backend */
    if (!rc)
        rc = smap_win_flush(f->spw, 0, 0);
    return rc;
}

/* Collective: the window, rank 0's counter set to initial before any rank
 * may use it.  Never an error: a file without it has no shared pointer. */
static void win_create(struct MPI_ABI_File *f, MPI_Offset initial)
{
    MPI_Win w = MPI_WIN_NULL;
    void *base = NULL;
    int rc = smap_win_create(MPI_WIN_FLAVOR_ALLOCATE, NULL, f->rank == 0 ? 8 : 0, 8, NULL,
                             f->c, &base, &w);
    if (rc)   /* the creation's agreement failed the same way on every rank */
        return;
    int bad = smap_win_lock_all(w, MPI_MODE_NOCHECK) != MPI_SUCCESS;
    if (!bad && f->rank == 0)
        atomic_store_explicit((_Atomic(long long) *)base, initial, memory_order_relaxed);
    long long any = 1;
    rc = max_ll(f->c, bad, &any);   /* also: nobody uses it before rank 0 set it */
    if (rc || any) {
        if (!bad)
            smap_win_unlock_all(w);
        smap_win_free(&w);
        return;
    }
    f->spw = w;
}

static void win_free(struct MPI_ABI_File *f)
{
    smap_win_unlock_all(f->spw);
    smap_win_free(&f->spw);   /* collective (a barrier): close is */
    f->spw = NULL;
}

/* ---- the counter on one node: a shared-memory object ---- */

static void node_create(struct MPI_ABI_File *f, MPI_Offset initial)
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
}

int smap_io_shared_create(struct MPI_ABI_File *f, MPI_Offset initial)
{
    f->sp = NULL;
    f->spw = NULL;
    if (smap_comm_group_on_node(f->c->group))
        node_create(f, initial);
    else
        win_create(f, initial);
    return MPI_SUCCESS;
}

void smap_io_shared_free(struct MPI_ABI_File *f)
{
    if (f->sp)
        munmap((void *)f->sp, sizeof *f->sp);
    f->sp = NULL;
    if (f->spw)
        win_free(f);
}

/* ---- the counter's operations, whichever it is ---- */

static int need_sp(struct MPI_ABI_File *f)
{
    if (!f->sp && !f->spw)
        return smap_failf(MPI_ERR_UNSUPPORTED_OPERATION, "this file has no shared file "
                            "pointer: its ranks could not share one counter (no shared "
                            "memory object on the node, or no one-sided window between "
                            "nodes)");
    return MPI_SUCCESS;
}

/* *old <- counter, counter += n. */
static int sp_fetch_add(struct MPI_ABI_File *f, long long n, long long *old)
{
    if (f->sp) {
        *old = atomic_fetch_add_explicit(f->sp, n, memory_order_relaxed);
        return MPI_SUCCESS;
    }
    return win_fop(f, MPI_SUM, n, old);
}

static int sp_load(struct MPI_ABI_File *f, long long *v)
{
    if (f->sp) {
        *v = atomic_load_explicit(f->sp, memory_order_relaxed);
        return MPI_SUCCESS;
    }
    return win_fop(f, MPI_NO_OP, 0, v);
}

static int sp_store(struct MPI_ABI_File *f, long long v)
{
    if (f->sp) {
        atomic_store_explicit(f->sp, v, memory_order_relaxed);
        return MPI_SUCCESS;
    }
    return win_fop(f, MPI_REPLACE, v, NULL);
}

MPI_Offset smap_io_shared_peek(struct MPI_ABI_File *f)
{
    long long v = 0;
    if ((f->sp || f->spw) && sp_load(f, &v))
        v = 0;
    return v;
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
    long long at;
    if ((rc = sp_fetch_add(f, n, &at)))
        return rc;
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
    /* rank 0's start and its class in one broadcast */
    long long got[2] = { 0, 0 };
    if (f->rank == 0)
        got[1] = sp_fetch_add(f, total, &got[0]);
    rc = smap_io_bcast(got, 2, MPI_LONG_LONG, 0, f->c);
    if (!rc && got[1])
        rc = f->rank == 0 ? (int)got[1]
                          : smap_failf((int)got[1], "rank 0 could not move the shared "
                                                     "file pointer");
    if (rc)
        return rc;
    base = got[0];
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
        long long base = 0, to = 0;
        if (whence == MPI_SEEK_CUR) {
            mine = sp_load(f, &base);
        } else if (whence == MPI_SEEK_END) {
            MPI_Offset size;
            mine = smap_io_get_size(f, &size);
            base = (smap_io_view_bytes_below(&f->v, size) + f->v.esize - 1) / f->v.esize;
        }
        if (!mine && (__builtin_add_overflow(base, off, &to) || to < 0))
            mine = smap_failf(MPI_ERR_ARG, "the new shared position (%lld %+lld etypes) "
                                "would be negative", base, (long long)off);
        if (!mine)
            mine = sp_store(f, to);
    }
    return smap_io_agree(f, mine);
}

int smap_io_position_shared(struct MPI_ABI_File *f, MPI_Offset *off)
{
    int rc = need_sp(f);
    long long v = 0;
    if (!rc && !(rc = sp_load(f, &v)))
        *off = v;
    return rc;
}

int smap_io_shared_reset(struct MPI_ABI_File *f, MPI_Offset to)
{
    if (!f->sp && !f->spw)
        return MPI_SUCCESS;
    int mine = f->rank == 0 ? sp_store(f, to) : 0;
    return smap_io_agree(f, mine);
}
