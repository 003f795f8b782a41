/* The file object (MPI 5.0 §14.2): open, close, delete, size,
 * preallocation, sync, atomicity, and the agreement every collective call
 * of the layer ends with.
 *
 * Open is collective: the ranks first agree on amode (and on any argument
 * error one of them found), so that a mismatch or a bad combination fails
 * on every rank with the same class; rank 0 then opens (creating, with
 * EXCL when asked) and tells the others, who open the existing file
 * without O_CREAT/O_EXCL; a failure anywhere is agreed again.  The file
 * keeps a duplicate of the communicator, so its collectives never meet
 * the program's traffic. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include "coll/coll.h"
#include "io/io.h"
#include "mpi/comm.h"
#include "comm/comm_create.h"
#include "mpi/errhandler.h"
#include "mpi/handles.h"

#define AMODE_ALL                                                                          \
    (MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL | \
     MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND)

/* Element-wise MAX over c: the agreement primitive. */
static int max_over(struct MPI_ABI_Comm *c, const long long *in, long long *out, int n)
{
    return smap_io_max(c, in, out, n);
}

int smap_io_agree(struct MPI_ABI_File *f, int cls)
{
    long long in = cls, out = 0;
    int rc = max_over(f->c, &in, &out, 1);
    if (rc)
        return rc;
    if (out && out != cls) {
        char mine[200] = "";
        if (cls)
            snprintf(mine, sizeof mine, "; here: %s", smap_why());
        return smap_failf((int)out, "a rank of the file's communicator failed with error "
                                      "class %lld%s", out, mine);
    }
    return (int)out;
}

int smap_io_agree_value(struct MPI_ABI_File *f, long long v, int cls, const char *what)
{
    long long in[3] = {v, -v, cls}, out[3];
    int rc = max_over(f->c, in, out, 3);
    if (rc)
        return rc;
    if (out[2])
        return cls ? cls : smap_failf((int)out[2], "another rank failed (error class %lld)",
                                        out[2]);
    if (out[0] != -out[1])
        return smap_failf(MPI_ERR_NOT_SAME, "%s differs between the ranks", what);
    return MPI_SUCCESS;
}

static int amode_check(int amode)
{
    if (amode & ~AMODE_ALL)
        return smap_failf(MPI_ERR_AMODE, "amode %#x has bits no MPI_MODE_* names", amode);
    int acc = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_RDWR) +
              !!(amode & MPI_MODE_WRONLY);
    if (acc != 1)
        return smap_failf(MPI_ERR_AMODE, "amode must have exactly one of MPI_MODE_RDONLY, "
                                           "MPI_MODE_RDWR, MPI_MODE_WRONLY");
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return smap_failf(MPI_ERR_AMODE, "MPI_MODE_RDONLY with MPI_MODE_CREATE or "
                                           "MPI_MODE_EXCL");
    if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        return smap_failf(MPI_ERR_AMODE, "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL");
    return MPI_SUCCESS;
}

/* ROMIO's file-system prefixes ("ufs:name") name the same POSIX file. */
static const char *strip_prefix(const char *name)
{
    static const char *const pfx[] = {"ufs:", "nfs:", "lustre:", "gpfs:", "xfs:", "tmpfs:"};
    for (size_t i = 0; i < sizeof pfx / sizeof pfx[0]; i++) {
        size_t n = strlen(pfx[i]);
        if (!strncmp(name, pfx[i], n))
            return name + n;
    }
    return name;
}

static int open_flags(int amode, int creator)
{
    int fl = O_CLOEXEC;
    if (amode & MPI_MODE_RDONLY)
        fl |= O_RDONLY;
    else if (amode & MPI_MODE_WRONLY)
        fl |= O_WRONLY;
    else
        fl |= O_RDWR;
    if (creator && (amode & MPI_MODE_CREATE))
        fl |= O_CREAT;
    if (creator && (amode & MPI_MODE_EXCL))
        fl |= O_EXCL | O_CREAT;
    return fl;
}

/* open(2) and the checks on what it opened; returns the fd or -class. */
static int posix_open(const char *path, int flags)
{
    int fd;
    do
        fd = open(path, flags, 0666);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        int e = errno;
        return -smap_failf(smap_io_errno_class(e), "cannot open %s: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) || S_ISDIR(st.st_mode)) {
        close(fd);
        return -smap_failf(MPI_ERR_BAD_FILE, "%s is a directory", path);
    }
    return fd;
}

static void free_comm(MPI_Comm h)
{
    struct MPI_ABI_Comm *c = smap_comm_get(h);
    if (!c)
        return;
    (void)smap_coll_free(c);   /* its hierarchy's sub-communicators, its control block */
    c->magic = 0;
    smap_comm_unref(c);
}

/* Whether fd's file system keeps files in memory only (tmpfs, ramfs):
 * there small writes cost little and the write sieve only copies more
 * (access.c); unknown (fstatfs failing) counts as a device. */
static int in_memory(int fd)
{
    struct statfs sf;
    if (fstatfs(fd, &sf))
        return 0;
    unsigned long t = (unsigned long)sf.f_type;
    return t == TMPFS_MAGIC || t == RAMFS_MAGIC;
}

int smap_io_open(struct MPI_ABI_Comm *uc, const char *name, int amode,
                 const struct MPI_ABI_Info *info, int local_err, MPI_File *out)
{
    *out = MPI_FILE_NULL;
    long long in[3] = {amode, -(long long)amode, local_err}, res[3];
    int rc = max_over(uc, in, res, 3);
    if (rc)
        return rc;
    if (res[2])
        return local_err ? local_err
                         : smap_failf((int)res[2], "another rank's arguments were invalid "
                                                     "(error class %lld)", res[2]);
    if (res[0] != -res[1])
        return smap_failf(MPI_ERR_NOT_SAME, "amode differs between the ranks of comm");
    if ((rc = amode_check(amode)))
        return rc;

    MPI_Comm dup = MPI_COMM_NULL;
    rc = smap_comm_dup_bare(uc, &dup, "MPI_File_open");
    if (rc)
        return smap_failf(rc, "duplicating the communicator failed");
    struct MPI_ABI_Comm *c = smap_comm_get(dup);
    /* allocation failures join the agreements below like any other */
    struct MPI_ABI_File *f = calloc(1, sizeof *f);
    char *path = strdup(strip_prefix(name));
    int mine = (!f || !path) ? smap_failf(MPI_ERR_NO_MEM, "out of memory") : 0;
    int fd = -1;

    /* rank 0 creates, then the others open */
    if (c->rank == 0 && !mine) {
        fd = posix_open(path, open_flags(amode, 1));
        if (fd < 0)
            mine = -fd;
    }
    int first = mine;
    rc = smap_io_bcast(&first, 1, MPI_INT, 0, c);
    if (rc && !mine)
        mine = rc;
    if (first && c->rank != 0 && !mine)
        mine = smap_failf(first, "rank 0 could not open %s (error class %d)", path, first);
    if (c->rank != 0 && !mine) {
        fd = posix_open(path, open_flags(amode, 0));
        if (fd < 0)
            mine = -fd;
    }
    /* APPEND: the size now, before any rank can leave the agreement
     * below and write */
    struct stat st = {0};
    if (!mine && (amode & MPI_MODE_APPEND) && fstat(fd, &st)) {
        int e = errno;
        mine = smap_failf(smap_io_errno_class(e), "fstat of %s: %s", path, strerror(e));
    }
    long long e = mine, all = 0;
    rc = max_over(c, &e, &all, 1);
    if (!mine && (rc || all))
        mine = rc ? rc : smap_failf((int)all, "another rank could not open %s (error class "
                                                "%lld)", path, all);
    if (mine) {
        if (fd >= 0)
            close(fd);
        free_comm(dup);
        free(path);
        free(f);
        return mine;
    }
    f->fd = fd;
    f->memfs = in_memory(fd);
    f->comm = dup;
    f->c = c;
    f->rank = c->rank;
    f->size = c->size;
    f->path = path;
    f->amode = amode;
    f->errhandler = smap_file_default_errhandler();
    smap_errhandler_retain(f->errhandler);
    smap_io_view_default(&f->v);
    smap_io_hints_default(&f->hints);
    smap_io_hints_apply(f, info);
    if (amode & MPI_MODE_APPEND)
        f->fp = st.st_size;   /* default view: etypes are bytes */
    /* every rank reaches this: the open succeeded everywhere */
    smap_io_shared_create(f, (amode & MPI_MODE_APPEND) ? st.st_size : 0);
    f->magic = SMAP_FILE_MAGIC;
    *out = (MPI_File)f;
    return MPI_SUCCESS;
}

int smap_io_close(MPI_File *fh)
{
    struct MPI_ABI_File *f = smap_file_get(*fh);
    /* every rank has finished its accesses before the file may go away */
    int mine = 0;
    if (f->split)
        mine = smap_failf(MPI_ERR_OTHER, "a split collective (MPI_File_*_begin) is still "
                                           "open: call its _end first");
    int rc = smap_io_agree(f, mine);
    if (rc)
        return rc;
    if (close(f->fd) && !mine) {
        int e = errno;
        mine = smap_failf(smap_io_errno_class(e), "closing %s: %s", f->path, strerror(e));
    }
    f->fd = -1;
    if (f->amode & MPI_MODE_DELETE_ON_CLOSE) {
        /* every rank closed first (the agreement above orders nothing
         * after the close: a second one does) */
        rc = smap_io_agree(f, 0);
        if (!rc && f->rank == 0 && unlink(f->path) && errno != ENOENT && !mine) {
            int e = errno;
            mine = smap_failf(smap_io_errno_class(e), "deleting %s on close: %s", f->path,
                                strerror(e));
        }
    }
    rc = smap_io_agree(f, mine);
    f->magic = 0;
    smap_handle_forget(f);
    smap_io_shared_free(f);   /* collective between nodes: before the comm goes */
    free_comm(f->comm);
    smap_io_view_release(&f->v);
    smap_errhandler_release(f->errhandler);
    free(f->path);
    free(f);
    *fh = MPI_FILE_NULL;
    return rc;
}

int smap_io_delete(const char *name)
{
    const char *path = strip_prefix(name);
    struct stat st;
    if (!stat(path, &st) && S_ISDIR(st.st_mode))
        return smap_failf(MPI_ERR_BAD_FILE, "%s is a directory", path);
    if (unlink(path)) {
        int e = errno;
        return smap_failf(smap_io_errno_class(e), "cannot delete %s: %s", path, strerror(e));
    }
    return MPI_SUCCESS;
}

int smap_io_get_size(struct MPI_ABI_File *f, MPI_Offset *size)
{
    struct stat st;
    if (fstat(f->fd, &st)) {
        int e = errno;
        return smap_failf(smap_io_errno_class(e), "fstat of %s: %s", f->path, strerror(e));
    }
    *size = st.st_size;
    return MPI_SUCCESS;
}

/* MPI_File_set_size (truncates or extends) and MPI_File_preallocate
 * (extends with allocated blocks, never shrinks): rank 0 changes the file
 * once all ranks agree on the size. */
int smap_io_set_size(struct MPI_ABI_File *f, MPI_Offset size, int preallocate)
{
    const char *what = preallocate ? "the preallocated size" : "size";
    int mine = 0;
    if (size < 0)
        mine = smap_failf(MPI_ERR_ARG, "size %lld is negative", (long long)size);
    else if (f->amode & MPI_MODE_SEQUENTIAL)
        mine = smap_failf(MPI_ERR_UNSUPPORTED_OPERATION, "the file was opened with "
                                                           "MPI_MODE_SEQUENTIAL");
    else if (f->amode & MPI_MODE_RDONLY)
        mine = smap_failf(MPI_ERR_READ_ONLY, "the file was opened MPI_MODE_RDONLY");
    int rc = smap_io_agree_value(f, size, mine, what);
    if (rc)
        return rc;
    if (f->rank == 0) {
        int e = 0;
        if (preallocate) {
            e = size > 0 ? posix_fallocate(f->fd, 0, size) : 0;
        } else if (ftruncate(f->fd, size)) {
            e = errno;
        }
        if (e)
            mine = smap_failf(smap_io_errno_class(e), "%s of %s to %lld bytes: %s",
                                preallocate ? "preallocation" : "resizing", f->path,
                                (long long)size, strerror(e));
    }
    return smap_io_agree(f, mine);
}

int smap_io_sync(struct MPI_ABI_File *f)
{
    int mine = 0;
    if (fsync(f->fd)) {
        int e = errno;
        /* a file on a device that cannot sync (a pipe, /dev/full) has
         * nothing to flush */
        if (e != EINVAL && e != EROFS)
            mine = smap_failf(smap_io_errno_class(e), "fsync of %s: %s", f->path,
                                strerror(e));
    }
    return smap_io_agree(f, mine);
}

void smap_io_write_behind(struct MPI_ABI_File *f, MPI_Offset off, MPI_Offset len)
{
    if (len > 0 && !f->memfs)   /* (tmpfs: nothing to write back) */
        (void)sync_file_range(f->fd, off, len, SYNC_FILE_RANGE_WRITE);
}

int smap_io_set_atomicity(struct MPI_ABI_File *f, int flag)
{
    int rc = smap_io_agree_value(f, flag != 0, 0, "flag");
    if (!rc)
        f->atomic = flag != 0;
    return rc;
}
