/* Two-phase collective I/O (DESIGN.md D15), the SMARTMAP way on a node.
 *
 * Every rank describes its access in its own (exposed) memory: the list
 * of file pieces of its view, in stream order, and where its data is (the
 * user buffer with its memory type, used in place).  One allgather
 * publishes the descriptions' addresses and file ranges.  The file range
 * of all accesses is cut into file domains, one per aggregator (cb_nodes,
 * cb_config_list), aligned to striping_unit or the file system's block;
 * each aggregator walks its domain in windows of cb_buffer_size bytes: for
 * a write it copies every rank's pieces of the window straight out of that
 * rank's user buffer (through smap_remote, with the rank's memory type:
 * no exchange messages, no packing on the ranks), reads the window first
 * only when the pieces leave holes in it, and writes it with one pwrite;
 * for a read it reads the window with one pread and copies the pieces
 * into the ranks' buffers.  A closing agreement (a barrier) keeps every
 * rank's buffer alive and untouched until the aggregators are done.
 *
 * When it applies (cb_apply): romio_cb_read/write "enable", or
 * "automatic" (the default) and the ranks' file ranges interleave; the
 * file's ranks all on one node with the heap exposed; the native
 * representation; no atomic mode.  Otherwise, and when an aggregator
 * cannot reach some rank's memory, each rank does its own access
 * (access.c), as before.  Between nodes the exchange over point-to-point
 * is not done yet: such files take that path too. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dtype/engine.h"
#include "io/io.h"
#include "mpi/comm.h"
#include "mpi/group.h"
#include "p2p/p2p.h"
#include "smap/remote.h"

/* A piece of a rank's access: file bytes [fo, fo + len) are its stream
 * bytes [so, so + len). */
struct tp_piece {
    MPI_Offset fo, len, so;
};

/* What a rank publishes (in its heap, read by the aggregators). */
struct tp_desc {
    char *data;            /* the stream in place (contiguous memory), or NULL */
    const char *buf;       /* else: count elements of mt at buf */
    MPI_Count count;
    smap_dtype_t *mt;
    const char *span;      /* the memory the data lies in: [span, span + spanlen) */
    MPI_Offset spanlen;
    struct tp_piece *pc;
    MPI_Count npc;
    MPI_Offset total;
};

/* The gathered part: per rank, these 6 numbers. */
enum { G_DESC, G_LO, G_HI, G_ERR, G_TOTAL, G_NOAGG, G_N };

/* Whether [p, p + len) lies in one of this rank's exposed regions (so a
 * node peer can reach it through smap_remote). */
static int exposed(const void *p, size_t len)
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
static int in_heap(const void *p, size_t len)
{
    const struct smap_region *r = smap_region_self(SMAP_REGION_HEAP);
    uintptr_t a = (uintptr_t)p;
    return r && r->base && a >= r->base && a - r->base < r->len && len <= r->len - (a - r->base);
}

/* The pieces of stream bytes [s0, s0 + total) of the view; 0, or -1 when
 * out of memory, 1 when they do not advance through the file (a filetype
 * whose tiles overlap: left to the independent path). */
static int build_pieces(struct MPI_ABI_File *f, MPI_Offset s0, MPI_Offset total,
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
static MPI_Count first_after(const struct tp_piece *pc, MPI_Count n, MPI_Offset at)
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

/* A peer's description as this aggregator reaches it. */
struct tp_peer {
    const struct tp_desc *d;   /* translated */
    const struct tp_piece *pc; /* translated */
    intptr_t delta;            /* add to the peer's data addresses */
    MPI_Offset lo, hi;
};

static int reach(int lr, const long long *g, struct tp_peer *p)
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

/* The file intervals the pieces of one window cover (ranks' pieces may
 * overlap in a write: the union tells whether holes are left). */
struct ivals {
    struct tp_piece *v;   /* fo, len used */
    MPI_Count n, cap;
    int oom;
};

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
        for (MPI_Count i = first_after(p->pc, d->npc, wlo); i < d->npc; i++) {
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
            return smap_io_fail(smap_io_errno_class(e), "%s %s at offset %lld (collective "
                                "buffering): %s", write ? "writing" : "reading", f->path,
                                (long long)(off + done), strerror(e));
        }
        if (r == 0) {
            if (write) {
                *got = done;
                return smap_io_fail(MPI_ERR_IO, "writing %s: no progress", f->path);
            }
            break;
        }
        done += r;
    }
    *got = done;
    return MPI_SUCCESS;
}

/* The aggregator's part: its file domain [dlo, dhi), window by window. */
static int aggregate(struct MPI_ABI_File *f, int write, struct tp_peer *peers, MPI_Offset dlo,
                     MPI_Offset dhi)
{
    MPI_Offset cb = f->hints.cb_buffer_size;
    if (cb > dhi - dlo)
        cb = dhi - dlo;
    if (cb <= 0)
        return MPI_SUCCESS;
    char *wb = malloc((size_t)cb);
    if (!wb)
        return smap_io_fail(MPI_ERR_NO_MEM, "out of memory for the %lld-byte collective "
                            "buffer (cb_buffer_size)", (long long)cb);
    int rc = MPI_SUCCESS;
    struct ivals iv = {0};
    for (MPI_Offset wlo = dlo; wlo < dhi && !rc; wlo += cb) {
        MPI_Offset whi = wlo + cb < dhi ? wlo + cb : dhi, minw = whi, maxw = wlo, got;
        iv.n = 0;
        walk(peers, f->size, wb, wlo, whi, write, 0, &iv, &minw, &maxw);
        if (iv.oom) {
            rc = smap_io_fail(MPI_ERR_NO_MEM, "out of memory listing a collective window");
            break;
        }
        if (maxw <= minw)
            continue;
        if (write) {
            /* holes between the pieces keep the file's bytes: read first */
            if (ival_union(&iv) < maxw - minw) {
                rc = full_io(f, 0, wb + (minw - wlo), maxw - minw, minw, &got);
                if (rc)
                    break;
                memset(wb + (minw - wlo) + got, 0, (size_t)(maxw - minw - got));
            }
            walk(peers, f->size, wb, wlo, whi, 1, 0, NULL, &minw, &maxw);
            rc = full_io(f, 1, wb + (minw - wlo), maxw - minw, minw, &got);
        } else {
            rc = full_io(f, 0, wb + (minw - wlo), maxw - minw, minw, &got);
            if (!rc)
                walk(peers, f->size, wb, wlo, whi, 0, minw + got, NULL, &minw, &maxw);
        }
    }
    free(iv.v);
    free(wb);
    return rc;
}

/* Aggregators on this (single) node: cb_nodes, at most cb_config_list's
 * "*:N" per node, at most the ranks. */
int smap_io_cb_nodes(const struct MPI_ABI_File *f, long long want)
{
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

/* Whether two-phase can run on f at all (the same on every rank). */
static int cb_possible(const struct MPI_ABI_File *f)
{
    return smap_comm_group_on_node(f->c->group) && smap_heap_exposed();
}

void smap_io_hints_apply(struct MPI_ABI_File *f, const struct MPI_ABI_Info *info)
{
    if (info)
        smap_io_hints_set(&f->hints, info);
    /* what is in effect, as MPI_File_get_info reports it */
    f->hints.cb_nodes = smap_io_cb_nodes(f, f->hints.cb_nodes);
    if (!smap_comm_group_on_node(f->c->group)) {   /* between nodes: not done yet */
        strcpy(f->hints.romio_cb_read, "disable");
        strcpy(f->hints.romio_cb_write, "disable");
    }
}

/* Whether the file's ranks' accesses interleave in the file. */
static int interleaved(const long long *g, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const long long *a = g + i * G_N, *b = g + j * G_N;
            if (a[G_TOTAL] && b[G_TOTAL] && a[G_LO] < b[G_HI] && b[G_LO] < a[G_HI])
                return 1;
        }
    return 0;
}

int smap_io_rw_all(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                   MPI_Count count, smap_dtype_t *mt, MPI_Count *bytes, int bad)
{
    *bytes = 0;
    const char *hint = write ? f->hints.romio_cb_write : f->hints.romio_cb_read;
    /* conditions the same on every rank: the independent path at once */
    if (!strcmp(hint, "disable") || f->v.rep || f->atomic || f->size == 1 || !cb_possible(f)) {
        int mine = bad ? bad : smap_io_rw(f, write, off, buf, count, mt, bytes);
        return smap_io_agree(f, mine);
    }

    /* this rank's access */
    struct tp_desc *d = calloc(1, sizeof *d);
    long long mg[G_N] = {0};
    int err = bad ? bad : d ? smap_io_access_check(f, write, 0)
                            : smap_io_fail(MPI_ERR_NO_MEM, "out of memory for the collective");
    MPI_Count total = 0;
    MPI_Offset s0 = 0;
    int indiv = off < 0;
    if (!err && __builtin_mul_overflow(count, smap_dtype_size(mt), &total))
        err = smap_io_fail(MPI_ERR_COUNT, "count %lld of the datatype overflows",
                           (long long)count);
    if (!err && total % f->v.esize)
        err = smap_io_fail(MPI_ERR_IO, "only whole etypes can be accessed (%lld bytes, etype "
                           "of %lld)", (long long)total, (long long)f->v.esize);
    if (!err && __builtin_mul_overflow(indiv ? f->fp : off, f->v.esize, &s0))
        err = smap_io_fail(MPI_ERR_ARG, "offset %lld overflows", (long long)off);
    if (!err && total > 0) {
        int b = build_pieces(f, s0, total, d);
        if (b < 0)
            err = smap_io_fail(MPI_ERR_NO_MEM, "out of memory listing the view's pieces");
        mg[G_NOAGG] = b > 0;
        d->total = total;
        if (smap_dtype_is_contiguous(mt)) {
            d->data = (char *)buf + smap_dtype_data_offset(mt);
            d->span = d->data;
            d->spanlen = total;
        } else {
            d->buf = buf;
            d->count = count;
            d->mt = mt;
            d->span = (const char *)buf + mt->true_lb;
            d->spanlen = (count - 1) * smap_dtype_extent(mt) + mt->true_extent;
        }
        /* the type object and its map are read where they are (the heap,
         * at the same address on every rank of the node) */
        if (!exposed(d->span, (size_t)d->spanlen) || !exposed(d, sizeof *d) ||
            (d->mt && (!smap_dtype_committed(mt) || !in_heap(mt, sizeof *mt))))
            mg[G_NOAGG] = 1;
        if (!err && d->npc) {
            mg[G_LO] = d->pc[0].fo;
            mg[G_HI] = d->pc[d->npc - 1].fo + d->pc[d->npc - 1].len;
        }
    }
    mg[G_DESC] = (long long)(intptr_t)d;
    mg[G_ERR] = err;
    mg[G_TOTAL] = total;
    long long *g = malloc((size_t)f->size * G_N * sizeof *g);
    struct tp_peer *peers = calloc((size_t)f->size, sizeof *peers);
    int rc = g && peers ? smap_io_allgather_n(mg, G_N, g, f->c)
                        : smap_io_fail(MPI_ERR_NO_MEM, "out of memory for the collective");
    if (rc) {   /* (only out of memory can differ between ranks here) */
        rc = smap_io_agree(f, rc);
        goto out;
    }
    int anyerr = 0, noagg = 0, any = 0;
    MPI_Offset gmin = -1, gmax = 0;
    for (int r = 0; r < f->size; r++) {
        const long long *x = g + r * G_N;
        anyerr |= x[G_ERR] != 0;
        noagg |= x[G_NOAGG] != 0;
        if (x[G_TOTAL]) {
            any = 1;
            if (gmin < 0 || x[G_LO] < gmin)
                gmin = x[G_LO];
            if (x[G_HI] > gmax)
                gmax = x[G_HI];
        }
    }
    if (anyerr) {
        rc = smap_io_agree(f, err);
        goto out;
    }
    if (!any)
        goto out;
    if (noagg || (strcmp(hint, "enable") && !interleaved(g, f->size))) {
        int mine = smap_io_rw(f, write, off, buf, count, mt, bytes);
        rc = smap_io_agree(f, mine);
        goto out;
    }

    /* the domains: naggr aggregators spread over the ranks */
    int naggr = smap_io_cb_nodes(f, f->hints.cb_nodes), me = -1;
    for (int a = 0; a < naggr; a++)
        if ((int)((long long)a * f->size / naggr) == f->rank)
            me = a;
    int cannot = 0;
    MPI_Offset dlo = 0, dhi = 0;
    if (me >= 0) {
        struct stat st;
        MPI_Offset align = f->hints.striping_unit > 0 ? f->hints.striping_unit
                           : fstat(f->fd, &st) == 0 && st.st_blksize > 0 ? st.st_blksize : 4096;
        MPI_Offset dsz = (gmax - gmin + naggr - 1) / naggr;
        dsz = (dsz + align - 1) / align * align;
        MPI_Offset first = gmin / align * align;
        dlo = me == 0 ? gmin : first + me * dsz;
        dhi = me == naggr - 1 ? gmax : first + (me + 1) * dsz;
        if (dlo < gmin)
            dlo = gmin;
        if (dhi > gmax)
            dhi = gmax;
        for (int r = 0; r < f->size && !cannot; r++) {
            int lr = smap_p2p_local_rank(smap_group_world_rank(f->c->group, r));
            cannot = reach(lr, g + r * G_N, &peers[r]) != 0;
        }
    }
    long long cin = cannot, cout = 0;
    if ((rc = smap_io_max(f->c, &cin, &cout, 1))) {
        rc = smap_io_agree(f, rc);
        goto out;
    }
    if (cout) {   /* some rank's memory is out of an aggregator's reach */
        int mine = smap_io_rw(f, write, off, buf, count, mt, bytes);
        rc = smap_io_agree(f, mine);
        goto out;
    }
    int mine = me >= 0 && dhi > dlo ? aggregate(f, write, peers, dlo, dhi) : MPI_SUCCESS;
    /* every buffer stays as it is until the aggregators are done */
    rc = smap_io_agree(f, mine);
    if (rc)
        goto out;
    MPI_Count moved = total;
    if (!write && total) {   /* a read stops at the end of file */
        struct stat st;
        if (fstat(f->fd, &st)) {
            rc = smap_io_fail(MPI_ERR_IO, "fstat of %s failed", f->path);
            goto out;
        }
        moved = 0;
        for (MPI_Count i = 0; i < d->npc; i++) {
            const struct tp_piece *c = &d->pc[i];
            if (c->fo + c->len <= st.st_size) {
                moved += c->len;
                continue;
            }
            if (c->fo < st.st_size)
                moved += st.st_size - c->fo;
            break;
        }
    }
    *bytes = moved;
    if (indiv)
        f->fp += moved / f->v.esize;
out:
    if (d)
        free(d->pc);
    free(d);
    free(g);
    free(peers);
    return rc;
}
