/* Data access (MPI 5.0 §14.4): reads and writes through the view, at an
 * explicit offset or the individual file pointer.
 *
 * The memory side is any datatype: a contiguous one is used in place,
 * any other is packed (writes) or unpacked (reads) through src/dtype in
 * chunks of ind_wr_buffer_size / ind_rd_buffer_size bytes (ROMIO's hints).
 * The file side walks the view (view.c): each piece of the stream that is
 * contiguous in the file is one pwrite/pread; small pieces with small
 * holes between them are sieved (one pread of the span, the pieces copied
 * out; writes: read-modify-write of the span under an exclusive fcntl
 * lock, every plain write of the file under a shared one while some
 * rank's view has holes; romio_ds_read/romio_ds_write=disable turn it
 * off, =enable sieves larger pieces and holes too).
 *
 * Reads stop at the end of file and report the bytes read (the status's
 * count), never an error.  In atomic mode (MPI_File_set_atomicity) the
 * whole range an access touches is locked first with an fcntl byte-range
 * lock (shared for reads, exclusive for writes), so overlapping accesses
 * of several ranks do not interleave. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dtype/engine.h"
#include "io/io.h"
#include "mpi/request.h"

/* n bytes at file offset off; *done: bytes moved (short only at the end
 * of file, for reads). */
static int pio(struct MPI_ABI_File *f, int write, char *p, size_t n, MPI_Offset off,
               size_t *done)
{
    size_t got = 0;
    /* a write of two steps or more goes step by step, each one's
     * writeback started at once (smap_io_write_behind); in memory
     * (tmpfs) there is no writeback: one call */
    const size_t step = (size_t)SMAP_IO_WRITE_BEHIND_STEP;
    int behind = write && !f->memfs && n >= 2 * step;
    while (got < n) {
        size_t want = n - got;
        if (want > (size_t)1 << 30)
            want = (size_t)1 << 30;
        if (behind && want > step)
            want = step;
        ssize_t r = write ? pwrite(f->fd, p + got, want, off + (off_t)got)
                          : pread(f->fd, p + got, want, off + (off_t)got);
        if (behind && r > 0)
            smap_io_write_behind(f, off + (MPI_Offset)got, (MPI_Offset)r);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            *done = got;
            return smap_failf(smap_io_errno_class(e), "%s %s at offset %lld: %s",
                                write ? "writing" : "reading", f->path,
                                (long long)(off + (MPI_Offset)got), strerror(e));
        }
        if (r == 0) {
            if (write) {
                *done = got;
                return smap_failf(MPI_ERR_IO, "writing %s at offset %lld: no progress",
                                    f->path, (long long)(off + (MPI_Offset)got));
            }
            break;   /* end of file */
        }
        got += (size_t)r;
    }
    *done = got;
    return MPI_SUCCESS;
}

/* Data sieving.  A sieved piece costs a copy of the hole before it (the
 * kernel's, into the sieve buffer) and a second copy of itself (out of
 * the buffer); its own pread costs a system call instead, about what
 * copying 2-4 KiB costs (measured on tmpfs, a warm page cache: 8 KiB
 * pieces with 8 KiB holes read 1.4x faster by one pread each than
 * sieved, 1.5-2 KiB pieces and holes 1.5-2.5x faster sieved).  So a span
 * (romio_ds_read/write "automatic") takes the next piece only while that
 * piece and the hole before it are at most SIEVE_JOIN bytes together, and
 * a span of one piece is moved in place.  A write's span is also read
 * once and costs two fcntl calls, a plain write's run of pieces one shared
 * lock.  "enable" takes pieces and holes up to SIEVE_PIECE each.  A read
 * span is at most SIEVE_SPAN (and ind_rd_buffer_size) bytes, so the copy
 * out of it reads the core's cache rather than memory (256 KiB spans:
 * 1.4-2.5x faster than 4 MiB ones for 0.5-2 KiB pieces). */
#define SIEVE_PIECE ((MPI_Offset)64 << 10)
#define SIEVE_JOIN ((MPI_Offset)4 << 10)
#define SIEVE_SPAN ((MPI_Offset)256 << 10)

/* Writes to a file with a device behind it (not tmpfs/ramfs) also sieve
 * pieces of at most SIEVE_DENSE bytes whose hole is at most their own
 * size (the span at least half data): there each buffered pwrite costs
 * several microseconds in the file system (ext4: block reservation, the
 * inode lock the ranks' writes share), more than reading and writing a
 * hole back.  Measured (ext4, 2 processes, 16 MiB each in interleaved
 * pieces, then fsync): 4 KiB pieces 43 ms one pwrite each, 28 ms sieved
 * in 512 KiB spans; 8 KiB 34 -> 26-30 ms; 64 KiB 24 -> 27-29 ms (not
 * sieved).  On tmpfs the pwrites are cheap and sieving only copies more
 * (4 KiB pieces: 2108 MB/s one pwrite each against ROMIO's 906 sieved). */
#define SIEVE_DENSE ((MPI_Offset)8 << 10)

/* Reads of pieces whose holes are at most VREAD_HOLE bytes go as one
 * preadv per run of pieces (VREAD_IOV iovecs: the pieces in place, each
 * hole into a junk buffer): one system call and one copy of each piece,
 * against one pread each (ext4, 2 processes, 16 MiB each in 4 KiB pieces
 * with 4 KiB holes: 18-20 ms against 21.5; 8 KiB pieces and holes: equal
 * on ext4, 1.1x slower on tmpfs, so larger holes are not taken). */
#define VREAD_HOLE ((MPI_Offset)4 << 10)
#define VREAD_IOV 512

/* Which pieces a sieve span takes (span_of): join > 0, a piece and the
 * hole before it at most join bytes together ("automatic"); join == 0,
 * each at most SIEVE_PIECE ("enable"); dense > 0, also a piece of at
 * most dense bytes whose hole is at most its size (writes on a device). */
struct sieve_rule {
    MPI_Offset join, dense;
};

/* Whether a piece of nav bytes after a hole of gap bytes joins a span. */
static int joins(const struct sieve_rule *r, MPI_Offset gap, MPI_Offset nav)
{
    if (r->dense && nav <= r->dense && gap <= nav)
        return 1;
    return r->join ? gap + nav <= r->join : gap <= SIEVE_PIECE && nav <= SIEVE_PIECE;
}

static int lock(struct MPI_ABI_File *f, int type, MPI_Offset start, MPI_Offset len);

/* The span a sieve takes from stream byte s: the following pieces while
 * holes and pieces stay small (rule, joins()) and the span within cap
 * bytes.  [*lo, *hi) in the file; returns the stream bytes; *npc: the
 * pieces taken. */
static MPI_Offset span_of(struct MPI_ABI_File *f, MPI_Offset s, MPI_Offset len, MPI_Offset cap,
                          const struct sieve_rule *rule, MPI_Offset *lo, MPI_Offset *hi,
                          int *npc)
{
    MPI_Offset av;
    *lo = smap_io_view_map(&f->v, s, len, &av);
    *hi = *lo + av;
    *npc = 1;
    MPI_Offset q = av;
    while (q < len) {
        MPI_Offset nav, fo = smap_io_view_map(&f->v, s + q, len - q, &nav);
        if (fo < *hi || fo + nav - *lo > cap)
            break;
        if (!joins(rule, fo - *hi, nav))
            break;
        *hi = fo + nav;
        q += nav;
        ++*npc;
    }
    return q;
}

/* Reads the pieces of one span (span_of, [lo, hi), q stream bytes): one
 * pread of the span into sb, then each piece copied out.  *done: bytes
 * delivered (less than q only at the end of file). */
static int sieve_read(struct MPI_ABI_File *f, char *p, MPI_Offset s, MPI_Offset q,
                      MPI_Offset lo, MPI_Offset hi, char *sb, MPI_Offset *done)
{
    size_t got;
    int rc = pio(f, 0, sb, (size_t)(hi - lo), lo, &got);
    *done = 0;
    for (MPI_Offset k = 0; k < q;) {   /* the pieces out of the span */
        MPI_Offset n, fo = smap_io_view_map(&f->v, s + k, q - k, &n);
        MPI_Offset have = (MPI_Offset)got - (fo - lo);
        if (have <= 0)
            break;
        MPI_Offset c = have < n ? have : n;
        memcpy(p + k, sb + (fo - lo), (size_t)c);
        *done = k + c;
        if (c < n)
            break;
        k += n;
    }
    return rc;
}

/* Writes the pieces of one span (span_of: [lo, hi), q stream bytes) by
 * read-modify-write: under an exclusive lock of the span (unless atomic
 * mode holds the whole access already), pread it (zeros past the end of
 * file), copy the pieces in, pwrite it.  The holes are written back as
 * they were; every plain write of the file takes a shared lock meanwhile
 * (pieces()), so none lands in a hole between our read and our write. */
static int sieve_write(struct MPI_ABI_File *f, const char *p, MPI_Offset s, MPI_Offset q,
                       MPI_Offset lo, MPI_Offset hi, char *sb)
{
    int locked = !f->atomic;
    int rc = locked ? lock(f, F_WRLCK, lo, hi - lo) : MPI_SUCCESS;
    if (rc)
        return rc;
    size_t got;
    rc = pio(f, 0, sb, (size_t)(hi - lo), lo, &got);
    if (!rc) {
        memset(sb + got, 0, (size_t)(hi - lo) - got);
        for (MPI_Offset k = 0; k < q;) {
            MPI_Offset n, fo = smap_io_view_map(&f->v, s + k, q - k, &n);
            memcpy(sb + (fo - lo), p + k, (size_t)n);
            k += n;
        }
        rc = pio(f, 1, sb, (size_t)(hi - lo), lo, &got);
    }
    if (locked) {
        int urc = lock(f, F_UNLCK, lo, hi - lo);
        if (!rc)
            rc = urc;
    }
    return rc;
}

/* Whether the piece of av bytes at stream byte s + q may start a sieve
 * span (sb: sieving is on for this access; rule as span_of). */
static int sieve_start(MPI_Offset av, MPI_Offset q, MPI_Offset len, const char *sb,
                       MPI_Offset cap, const struct sieve_rule *rule)
{
    return sb && (av < (rule->join ? rule->join : SIEVE_PIECE) || av <= rule->dense) &&
           av <= cap && av < len - q;
}

/* A run of plain pieces from stream byte s: up to the next piece that may
 * start a sieve span (at least one piece).  Returns its stream bytes;
 * [*lo, *hi): the file range it spans. */
static MPI_Offset plain_run(struct MPI_ABI_File *f, MPI_Offset s, MPI_Offset len, const char *sb,
                            MPI_Offset cap, const struct sieve_rule *rule, MPI_Offset *lo,
                            MPI_Offset *hi)
{
    MPI_Offset av;
    *lo = smap_io_view_map(&f->v, s, len, &av);
    *hi = *lo + av;
    MPI_Offset q = av;
    while (q < len) {
        MPI_Offset nav, fo = smap_io_view_map(&f->v, s + q, len - q, &nav);
        if (sieve_start(nav, q, len, sb, cap, rule))
            break;
        *hi = fo + nav;
        q += nav;
    }
    return q;
}

/* Reads the pieces from stream byte s while each hole before the next
 * one is at most VREAD_HOLE bytes, with one preadv: the pieces straight
 * into p, the holes into junk.  Returns the stream bytes of the whole
 * pieces it read (0: fewer than two pieces qualify, or the read failed
 * or stopped short; the caller then reads piece by piece, which reports
 * the error or finds the end of file). */
static MPI_Offset vector_read(struct MPI_ABI_File *f, char *p, MPI_Offset s, MPI_Offset len)
{
    static char junk[VREAD_HOLE];   /* (written by the kernel only, never read) */
    struct iovec iov[VREAD_IOV];
    MPI_Offset av, q, lo = smap_io_view_map(&f->v, s, len, &av), hi = lo + av;
    int n = 0;
    iov[n++] = (struct iovec){.iov_base = p, .iov_len = (size_t)av};
    for (q = av; q < len && n + 2 <= VREAD_IOV;) {
        MPI_Offset nav, fo = smap_io_view_map(&f->v, s + q, len - q, &nav);
        if (fo < hi || fo - hi > VREAD_HOLE || nav > ((MPI_Offset)1 << 30))
            break;
        if (fo > hi)
            iov[n++] = (struct iovec){.iov_base = junk, .iov_len = (size_t)(fo - hi)};
        iov[n++] = (struct iovec){.iov_base = p + q, .iov_len = (size_t)nav};
        hi = fo + nav;
        q += nav;
    }
    if (q == av)
        return 0;
    ssize_t r;
    while ((r = preadv(f->fd, iov, n, lo)) < 0 && errno == EINTR)
        ;
    if (r < 0)
        return 0;
    if (r == hi - lo)
        return q;
    MPI_Offset whole = 0;   /* short: the pieces it read whole */
    for (int i = 0; i < n && (size_t)r >= iov[i].iov_len; r -= (ssize_t)iov[i++].iov_len)
        if (iov[i].iov_base != junk)
            whole += (MPI_Offset)iov[i].iov_len;
    return whole;
}

/* Write-behind of an access's pieces (pio does its own for writes of
 * two steps or more): the file range the smaller pieces and sieve spans
 * wrote since the last call, its writeback started every
 * SMAP_IO_WRITE_BEHIND_STEP bytes written and at the end of the access
 * (when 1 MiB or more is left),
 * so the MPI_File_sync that follows finds most of it on its way to the
 * device (ext4, 2 processes x 16 MiB of interleaved pieces then fsync:
 * 64 KiB pieces 24-27 -> 20-26 ms, 8 KiB 34-36 -> 27-30 ms). */
struct behind {
    MPI_Offset lo, hi, bytes;
};

static void behind_add(struct MPI_ABI_File *f, struct behind *b, MPI_Offset lo, MPI_Offset hi,
                       int flush)
{
    if (hi > lo && hi - lo < 2 * SMAP_IO_WRITE_BEHIND_STEP) {
        if (!b->bytes || lo < b->lo)
            b->lo = lo;
        if (!b->bytes || hi > b->hi)
            b->hi = hi;
        b->bytes += hi - lo;
    }
    /* (at the end only 1 MiB or more: a program writing small records
     * one call each would otherwise start the writeback of the same
     * page again and again) */
    if (b->bytes >= (flush ? SMAP_IO_WRITE_BEHIND_STEP / 2 : SMAP_IO_WRITE_BEHIND_STEP)) {
        smap_io_write_behind(f, b->lo, b->hi - b->lo);
        b->bytes = 0;
    }
}

/* The stream bytes [s, s + len) of the view to or from p; *done: bytes
 * moved (short at the end of file).  sb (cap bytes, or NULL): the buffer
 * for sieving small pieces, join their rule (span_of).  wlock: some rank
 * may sieve its writes of this file, so plain writes hold a shared lock:
 * one over each run of plain pieces (plain_run) rather than one per piece,
 * taken and released before any sieve span's exclusive one (a process
 * holds one lock at a time here: two ranks cannot wait for each other). */
static int pieces(struct MPI_ABI_File *f, int write, char *p, MPI_Offset s, MPI_Offset len,
                  char *sb, MPI_Offset cap, const struct sieve_rule *rule, int wlock,
                  struct behind *wb, MPI_Offset *done)
{
    MPI_Offset q = 0;
    while (q < len) {
        MPI_Offset av, lo, hi;
        (void)smap_io_view_map(&f->v, s + q, len - q, &av);
        if (sieve_start(av, q, len, sb, cap, rule)) {
            int npc;
            MPI_Offset used = span_of(f, s + q, len - q, cap, rule, &lo, &hi, &npc);
            if (npc > 1) {   /* (one piece: moved in place below) */
                MPI_Offset got = used;
                int rc = write ? sieve_write(f, p + q, s + q, used, lo, hi, sb)
                               : sieve_read(f, p + q, s + q, used, lo, hi, sb, &got);
                if (rc || got < used) {
                    *done = q + (write ? 0 : got);
                    return rc;
                }
                if (write)
                    behind_add(f, wb, lo, hi, 0);
                q += used;
                continue;
            }
        }
        if (!write && sb && av < len - q) {   /* (sb: romio_ds_read is not "disable") */
            MPI_Offset got = vector_read(f, p + q, s + q, len - q);
            q += got;
            if (got)
                continue;
        }
        MPI_Offset run = av;
        lo = 0;
        hi = 0;
        if (wlock) {
            run = plain_run(f, s + q, len - q, sb, cap, rule, &lo, &hi);
            int rc = lock(f, F_RDLCK, lo, hi - lo);
            if (rc) {
                *done = q;
                return rc;
            }
        }
        int rc = MPI_SUCCESS, stop = 0;
        for (MPI_Offset r = 0; r < run;) {
            MPI_Offset n, fo = smap_io_view_map(&f->v, s + q, run - r, &n);
            size_t got;
            rc = pio(f, write, p + q, (size_t)n, fo, &got);
            if (write)
                behind_add(f, wb, fo, fo + (MPI_Offset)got, 0);
            q += (MPI_Offset)got;
            r += (MPI_Offset)got;
            if (rc || (MPI_Offset)got < n) {   /* an error, or the end of file */
                stop = 1;
                break;
            }
        }
        if (wlock) {
            int urc = lock(f, F_UNLCK, lo, hi - lo);
            if (!rc)
                rc = urc;
        }
        if (rc || stop) {
            *done = q;
            return rc;
        }
    }
    *done = q;
    return MPI_SUCCESS;
}

static int lock(struct MPI_ABI_File *f, int type, MPI_Offset start, MPI_Offset len)
{
    struct flock fl = {.l_type = (short)type, .l_whence = SEEK_SET, .l_start = start,
                       .l_len = len};
    while (fcntl(f->fd, F_SETLKW, &fl)) {
        if (errno == EINTR)
            continue;
        int e = errno;
        return smap_failf(MPI_ERR_IO, "atomic mode: locking bytes %lld..%lld of %s: %s",
                            (long long)start, (long long)(start + len), f->path, strerror(e));
    }
    return MPI_SUCCESS;
}

int smap_io_write_sieving(const struct MPI_ABI_File *f)
{
    return (f->amode & MPI_MODE_RDWR) && f->holes && strcmp(f->hints.romio_ds_write, "disable");
}

int smap_io_access_check(struct MPI_ABI_File *f, int write, int seq_ok)
{
    if (!seq_ok && (f->amode & MPI_MODE_SEQUENTIAL))
        return smap_failf(MPI_ERR_UNSUPPORTED_OPERATION, "explicit offsets and individual "
                            "file pointers are not allowed on a file opened with "
                            "MPI_MODE_SEQUENTIAL");
    if (write && (f->amode & MPI_MODE_RDONLY))
        return smap_failf(MPI_ERR_READ_ONLY, "the file was opened MPI_MODE_RDONLY");
    if (!write && (f->amode & MPI_MODE_WRONLY))
        return smap_failf(MPI_ERR_ACCESS, "the file was opened MPI_MODE_WRONLY");
    return MPI_SUCCESS;
}

static int rw_bytes(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                    MPI_Count count, smap_dtype_t *mt, MPI_Count total, MPI_Count *bytes);

static int rw_native(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                   MPI_Count count, smap_dtype_t *mt, MPI_Count *bytes)
{
    MPI_Count total;
    if (__builtin_mul_overflow(count, smap_dtype_size(mt), &total))
        return smap_failf(MPI_ERR_COUNT, "count %lld of the datatype overflows",
                            (long long)count);
    return rw_bytes(f, write, off, buf, count, mt, total, bytes);
}

/* The access of total stream bytes (file representation = memory's). */
static int rw_bytes(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                    MPI_Count count, smap_dtype_t *mt, MPI_Count total, MPI_Count *bytes)
{
    int rc = MPI_SUCCESS;
    if (total % f->v.esize)
        return smap_failf(MPI_ERR_IO, "only whole etypes can be accessed (%lld bytes, etype "
                            "of %lld)", (long long)total, (long long)f->v.esize);
    int indiv = off < 0;
    MPI_Offset s0;
    if (__builtin_mul_overflow(indiv ? f->fp : off, f->v.esize, &s0))
        return smap_failf(MPI_ERR_ARG, "offset %lld overflows", (long long)off);
    if (total == 0)
        return MPI_SUCCESS;

    char *mem = NULL, *tmp = NULL;
    size_t tmplen = 0, sblen = 0;   /* (scratch.c: not the shared heap) */
    MPI_Count chunk = total;
    if (smap_dtype_is_contiguous(mt)) {
        mem = (char *)buf + smap_dtype_data_offset(mt);
    } else {
        long long h = write ? f->hints.ind_wr_buffer_size : f->hints.ind_rd_buffer_size;
        if (chunk > h)
            chunk = h;
        if (!(tmp = smap_io_scratch_get((size_t)chunk, &tmplen)))
            return smap_failf(MPI_ERR_NO_MEM, "out of memory for a %lld-byte buffer",
                                (long long)chunk);
    }
    /* A view with holes sieves small pieces (span_of's join rule:
     * "automatic", the default, those measured faster sieved; "enable"
     * pieces and holes up to SIEVE_PIECE; "disable" never).  Writes sieve
     * on a RDWR file only (the span is read first), and then every plain
     * write of the file, whatever its view, takes a shared lock (wlock)
     * that a sieving write's exclusive one excludes: when some rank's
     * view has holes (agreed at set_view) and romio_ds_write is not
     * "disable" (hints are every rank's alike). */
    const char *ds = write ? f->hints.romio_ds_write : f->hints.romio_ds_read;
    int wsieve = write && smap_io_write_sieving(f);
    int sieve = !f->v.contig && (write ? wsieve : strcmp(ds, "disable") != 0);
    struct sieve_rule rule = {.join = strcmp(ds, "enable") ? SIEVE_JOIN : 0};
    if (write && rule.join && !f->memfs)
        rule.dense = SIEVE_DENSE;
    char *sb = NULL;
    MPI_Offset cap = write ? f->hints.ind_wr_buffer_size : f->hints.ind_rd_buffer_size, a;
    if (!write && cap > SIEVE_SPAN)
        cap = SIEVE_SPAN;
    if (sieve) {   /* no larger than the file range touched */
        MPI_Offset span = smap_io_view_map(&f->v, s0 + total - 1, 1, &a) + 1 -
                          smap_io_view_map(&f->v, s0, 1, &a);
        if (span < cap)
            cap = span;
    }
    if (sieve && !(sb = smap_io_scratch_get((size_t)cap, &sblen))) {
        smap_io_scratch_put(tmp, tmplen);
        return smap_failf(MPI_ERR_NO_MEM, "out of memory for a %lld-byte sieve buffer",
                            (long long)cap);
    }
    MPI_Offset lo = 0, hi = 0;
    if (f->atomic) {
        MPI_Offset a;
        lo = smap_io_view_map(&f->v, s0, 1, &a);
        hi = smap_io_view_map(&f->v, s0 + total - 1, 1, &a) + 1;
        rc = lock(f, write ? F_WRLCK : F_RDLCK, lo, hi - lo);
        if (rc) {
            smap_io_scratch_put(tmp, tmplen);
            smap_io_scratch_put(sb, sblen);
            return rc;
        }
    }
    MPI_Count moved = 0;
    struct behind wb = {0};
    for (MPI_Count c = 0; c < total && !rc; c += chunk) {
        MPI_Count len = total - c < chunk ? total - c : chunk;
        char *p = tmp ? tmp : mem + c;
        MPI_Offset done = 0;
        if (write && tmp)
            smap_dtype_pack(buf, count, mt, tmp, c, len);
        rc = pieces(f, write, p, s0 + c, len, sb, cap, &rule, wsieve && !f->atomic, &wb, &done);
        if (!write && tmp && done)
            smap_dtype_unpack(tmp, done, buf, count, mt, c);
        moved += done;
        if (done < len)
            break;   /* end of file, or an error */
    }
    if (write)
        behind_add(f, &wb, 0, 0, 1);
    if (f->atomic) {
        int urc = lock(f, F_UNLCK, lo, hi - lo);
        if (!rc)
            rc = urc;
    }
    smap_io_scratch_put(tmp, tmplen);
    smap_io_scratch_put(sb, sblen);
    *bytes = moved;
    if (indiv)
        f->fp += moved / f->v.esize;
    return rc;
}

/* A representation other than native (datarep.c): the whole access is
 * converted into a buffer of the file's bytes (writes) or read into one
 * and converted back (reads), which then moves through the view as a
 * contiguous memory stream.  A read cut short by the end of file converts
 * the whole elements of the memory type it got; *bytes counts memory
 * bytes (the status), the individual pointer moves by the file's etypes. */
static int rw_rep(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                  MPI_Count count, smap_dtype_t *mt, MPI_Count *bytes)
{
    const struct smap_io_datarep *rep = f->v.rep;
    MPI_Count fbytes;
    int rc = smap_io_datarep_bytes(rep, count, mt, &fbytes);
    if (rc)
        return rc;
    if (fbytes % f->v.esize)
        return smap_failf(MPI_ERR_IO, "only whole etypes can be accessed (%lld bytes in "
                            "the file, etype of %lld)", (long long)fbytes,
                            (long long)f->v.esize);
    if (fbytes == 0)
        return MPI_SUCCESS;
    char *fb = malloc((size_t)fbytes);
    if (!fb)
        return smap_failf(MPI_ERR_NO_MEM, "out of memory for a %lld-byte conversion buffer",
                            (long long)fbytes);
    smap_dtype_t *bt = smap_dtype_get(MPI_BYTE);
    MPI_Count moved = 0;
    if (write) {
        rc = smap_io_datarep_to_file(rep, buf, count, mt, fb, fbytes);
        if (!rc)
            rc = rw_bytes(f, 1, off, fb, fbytes, bt, fbytes, &moved);
        *bytes = moved == fbytes ? count * smap_dtype_size(mt) : 0;
    } else {
        rc = rw_bytes(f, 0, off, fb, fbytes, bt, fbytes, &moved);
        MPI_Count per = fbytes / count, whole = moved / per;
        int crc = whole ? smap_io_datarep_from_file(rep, fb, whole * per, buf, whole, mt)
                        : MPI_SUCCESS;
        if (!rc)
            rc = crc;
        *bytes = whole * smap_dtype_size(mt);
    }
    free(fb);   /* (rw_bytes moved the individual pointer by the file's etypes) */
    return rc;
}

static int rw_core(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                   MPI_Count count, smap_dtype_t *mt, MPI_Count *bytes)
{
    return f->v.rep ? rw_rep(f, write, off, buf, count, mt, bytes)
                    : rw_native(f, write, off, buf, count, mt, bytes);
}

int smap_io_rw(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf, MPI_Count count,
               smap_dtype_t *mt, MPI_Count *bytes)
{
    *bytes = 0;
    int rc = smap_io_access_check(f, write, 0);
    return rc ? rc : rw_core(f, write, off, buf, count, mt, bytes);
}

int smap_io_rw_at(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf, MPI_Count count,
                  smap_dtype_t *mt, MPI_Count *bytes)
{
    *bytes = 0;
    int rc = smap_io_access_check(f, write, 1);
    return rc ? rc : rw_core(f, write, off, buf, count, mt, bytes);
}

int smap_io_request(MPI_Count bytes, MPI_Request *req)
{
    /* completed at start (the standard allows it): a finished receive-kind
     * request carries the count into the status of MPI_Wait/MPI_Test */
    struct MPI_ABI_Request *r = smap_req_new(MPI_COMM_NULL);
    if (!r)
        return smap_failf(MPI_ERR_NO_MEM, "out of memory for the request");
    r->p.kind = SMAP_PREQ_RECV;
    r->p.src = MPI_ANY_SOURCE;
    r->p.rtag = MPI_ANY_TAG;
    r->p.got = (size_t)bytes;
    smap_preq_complete(&r->p);
    *req = (MPI_Request)r;
    return MPI_SUCCESS;
}
