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

#include "boot/boot.h"
#include "coll/coll.h"
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
enum { G_DESC, G_LO, G_HI, G_ERR, G_TOTAL, G_NOAGG, G_NODE, G_N };

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
        return smap_failf(MPI_ERR_NO_MEM, "out of memory for the %lld-byte collective "
                            "buffer (cb_buffer_size)", (long long)cb);
    int rc = MPI_SUCCESS;
    struct ivals iv = {0};
    for (MPI_Offset wlo = dlo; wlo < dhi && !rc; wlo += cb) {
        MPI_Offset whi = wlo + cb < dhi ? wlo + cb : dhi, minw = whi, maxw = wlo, got;
        iv.n = 0;
        walk(peers, f->size, wb, wlo, whi, write, 0, &iv, &minw, &maxw);
        if (iv.oom) {
            rc = smap_failf(MPI_ERR_NO_MEM, "out of memory listing a collective window");
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

/* ---- between nodes: the pieces of other nodes' domains travel by an
 * alltoallv (p2p underneath); the aggregator treats each sender's
 * message as one more rank's description (its data in the message). ---- */

struct tp_x {
    int n;                       /* ranks */
    MPI_Count *c, *d;            /* counts and displacements, 4 arrays of n */
    struct tp_piece *spc, *rpc;  /* pieces sent / received (so: offset in the data) */
    char *sdata, *rdata;
    MPI_Count snp, rnp, sbytes, rbytes;
    struct tp_desc *rd;          /* received descriptions, one per sender */
};

static void x_free(struct tp_x *x)
{
    free(x->c);
    free(x->spc);
    free(x->rpc);
    free(x->sdata);
    free(x->rdata);
    free(x->rd);
}

static int a2a(struct MPI_ABI_File *f, const void *sb, MPI_Count *sc, MPI_Count *sd, void *rb,
               MPI_Count *rc, MPI_Count *rd)
{
    smap_dtype_t *b = smap_dtype_get(MPI_BYTE);
    struct smap_a2a a = {.sbuf = sb, .scounts = {sc, 1}, .sdispls = {sd, 1}, .st = b,
                         .rbuf = rb, .rcounts = {rc, 1}, .rdispls = {rd, 1}, .rt = b};
    return smap_io_a2a(&a, f->c);
}

/* My pieces in domain [lo, hi): [*i0, *i1) of d->pc. */
static void in_domain(const struct tp_desc *d, MPI_Offset lo, MPI_Offset hi, MPI_Count *i0,
                      MPI_Count *i1)
{
    MPI_Count i = first_after(d->pc, d->npc, lo), j = i;
    while (j < d->npc && d->pc[j].fo < hi)
        j++;
    *i0 = i;
    *i1 = j;
}

/* Moves stream bytes [so, so + len) of d between memory and p. */
static void mem_io(const struct tp_desc *d, int to_mem, char *p, MPI_Offset so, MPI_Offset len)
{
    if (d->data) {
        if (to_mem)
            memcpy(d->data + so, p, (size_t)len);
        else
            memcpy(p, d->data + so, (size_t)len);
    } else if (to_mem) {
        smap_dtype_unpack(p, len, (char *)d->buf, d->count, d->mt, so);
    } else {
        smap_dtype_pack(d->buf, d->count, d->mt, p, so, len);
    }
}

/* Sends every rank's pieces (and, writing, their data) in the domains of
 * aggregators on other nodes.  dom: 2 offsets per rank ([lo, hi) of its
 * domain, empty unless an aggregator); remote[r]: r is on another node. */
static int x_send(struct MPI_ABI_File *f, int write, const struct tp_desc *d,
                  const MPI_Offset *dom, const char *remote, struct tp_x *x)
{
    int n = f->size, rc;
    x->n = n;
    if (!(x->c = calloc(8 * (size_t)n, sizeof *x->c)))
        return smap_failf(MPI_ERR_NO_MEM, "out of memory for the exchange");
    MPI_Count *snp = x->c, *sby = x->c + n, *rnp = x->c + 2 * n, *rby = x->c + 3 * n,
              *sd = x->c + 4 * n, *rd = x->c + 5 * n, *sc = x->c + 6 * n, *rcn = x->c + 7 * n;
    for (int a = 0; a < n; a++) {
        if (!remote[a] || dom[2 * a + 1] <= dom[2 * a] || !d->npc)
            continue;
        MPI_Count i0, i1;
        in_domain(d, dom[2 * a], dom[2 * a + 1], &i0, &i1);
        for (MPI_Count i = i0; i < i1; i++) {
            MPI_Offset lo = d->pc[i].fo > dom[2 * a] ? d->pc[i].fo : dom[2 * a];
            MPI_Offset hi = d->pc[i].fo + d->pc[i].len;
            if (hi > dom[2 * a + 1])
                hi = dom[2 * a + 1];
            snp[a]++;
            sby[a] += hi - lo;
        }
    }
    /* counts: 2 per pair (pieces, bytes), as 16-byte blocks */
    MPI_Count *cnt = malloc(4 * (size_t)n * sizeof *cnt), *c16 = malloc(2 * (size_t)n * sizeof *c16);
    if (!cnt || !c16) {
        free(cnt);
        free(c16);
        return smap_failf(MPI_ERR_NO_MEM, "out of memory for the exchange");
    }
    for (int a = 0; a < n; a++) {
        cnt[2 * a] = snp[a];
        cnt[2 * a + 1] = sby[a];
        c16[a] = 16;
        c16[n + a] = 16 * (MPI_Count)a;
    }
    rc = a2a(f, cnt, c16, c16 + n, cnt + 2 * n, c16, c16 + n);
    for (int a = 0; a < n && !rc; a++) {
        rnp[a] = cnt[2 * n + 2 * a];
        rby[a] = cnt[2 * n + 2 * a + 1];
    }
    free(cnt);
    free(c16);
    if (rc)
        return rc;
    for (int a = 0; a < n; a++) {
        x->snp += snp[a];
        x->rnp += rnp[a];
        x->sbytes += sby[a];
        x->rbytes += rby[a];
    }
    x->spc = malloc((size_t)(x->snp + 1) * sizeof *x->spc);
    x->rpc = malloc((size_t)(x->rnp + 1) * sizeof *x->rpc);
    x->sdata = malloc((size_t)x->sbytes + 1);
    x->rdata = malloc((size_t)x->rbytes + 1);
    x->rd = calloc((size_t)n, sizeof *x->rd);
    if (!x->spc || !x->rpc || !x->sdata || !x->rdata || !x->rd)
        return smap_failf(MPI_ERR_NO_MEM, "out of memory for the exchange (%lld bytes)",
                            (long long)(x->sbytes + x->rbytes));
    /* the pieces, grouped by aggregator; so: offset in that message's data */
    MPI_Count k = 0, db = 0;
    for (int a = 0; a < n; a++) {
        if (!snp[a])
            continue;
        MPI_Count i0, i1, off = 0;
        in_domain(d, dom[2 * a], dom[2 * a + 1], &i0, &i1);
        for (MPI_Count i = i0; i < i1; i++) {
            MPI_Offset lo = d->pc[i].fo > dom[2 * a] ? d->pc[i].fo : dom[2 * a];
            MPI_Offset hi = d->pc[i].fo + d->pc[i].len;
            if (hi > dom[2 * a + 1])
                hi = dom[2 * a + 1];
            x->spc[k++] = (struct tp_piece){lo, hi - lo, off};
            if (write)
                mem_io(d, 0, x->sdata + db + off, d->pc[i].so + (lo - d->pc[i].fo), hi - lo);
            off += hi - lo;
        }
        db += off;
    }
    MPI_Count sp = 0, rp = 0, sb = 0, rb = 0;
    for (int a = 0; a < n; a++) {
        sd[a] = sp * (MPI_Count)sizeof(struct tp_piece);
        sc[a] = snp[a] * (MPI_Count)sizeof(struct tp_piece);
        rd[a] = rp * (MPI_Count)sizeof(struct tp_piece);
        rcn[a] = rnp[a] * (MPI_Count)sizeof(struct tp_piece);
        sp += snp[a];
        rp += rnp[a];
    }
    if ((rc = a2a(f, x->spc, sc, sd, x->rpc, rcn, rd)))
        return rc;
    for (int a = 0; a < n; a++) {   /* data displacements */
        sd[a] = sb;
        rd[a] = rb;
        sb += sby[a];
        rb += rby[a];
    }
    if (write && (rc = a2a(f, x->sdata, sby, sd, x->rdata, rby, rd)))
        return rc;
    /* one description per sender, its data in the message */
    MPI_Count pp = 0;
    for (int r = 0; r < n; r++) {
        x->rd[r] = (struct tp_desc){.data = x->rdata + rd[r], .pc = x->rpc + pp, .npc = rnp[r],
                                    .total = rby[r]};
        pp += rnp[r];
    }
    return MPI_SUCCESS;
}

/* Reading: the aggregators' data back to the senders, into place. */
static int x_back(struct MPI_ABI_File *f, const struct tp_desc *d, MPI_Offset eof,
                  struct tp_x *x)
{
    int n = x->n;
    MPI_Count *sby = x->c + n, *rby = x->c + 3 * n, *sd = x->c + 4 * n, *rd = x->c + 5 * n;
    /* the aggregator sends what it received (rby), the rank receives sby */
    int rc = a2a(f, x->rdata, rby, rd, x->sdata, sby, sd);
    if (rc)
        return rc;
    for (MPI_Count k = 0, db = 0; k < x->snp; k++) {
        const struct tp_piece *c = &x->spc[k];
        if (k && c->so == 0)
            db = x->spc[k - 1].so + x->spc[k - 1].len + db;   /* next aggregator's message */
        MPI_Offset len = c->fo + c->len <= eof ? c->len : eof - c->fo;
        if (len <= 0)
            continue;
        /* the piece's stream offset: where it lies in d's pieces */
        MPI_Count i = first_after(d->pc, d->npc, c->fo);
        mem_io(d, 1, x->sdata + db + c->so, d->pc[i].so + (c->fo - d->pc[i].fo), len);
    }
    return MPI_SUCCESS;
}

int smap_io_rw_all(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                   MPI_Count count, smap_dtype_t *mt, MPI_Count *bytes, int bad)
{
    *bytes = 0;
    const char *hint = write ? f->hints.romio_cb_write : f->hints.romio_cb_read;
    /* conditions the same on every rank: the independent path at once */
    if (!strcmp(hint, "disable") || f->v.rep || f->atomic || f->size == 1 ||
        !smap_heap_exposed()) {
        int mine = bad ? bad : smap_io_rw(f, write, off, buf, count, mt, bytes);
        return smap_io_agree(f, mine);
    }
    int multi = !smap_comm_group_on_node(f->c->group);
    struct tp_x x = {0};

    /* this rank's access */
    struct tp_desc *d = calloc(1, sizeof *d);
    long long mg[G_N] = {0};
    int err = bad ? bad : d ? smap_io_access_check(f, write, 0)
                            : smap_failf(MPI_ERR_NO_MEM, "out of memory for the collective");
    MPI_Count total = 0;
    MPI_Offset s0 = 0;
    int indiv = off < 0;
    if (!err && __builtin_mul_overflow(count, smap_dtype_size(mt), &total))
        err = smap_failf(MPI_ERR_COUNT, "count %lld of the datatype overflows",
                           (long long)count);
    if (!err && total % f->v.esize)
        err = smap_failf(MPI_ERR_IO, "only whole etypes can be accessed (%lld bytes, etype "
                           "of %lld)", (long long)total, (long long)f->v.esize);
    if (!err && __builtin_mul_overflow(indiv ? f->fp : off, f->v.esize, &s0))
        err = smap_failf(MPI_ERR_ARG, "offset %lld overflows", (long long)off);
    if (!err && total > 0) {
        int b = build_pieces(f, s0, total, d);
        if (b < 0)
            err = smap_failf(MPI_ERR_NO_MEM, "out of memory listing the view's pieces");
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
    mg[G_NODE] = smap_job.node;
    long long *g = malloc((size_t)f->size * G_N * sizeof *g);
    struct tp_peer *peers = calloc((size_t)f->size, sizeof *peers);
    MPI_Offset *dom = calloc(2 * (size_t)f->size, sizeof *dom);
    char *remote = calloc((size_t)f->size, 1);
    int *aggr = calloc((size_t)f->size, sizeof *aggr);
    int rc = g && peers && dom && remote && aggr
                 ? smap_io_allgather_n(mg, G_N, g, f->c)
                 : smap_failf(MPI_ERR_NO_MEM, "out of memory for the collective");
    if (rc) {   /* (only out of memory can differ between ranks here) */
        rc = smap_io_agree(f, rc);
        goto out;
    }
    int anyerr = 0, noagg = 0, any = 0;
    MPI_Offset gmin = -1, gmax = 0;
    for (int r = 0; r < f->size; r++) {
        const long long *xr = g + r * G_N;
        anyerr |= xr[G_ERR] != 0;
        noagg |= xr[G_NOAGG] != 0;
        remote[r] = xr[G_NODE] != smap_job.node;
        if (xr[G_TOTAL]) {
            any = 1;
            if (gmin < 0 || xr[G_LO] < gmin)
                gmin = xr[G_LO];
            if (xr[G_HI] > gmax)
                gmax = xr[G_HI];
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

    /* the aggregators: spread over the ranks on one node; across nodes
     * each node's lowest rank (in rank order) */
    int naggr = 0, me = -1;
    if (!multi) {
        int na = smap_io_cb_nodes(f, f->hints.cb_nodes);
        for (int a = 0; a < na; a++)
            aggr[naggr++] = (int)((long long)a * f->size / na);
    } else {
        for (int r = 0; r < f->size; r++) {
            int first = 1;
            for (int q = 0; q < r && first; q++)
                first = g[q * G_N + G_NODE] != g[r * G_N + G_NODE];
            if (first)
                aggr[naggr++] = r;
        }
    }
    {
        struct stat st;
        MPI_Offset align = f->hints.striping_unit > 0 ? f->hints.striping_unit
                           : fstat(f->fd, &st) == 0 && st.st_blksize > 0 ? st.st_blksize : 4096;
        MPI_Offset dsz = (gmax - gmin + naggr - 1) / naggr;
        dsz = (dsz + align - 1) / align * align;
        MPI_Offset first = gmin / align * align;
        for (int a = 0; a < naggr; a++) {
            MPI_Offset lo = a == 0 ? gmin : first + a * dsz;
            MPI_Offset hi = a == naggr - 1 ? gmax : first + (a + 1) * dsz;
            lo = lo < gmin ? gmin : lo;
            hi = hi > gmax ? gmax : hi;
            dom[2 * aggr[a]] = lo;
            dom[2 * aggr[a] + 1] = hi > lo ? hi : lo;
            if (aggr[a] == f->rank)
                me = a;
        }
    }
    int cannot = 0;
    if (multi && (rc = x_send(f, write, d, dom, remote, &x)))
        cannot = 1;   /* out of memory (the collectives themselves agree) */
    if (me >= 0) {
        for (int r = 0; r < f->size && !cannot; r++) {
            if (remote[r]) {   /* its pieces of my domain came in a message */
                peers[r].d = x.rd && x.rd[r].npc ? &x.rd[r] : NULL;
                peers[r].pc = peers[r].d ? x.rd[r].pc : NULL;
                peers[r].delta = 0;
                peers[r].lo = peers[r].d ? x.rd[r].pc[0].fo : 0;
                peers[r].hi = peers[r].d ? x.rd[r].pc[x.rd[r].npc - 1].fo +
                                               x.rd[r].pc[x.rd[r].npc - 1].len
                                         : 0;
                continue;
            }
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
    int mine = me >= 0 ? aggregate(f, write, peers, dom[2 * f->rank], dom[2 * f->rank + 1])
                       : MPI_SUCCESS;
    struct stat st;
    MPI_Offset eof = 0;
    if (!write) {   /* a read stops at the end of file */
        if (fstat(f->fd, &st))
            mine = mine ? mine : smap_failf(MPI_ERR_IO, "fstat of %s failed", f->path);
        else
            eof = st.st_size;
    }
    if (multi && !write) {   /* the data read for other nodes' ranks goes back */
        int brc = x_back(f, d, eof, &x);
        mine = mine ? mine : brc;
    }
    /* every buffer stays as it is until the aggregators are done */
    rc = smap_io_agree(f, mine);
    if (rc)
        goto out;
    MPI_Count moved = total;
    if (!write && total) {
        moved = 0;
        for (MPI_Count i = 0; i < d->npc; i++) {
            const struct tp_piece *c = &d->pc[i];
            if (c->fo + c->len <= eof) {
                moved += c->len;
                continue;
            }
            if (c->fo < eof)
                moved += eof - c->fo;
            break;
        }
    }
    *bytes = moved;
    if (indiv)
        f->fp += moved / f->v.esize;
out:
    x_free(&x);
    if (d)
        free(d->pc);
    free(d);
    free(g);
    free(peers);
    free(dom);
    free(remote);
    free(aggr);
    return rc;
}
