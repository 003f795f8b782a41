/* Two-phase collective I/O (DESIGN.md D15), the SMARTMAP way on a node:
 * the descriptions of the ranks' accesses, the file domains' aggregators
 * walking their windows, the collective-buffering hints in effect.
 *
 * Every rank describes its access in its own (exposed) memory: the list
 * of file pieces of its view, in stream order, and where its data is (the
 * user buffer with its memory type, used in place).  The steps of one
 * collective access (collective.c) publish the descriptions' addresses and
 * file ranges, cut the range of all accesses into file domains, one per
 * aggregator, aligned to striping_unit or the file system's block; each
 * aggregator walks its domain in windows of cb_buffer_size bytes: for a
 * write it copies every rank's pieces of the window straight out of that
 * rank's user buffer (through smap_remote, with the rank's memory type: no
 * exchange messages, no packing on the ranks), reads the window first only
 * when the pieces leave holes in it, and writes it with one pwrite; for a
 * read it reads the window with one pread and copies the pieces into the
 * ranks' buffers.  Writes are double-buffered: the window just gathered is
 * submitted to io_uring (where there is one) and the next window is
 * gathered into the second buffer while the kernel writes the first.
 * Between nodes, the pieces of other nodes' ranks come by messages
 * (exchange.c) and are walked the same way. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/boot.h"
#include "dtype/engine.h"
#include "io/io.h"
#include "io/twophase.h"
#include "mpi/comm.h"
#include "mpi/group.h"
#include "p2p/p2p.h"
#include "smap/remote.h"




/* Whether [p, p + len) lies in one of this rank's exposed regions (so a
 * node peer can reach it through smap_remote). */
int smap_tp_exposed(const void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p;
    for (int k = 0; k < SMAP_REGION_KINDS; k++) {
        const struct smap_region *r = smap_region_self((enum smap_region_kind)k);
        if (r && r->base && a >= r->base && a - r->base < r->len && len <= r->len - (a - r->base))
            return 1;
    }
    return 0;
}

/* In the heap, which every node peer maps at the same address: an object
 * there (a datatype and its compiled map) is used by its pointer. */
int smap_tp_in_heap(const void *p, size_t len)
{
    const struct smap_region *r = smap_region_self(SMAP_REGION_HEAP);
    uintptr_t a = (uintptr_t)p;
    return r && r->base && a >= r->base && a - r->base < r->len && len <= r->len - (a - r->base);
}

/* The pieces of stream bytes [s0, s0 + total) of the view; 0, or -1 when
 * out of memory, 1 when they do not advance through the file (a filetype
 * whose tiles overlap: left to the independent path). */
int smap_tp_build_pieces(struct MPI_ABI_File *f, MPI_Offset s0, MPI_Offset total,
                         struct tp_desc *d)
{
    MPI_Count cap = 16, n = 0;
    struct tp_piece *pc = malloc((size_t)cap * sizeof *pc);
    if (!pc)
        return -1;
    int unordered = 0;
    for (MPI_Offset q = 0; q < total;) {
        MPI_Offset av, fo = smap_io_view_map(&f->v, s0 + q, total - q, &av);
        if (n && fo < pc[n - 1].fo + pc[n - 1].len)
            unordered = 1;
        if (n == cap) {
            struct tp_piece *g = realloc(pc, (size_t)(cap *= 2) * sizeof *pc);
            if (!g) {
                free(pc);
                return -1;
            }
            pc = g;
        }
        pc[n++] = (struct tp_piece){fo, av, q};
        q += av;
    }
    d->pc = pc;
    d->npc = n;
    return unordered;
}

/* The first piece that ends after file offset at. */
MPI_Count smap_tp_first_after(const struct tp_piece *pc, MPI_Count n, MPI_Offset at)
{
    MPI_Count lo = 0, hi = n;
    while (lo < hi) {
        MPI_Count mid = lo + (hi - lo) / 2;
        if (pc[mid].fo + pc[mid].len <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}


int smap_tp_reach(int lr, const long long *g, struct tp_peer *p)
{
    p->lo = g[G_LO];
    p->hi = g[G_HI];
    p->d = NULL;
    if (g[G_TOTAL] == 0)
        return 0;
    const struct tp_desc *d = smap_remote_inline(lr, (const void *)(intptr_t)g[G_DESC], sizeof *d);
    if (!d)
        return -1;
    p->pc = smap_remote_inline(lr, d->pc, (size_t)d->npc * sizeof *d->pc);
    const char *sp = smap_remote_inline(lr, d->span, (size_t)d->spanlen);
    if (!p->pc || !sp)
        return -1;
    p->delta = sp - d->span;
    p->d = d;
    return 0;
}


static void ival_add(struct ivals *iv, MPI_Offset a, MPI_Offset b)
{
    if (iv->n && iv->v[iv->n - 1].fo + iv->v[iv->n - 1].len == a) {
        iv->v[iv->n - 1].len += b - a;   /* the common case: one rank's run */
        return;
    }
    if (iv->n == iv->cap) {
        MPI_Count c = iv->cap ? 2 * iv->cap : 64;
        struct tp_piece *g = realloc(iv->v, (size_t)c * sizeof *g);
        if (!g) {
            iv->oom = 1;
            return;
        }
        iv->v = g;
        iv->cap = c;
    }
    iv->v[iv->n++] = (struct tp_piece){a, b - a, 0};
}

static int by_fo(const void *x, const void *y)
{
    MPI_Offset a = ((const struct tp_piece *)x)->fo, b = ((const struct tp_piece *)y)->fo;
    return a < b ? -1 : a > b;
}

/* Bytes of the union of the intervals. */
static MPI_Offset ival_union(struct ivals *iv)
{
    qsort(iv->v, (size_t)iv->n, sizeof *iv->v, by_fo);
    MPI_Offset u = 0, end = -1;
    for (MPI_Count i = 0; i < iv->n; i++) {
        MPI_Offset a = iv->v[i].fo, b = a + iv->v[i].len;
        if (a < end)
            a = end;
        if (b > a)
            u += b - a;
        if (b > end)
            end = b;
    }
    return u;
}

/* Copies between window wb (file offsets [wlo, whi)) and every reached
 * rank's data; dir 1: into the window (write), 0: out of it (read, only
 * file bytes below `avail`).  iv: only records the intervals covered and
 * their range, moves nothing. */
static void walk(struct tp_peer *peers, int n, char *wb, MPI_Offset wlo, MPI_Offset whi,
                 int dir, MPI_Offset avail, struct ivals *iv, MPI_Offset *minw,
                 MPI_Offset *maxw)
{
    for (int r = 0; r < n; r++) {
        struct tp_peer *p = &peers[r];
        if (!p->d || p->hi <= wlo || p->lo >= whi)
            continue;
        const struct tp_desc *d = p->d;
        for (MPI_Count i = smap_tp_first_after(p->pc, d->npc, wlo); i < d->npc; i++) {
            const struct tp_piece *c = &p->pc[i];
            if (c->fo >= whi)
                break;
            MPI_Offset a = c->fo > wlo ? c->fo : wlo, b = c->fo + c->len;
            if (b > whi)
                b = whi;
            if (iv) {
                ival_add(iv, a, b);
                if (a < *minw)
                    *minw = a;
                if (b > *maxw)
                    *maxw = b;
                continue;
            }
            if (!dir && b > avail)
                b = avail;
            if (b <= a)
                continue;
            MPI_Offset so = c->so + (a - c->fo);
            char *w = wb + (a - wlo);
            if (d->data) {
                char *m = d->data + p->delta + so;
                if (dir)
                    memcpy(w, m, (size_t)(b - a));
                else
                    memcpy(m, w, (size_t)(b - a));
            } else if (dir) {
                smap_dtype_pack(d->buf + p->delta, d->count, d->mt, w, so, b - a);
            } else {
                smap_dtype_unpack(w, b - a, (char *)d->buf + p->delta, d->count, d->mt, so);
            }
        }
    }
}

static int full_io(struct MPI_ABI_File *f, int write, char *p, MPI_Offset len, MPI_Offset off,
                   MPI_Offset *got)
{
    MPI_Offset done = 0;
    while (done < len) {
        ssize_t r = write ? pwrite(f->fd, p + done, (size_t)(len - done), off + done)
                          : pread(f->fd, p + done, (size_t)(len - done), off + done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            *got = done;
            return smap_failf(smap_io_errno_class(e), "%s %s at offset %lld (collective "
                                "buffering): %s", write ? "writing" : "reading", f->path,
                                (long long)(off + done), strerror(e));
        }
        if (r == 0) {
            if (write) {
                *got = done;
                return smap_failf(MPI_ERR_IO, "writing %s: no progress", f->path);
            }
            break;
        }
        done += r;
    }
    *got = done;
    return MPI_SUCCESS;
}

/* A written window's bytes start their writeback now (no wait), so that
 * on a file system with one the disk works while the next window is
 * gathered and written: with one aggregator writing and the writeback
 * left to the MPI_File_sync that follows, 2 ranks writing 64 KiB blocks
 * interleaved (32 MiB) onto an ext file took 35-39 ms, twice their
 * independent writes (16-23 ms); with the writeback of each 16 MiB
 * window 24-25 ms, of each 2 MiB direct write (SMAP_IO_WRITE_BEHIND_STEP, the
 * cb_buffer_size=2M trial's figure) 9-10 ms.  A file in memory (tmpfs,
 * f->memfs) has no writeback: no call, and direct writes are not cut. */
static void write_behind(struct tp_agg *a, MPI_Offset off, MPI_Offset len)
{
    smap_io_write_behind(a->f, off, len);
}

/* The write of a gathered window: submitted to io_uring when it takes it
 * (the next window is gathered meanwhile), else written here. */
static int write_start(struct tp_agg *a, char *p, MPI_Offset len, MPI_Offset off)
{
    a->pending = smap_io_uring_write(a->f->fd, p, len, off);
    if (a->pending) {
        a->pbuf = p;
        a->plen = len;
        a->poff = off;
        return MPI_SUCCESS;
    }
    MPI_Offset got;
    int rc = full_io(a->f, 1, p, len, off, &got);
    if (!rc)
        write_behind(a, off, len);
    return rc;
}

/* The write in flight done (a short one finished here). */
static int write_wait(struct tp_agg *a)
{
    if (!a->pending)
        return MPI_SUCCESS;
    long long r = smap_io_uring_wait(a->pending);
    a->pending = NULL;
    if (r < 0)
        return smap_failf(smap_io_errno_class((int)-r), "writing %s at offset %lld "
                            "(collective buffering): %s", a->f->path, (long long)a->poff,
                            strerror((int)-r));
    MPI_Offset got;
    int rc = r < a->plen ? full_io(a->f, 1, a->pbuf + r, a->plen - r, a->poff + r, &got)
                         : MPI_SUCCESS;
    if (!rc)
        write_behind(a, a->poff, a->plen);
    return rc;
}

int smap_tp_agg_start(struct tp_agg *a, struct MPI_ABI_File *f, int write,
                      struct tp_peer *peers, MPI_Offset dlo, MPI_Offset dhi)
{
    memset(a, 0, sizeof *a);
    a->f = f;
    a->write = write;
    a->peers = peers;
    a->dlo = a->wlo = dlo;
    a->dhi = dhi;
    a->cb = f->hints.cb_buffer_size;
    if (a->cb > dhi - dlo)
        a->cb = dhi - dlo;
    if (a->cb <= 0)
        return MPI_SUCCESS;
    /* a second buffer only for writes of more than one window */
    int two = write && dhi - dlo > a->cb;
    a->wb[0] = smap_io_scratch_get((size_t)a->cb, &a->wlen[0]);
    a->wb[1] = two ? smap_io_scratch_get((size_t)a->cb, &a->wlen[1]) : NULL;
    if (!a->wb[0] || (two && !a->wb[1])) {
        smap_io_scratch_put(a->wb[0], a->wlen[0]);
        smap_io_scratch_put(a->wb[1], a->wlen[1]);
        a->wb[0] = a->wb[1] = NULL;
        a->wlo = dhi;
        return smap_failf(MPI_ERR_NO_MEM, "out of memory for the %lld-byte collective "
                            "buffer (cb_buffer_size)", (long long)a->cb);
    }
    return MPI_SUCCESS;
}

static int by_dio(const void *x, const void *y)
{
    MPI_Offset a = ((const struct tp_dio *)x)->fo, b = ((const struct tp_dio *)y)->fo;
    return a < b ? -1 : a > b;
}

/* A window straight between the file and the ranks' buffers: the pieces
 * sorted by file offset, each run of touching pieces one preadv/pwritev
 * with the places they are as its iovecs (through smap_remote: the
 * SMARTMAP way, no window buffer, no second copy; a write's holes are
 * simply not written, so they need no read first).  Only when every
 * piece's memory is contiguous, no two pieces overlap (overlapping writes
 * go through the buffer, the last rank's bytes winning as before) and the
 * runs are few (at least 64 KiB a call on average); 1 when done, 0 when it
 * does not apply, -class. */
static int rw_direct(struct tp_agg *a, MPI_Offset wlo, MPI_Offset whi)
{
    a->ndio = 0;
    MPI_Offset bytes = 0;
    for (int r = 0; r < a->f->size; r++) {
        struct tp_peer *p = &a->peers[r];
        if (!p->d || p->hi <= wlo || p->lo >= whi)
            continue;
        const struct tp_desc *d = p->d;
        for (MPI_Count i = smap_tp_first_after(p->pc, d->npc, wlo); i < d->npc; i++) {
            const struct tp_piece *c = &p->pc[i];
            if (c->fo >= whi)
                break;
            if (!d->data)
                return 0;
            MPI_Offset lo = c->fo > wlo ? c->fo : wlo, hi = c->fo + c->len;
            if (hi > whi)
                hi = whi;
            if (a->ndio == a->capdio) {
                MPI_Count cap = a->capdio ? 2 * a->capdio : 256;
                struct tp_dio *g = realloc(a->dio, (size_t)cap * sizeof *g);
                if (!g)
                    return 0;
                a->dio = g;
                a->capdio = cap;
            }
            a->dio[a->ndio++] = (struct tp_dio){lo, hi - lo,
                                                d->data + p->delta + c->so + (lo - c->fo)};
            bytes += hi - lo;
        }
    }
    if (!a->ndio)
        return 0;
    qsort(a->dio, (size_t)a->ndio, sizeof *a->dio, by_dio);
    MPI_Count runs = 1;
    for (MPI_Count i = 1; i < a->ndio; i++) {
        MPI_Offset end = a->dio[i - 1].fo + a->dio[i - 1].len;
        if (a->dio[i].fo < end)
            return 0;   /* overlapping reads: through the window buffer */
        runs += a->dio[i].fo != end;
    }
    if (runs > 1 && bytes / runs < 65536)
        return 0;
    struct iovec iov[256];
    for (MPI_Count i = 0; i < a->ndio;) {
        MPI_Offset at = a->dio[i].fo, want = 0;
        int n = 0;
        MPI_Offset at0 = at;
        while (i < a->ndio && n < 256 && a->dio[i].fo == at + want &&
               (n == 0 || !a->write || a->f->memfs || want < SMAP_IO_WRITE_BEHIND_STEP)) {
            iov[n++] = (struct iovec){a->dio[i].p, (size_t)a->dio[i].len};
            want += a->dio[i++].len;
        }
        ssize_t got;
        do
            got = a->write ? pwritev(a->f->fd, iov, n, at) : preadv(a->f->fd, iov, n, at);
        while (got < 0 && errno == EINTR);
        if (got < 0) {
            int e = errno;
            return -smap_failf(smap_io_errno_class(e), "%s %s at offset %lld (collective "
                                 "buffering): %s", a->write ? "writing" : "reading",
                                 a->f->path, (long long)at, strerror(e));
        }
        if (got < want && a->write) {   /* rare: the rest piece by piece */
            for (int k = 0; k < n; k++) {
                MPI_Offset len = (MPI_Offset)iov[k].iov_len, done;
                if (got >= len) {
                    got -= len;
                    at += len;
                    continue;
                }
                int rc = full_io(a->f, 1, (char *)iov[k].iov_base + got, len - got, at + got,
                                 &done);
                if (rc)
                    return -rc;
                got = 0;
                at += len;
            }
        } else if (got < want) {
            break;   /* the end of file: the rest stays as it is */
        }
        if (a->write)
            write_behind(a, at0, want);
    }
    return 1;
}

int smap_tp_agg_step(struct tp_agg *a)
{
    if (a->cb <= 0 || a->wlo >= a->dhi)
        return 1;
    struct MPI_ABI_File *f = a->f;
    MPI_Offset wlo = a->wlo, whi = wlo + a->cb < a->dhi ? wlo + a->cb : a->dhi;
    MPI_Offset minw = whi, maxw = wlo, got;
    char *wb = a->wb[a->cur];
    int rc = MPI_SUCCESS;
    a->wlo = whi;
    int d = rw_direct(a, wlo, whi);
    if (d)
        return d < 0 ? d : a->wlo >= a->dhi;
    a->iv.n = 0;
    walk(a->peers, f->size, wb, wlo, whi, a->write, 0, &a->iv, &minw, &maxw);
    if (a->iv.oom)
        return -smap_failf(MPI_ERR_NO_MEM, "out of memory listing a collective window");
    if (maxw <= minw)
        return a->wlo >= a->dhi;
    if (a->write) {
        /* holes between the pieces keep the file's bytes: read first */
        if (ival_union(&a->iv) < maxw - minw) {
            rc = full_io(f, 0, wb + (minw - wlo), maxw - minw, minw, &got);
            if (rc)
                return -rc;
            memset(wb + (minw - wlo) + got, 0, (size_t)(maxw - minw - got));
        }
        walk(a->peers, f->size, wb, wlo, whi, 1, 0, NULL, &minw, &maxw);
        /* the previous window's write ran while this one was gathered */
        if ((rc = write_wait(a)))
            return -rc;
        rc = write_start(a, wb + (minw - wlo), maxw - minw, minw);
        if (a->wb[1])
            a->cur ^= 1;
    } else {
        rc = full_io(f, 0, wb + (minw - wlo), maxw - minw, minw, &got);
        if (!rc)
            walk(a->peers, f->size, wb, wlo, whi, 0, minw + got, NULL, &minw, &maxw);
    }
    if (rc)
        return -rc;
    return a->wlo >= a->dhi;
}

int smap_tp_agg_window(struct tp_agg *a, MPI_Offset wlo, MPI_Offset whi)
{
    a->wlo = wlo;
    a->dhi = whi;
    int r = smap_tp_agg_step(a);
    return r < 0 ? -r : MPI_SUCCESS;
}

int smap_tp_agg_finish(struct tp_agg *a)
{
    int rc = write_wait(a);
    free(a->iv.v);
    free(a->dio);
    smap_io_scratch_put(a->wb[0], a->wlen[0]);
    smap_io_scratch_put(a->wb[1], a->wlen[1]);
    memset(a, 0, sizeof *a);
    return rc;
}

/* The nodes f's ranks live on (distinct node ids). */
static int nodes_of(const struct MPI_ABI_File *f)
{
    int n = 0, *seen = calloc((size_t)f->size, sizeof *seen);
    if (!seen)
        return 1;
    for (int r = 0; r < f->size; r++) {
        int node = smap_job.node_of ? smap_job.node_of[smap_group_world_rank(f->c->group, r)] : 0;
        int k = 0;
        while (k < n && seen[k] != node)
            k++;
        if (k == n)
            seen[n++] = node;
    }
    free(seen);
    return n;
}

/* Aggregators: on one node cb_nodes, at most cb_config_list's "*:N", at
 * most the ranks; across nodes one per node (the node's lowest rank). */
int smap_io_cb_nodes(const struct MPI_ABI_File *f, long long want)
{
    if (!smap_comm_group_on_node(f->c->group))
        return nodes_of(f);
    long long per = f->size;
    const char *c = f->hints.cb_config_list;
    if (!strncmp(c, "*:", 2) && strcmp(c + 2, "*")) {
        char *end;
        long v = strtol(c + 2, &end, 10);
        if (!*end && v > 0)
            per = v;
    }
    long long n = want < per ? want : per;
    if (n > f->size)
        n = f->size;
    return n < 1 ? 1 : (int)n;
}

void smap_io_hints_apply(struct MPI_ABI_File *f, const struct MPI_ABI_Info *info)
{
    if (info)
        smap_io_hints_set(&f->hints, info);
    /* rank 0's values on every rank (as ROMIO): the collective paths and
     * the write sieve's locks branch on them, and every rank must take
     * the same branch.  (Collective callers only; a failed broadcast
     * leaves each rank its own values.) */
    (void)smap_io_bcast(&f->hints, (MPI_Count)sizeof f->hints, MPI_BYTE, 0, f->c);
    /* what is in effect, as MPI_File_get_info reports it */
    f->hints.cb_nodes = smap_io_cb_nodes(f, f->hints.cb_nodes);
}

/* Whether the file's ranks' accesses interleave in the file. */
int smap_tp_interleaved(const long long *g, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const long long *a = g + i * G_N, *b = g + j * G_N;
            if (a[G_TOTAL] && b[G_TOTAL] && a[G_LO] < b[G_HI] && b[G_LO] < a[G_HI])
                return 1;
        }
    return 0;
}

