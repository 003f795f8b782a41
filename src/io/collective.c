/* One collective access (MPI_File_*_all, their split and nonblocking
 * forms) as a series of steps (DESIGN.md D15): the ranks' descriptions
 * gathered, the decision (two-phase or each rank's own access), between
 * nodes the exchange, the aggregators' windows, a read's data sent back,
 * and the closing agreement (every rank returns the same class, D18; and
 * no rank's buffer or description goes before the aggregators are done).
 *
 * The blocking calls run the steps through at once, over the file
 * communicator's blocking collectives (control blocks on a node).  The
 * nonblocking ones (MPI_File_iwrite_all, ...; the split collectives'
 * _begin) return an internal generalized request completed by polling
 * (mpi/grequest.c): each MPI_Test or MPI_Wait of it runs the steps that
 * can run now -- a step's collective is a nonblocking one (a schedule
 * over p2p) started by the step and tested by the next poll, and an
 * aggregator writes one cb_buffer_size window per poll -- so a program
 * that computes and tests sees the access progress and complete meanwhile,
 * and a rank that arrives early does not wait for the others inside the
 * call.  The individual file pointer of a nonblocking access moves at the
 * call by the whole access (as ROMIO; the independent ones do the same).
 *
 * Several accesses may be in flight on a file; each step's collective takes
 * the communicator's next schedule number when it starts, so the ranks
 * must start them in one order: only the oldest access of a file runs
 * steps (a queue in call order, the same on every rank), the next starts
 * when it completes, and a blocking collective access first completes
 * those in flight. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/boot.h"
#include "coll/coll.h"
#include "dtype/engine.h"
#include "io/twophase.h"
#include "mpi/comm.h"
#include "mpi/group.h"
#include "mpi/request.h"
#include "mpi/status.h"
#include "p2p/p2p.h"
#include "smap/remote.h"

enum tp_state {
    T_START, T_PLAN, T_INDEP, T_REACH, T_GO, T_AGG, T_ROUND, T_X_PIECES, T_X_DATA,
    T_X_DESCS, T_X_PLACE, T_AGREED, T_FINAL, T_DONE
};

struct tp_op {
    struct MPI_ABI_File *f;
    int write, nb, bad;
    MPI_Offset off;              /* etypes; < 0: the individual pointer (blocking only) */
    void *buf;
    MPI_Count count;
    smap_dtype_t *mt;            /* nonblocking: one reference */
    enum tp_state st;
    MPI_Request rq;              /* the step's nonblocking collective, or NULL */
    struct smap_a2a a2a;         /* its arguments live as long as it runs */
    int rc;                      /* the outcome, once T_DONE */
    int mine;                    /* this rank's class, for the closing agreement */
    long long cin[1], cout[1];   /* the MAX of the agreements */
    MPI_Count total, bytes;
    MPI_Offset eof;
    struct tp_desc *d;
    long long mg[G_N], *g;
    struct tp_peer *peers;
    MPI_Offset *dom;
    char *remote;
    int *aggr, naggr, me, multi;
    struct tp_x x;
    struct tp_agg agg;
    /* between nodes: the exchange goes window by window (round k: the
     * pieces in the k-th cb_buffer_size window of every domain) */
    MPI_Offset *wdom;            /* this round's windows, 2 per rank like dom */
    long long round, nrounds;
    char why[200];               /* the reason of rc, kept for the request's status */
    struct tp_op *next;          /* in the file's queue (f->nbq) */
    int queued;                  /* in it: not complete yet */
};

/* ---- the collectives of the steps: blocking, or started here and
 * completed in a later poll (o->rq) ---- */

static int coll_rc(int rc)
{
    return rc ? smap_failf(rc, "a collective of the file failed: %s", smap_why()) : 0;
}

static int c_max(struct tp_op *o, long long v)
{
    o->cin[0] = v;
    smap_dtype_t *t = smap_dtype_get(MPI_LONG_LONG);
    if (!o->nb)
        return smap_io_max(o->f->c, o->cin, o->cout, 1);
    return coll_rc(smap_coll_iallreduce(o->cin, o->cout, 1, t, MPI_LONG_LONG, MPI_MAX, o->f->c,
                                        &o->rq));
}

static int c_gather(struct tp_op *o)
{
    if (!o->nb)
        return smap_io_allgather_n(o->mg, G_N, o->g, o->f->c);
    smap_dtype_t *t = smap_dtype_get(MPI_LONG_LONG);
    struct smap_cvec none = {NULL, 0};
    return coll_rc(smap_coll_iallgather(o->mg, G_N, t, o->g, G_N, none, none, t, o->f->c,
                                        &o->rq));
}

static int c_a2a(void *arg, const void *sb, MPI_Count *sc, MPI_Count *sd, void *rb,
                 MPI_Count *rc, MPI_Count *rd)
{
    struct tp_op *o = arg;
    smap_dtype_t *b = smap_dtype_get(MPI_BYTE);
    o->a2a = (struct smap_a2a){.sbuf = sb, .scounts = {sc, 1}, .sdispls = {sd, 1}, .st = b,
                               .rbuf = rb, .rcounts = {rc, 1}, .rdispls = {rd, 1}, .rt = b};
    if (!o->nb)
        return smap_io_a2a(&o->a2a, o->f->c);
    return coll_rc(smap_coll_ialltoall(&o->a2a, o->f->c, &o->rq));
}

/* The closing agreement on o->mine; its outcome in T_FINAL. */
static void agree(struct tp_op *o, int mine, enum tp_state next)
{
    o->mine = mine;
    int rc = c_max(o, mine);
    if (rc) {
        o->rc = rc;
        o->st = T_DONE;
        return;
    }
    o->st = next;
}

/* smap_io_agree's outcome from the MAX. */
static int agreed(struct tp_op *o)
{
    long long out = o->cout[0];
    if (out && out != o->mine) {
        char mine[200] = "";
        if (o->mine)
            snprintf(mine, sizeof mine, "; here: %s", smap_why());
        return smap_failf((int)out, "a rank of the file's communicator failed with error "
                                      "class %lld%s", out, mine);
    }
    return (int)out;
}

/* ---- the steps ---- */

/* This rank's description, the gathered numbers started. */
static void s_start(struct tp_op *o)
{
    struct MPI_ABI_File *f = o->f;
    const char *hint = o->write ? f->hints.romio_cb_write : f->hints.romio_cb_read;
    /* conditions the same on every rank: the independent path at once */
    if (!strcmp(hint, "disable") || f->v.rep || f->atomic || f->size == 1 ||
        !smap_heap_exposed()) {
        o->st = T_INDEP;
        return;
    }
    o->multi = !smap_comm_group_on_node(f->c->group);
    struct tp_desc *d = o->d = calloc(1, sizeof *d);
    int bad = o->bad;
    int err = bad ? bad : d ? smap_io_access_check(f, o->write, 0)
                            : smap_failf(MPI_ERR_NO_MEM, "out of memory for the collective");
    MPI_Count total = 0;
    MPI_Offset s0 = 0;
    smap_dtype_t *mt = o->mt;
    if (!err && __builtin_mul_overflow(o->count, smap_dtype_size(mt), &total))
        err = smap_failf(MPI_ERR_COUNT, "count %lld of the datatype overflows",
                           (long long)o->count);
    if (!err && total % f->v.esize)
        err = smap_failf(MPI_ERR_IO, "only whole etypes can be accessed (%lld bytes, etype "
                           "of %lld)", (long long)total, (long long)f->v.esize);
    if (!err && __builtin_mul_overflow(o->off < 0 ? f->fp : o->off, f->v.esize, &s0))
        err = smap_failf(MPI_ERR_ARG, "offset %lld overflows", (long long)o->off);
    long long *mg = o->mg;
    if (!err && total > 0) {
        int b = smap_tp_build_pieces(f, s0, total, d);
        if (b < 0)
            err = smap_failf(MPI_ERR_NO_MEM, "out of memory listing the view's pieces");
        mg[G_NOAGG] = b > 0;
        d->total = total;
        if (smap_dtype_is_contiguous(mt)) {
            d->data = (char *)o->buf + smap_dtype_data_offset(mt);
            d->span = d->data;
            d->spanlen = total;
        } else {
            d->buf = o->buf;
            d->count = o->count;
            d->mt = mt;
            d->span = (const char *)o->buf + mt->true_lb;
            d->spanlen = (o->count - 1) * smap_dtype_extent(mt) + mt->true_extent;
        }
        /* the type object and its map are read where they are (the heap,
         * at the same address on every rank of the node) */
        if (!smap_tp_exposed(d->span, (size_t)d->spanlen) || !smap_tp_exposed(d, sizeof *d) ||
            (d->mt && (!smap_dtype_committed(mt) || !smap_tp_in_heap(mt, sizeof *mt))))
            mg[G_NOAGG] = 1;
        if (!err && d->npc) {
            mg[G_LO] = d->pc[0].fo;
            mg[G_HI] = d->pc[d->npc - 1].fo + d->pc[d->npc - 1].len;
        }
    }
    o->total = err ? 0 : total;
    mg[G_DESC] = (long long)(intptr_t)d;
    mg[G_ERR] = err;
    mg[G_TOTAL] = o->total;
    mg[G_NODE] = smap_job.node;
    int n = f->size;
    o->g = malloc((size_t)n * G_N * sizeof *o->g);
    o->peers = calloc((size_t)n, sizeof *o->peers);
    o->dom = calloc(2 * (size_t)n, sizeof *o->dom);
    o->remote = calloc((size_t)n, 1);
    o->aggr = calloc((size_t)n, sizeof *o->aggr);
    int rc = o->g && o->peers && o->dom && o->remote && o->aggr
                 ? c_gather(o)
                 : smap_failf(MPI_ERR_NO_MEM, "out of memory for the collective");
    if (rc) {   /* (only out of memory can differ between ranks here) */
        o->rc = rc;
        o->st = T_DONE;
        return;
    }
    o->st = T_PLAN;
}

/* The gathered numbers: errors, the path, the aggregators and domains. */
static void s_plan(struct tp_op *o)
{
    struct MPI_ABI_File *f = o->f;
    const long long *g = o->g;
    int anyerr = 0, noagg = 0, any = 0;
    MPI_Offset gmin = -1, gmax = 0;
    for (int r = 0; r < f->size; r++) {
        const long long *xr = g + r * G_N;
        anyerr |= xr[G_ERR] != 0;
        noagg |= xr[G_NOAGG] != 0;
        o->remote[r] = xr[G_NODE] != smap_job.node;
        if (xr[G_TOTAL]) {
            any = 1;
            if (gmin < 0 || xr[G_LO] < gmin)
                gmin = xr[G_LO];
            if (xr[G_HI] > gmax)
                gmax = xr[G_HI];
        }
    }
    if (anyerr) {
        agree(o, (int)o->mg[G_ERR], T_FINAL);
        return;
    }
    if (!any) {   /* nothing to move anywhere: every rank knows it */
        o->rc = MPI_SUCCESS;
        o->st = T_DONE;
        return;
    }
    const char *hint = o->write ? f->hints.romio_cb_write : f->hints.romio_cb_read;
    if (noagg || (strcmp(hint, "enable") && !smap_tp_interleaved(g, f->size))) {
        o->st = T_INDEP;
        return;
    }
    /* the aggregators: spread over the ranks on one node; across nodes
     * each node's lowest rank (in rank order) */
    int naggr = 0;
    if (!o->multi) {
        /* Reads on a node: every rank aggregates a domain unless the
         * program chose the aggregators.  A read's cost is the kernel's
         * copy out of the page cache, which runs in parallel on all the
         * ranks (reads take no lock of the file), straight into the ranks'
         * buffers (direct windows): 2 ranks on tmpfs read a 2-D subarray
         * 1.6x faster than one aggregator.  Writes keep cb_nodes (one): the
         * file system serialises buffered writes of one file (the inode
         * lock of tmpfs and ext4), so more writers only contend. */
        int na = !o->write && !f->hints.cb_given ? f->size
                                                 : smap_io_cb_nodes(f, f->hints.cb_nodes);
        for (int a = 0; a < na; a++)
            o->aggr[naggr++] = (int)((long long)a * f->size / na);
    } else {
        for (int r = 0; r < f->size; r++) {
            int first = 1;
            for (int q = 0; q < r && first; q++)
                first = g[q * G_N + G_NODE] != g[r * G_N + G_NODE];
            if (first)
                o->aggr[naggr++] = r;
        }
    }
    o->naggr = naggr;
    o->me = -1;
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
        o->dom[2 * o->aggr[a]] = lo;
        o->dom[2 * o->aggr[a] + 1] = hi > lo ? hi : lo;
        if (o->aggr[a] == f->rank)
            o->me = a;
    }
    if (o->multi) {   /* the rounds: the largest domain's windows */
        MPI_Offset cb = f->hints.cb_buffer_size;
        for (int a = 0; a < naggr; a++) {
            MPI_Offset len = o->dom[2 * o->aggr[a] + 1] - o->dom[2 * o->aggr[a]];
            long long w = (len + cb - 1) / cb;
            if (w > o->nrounds)
                o->nrounds = w;
        }
        o->wdom = calloc(2 * (size_t)f->size, sizeof *o->wdom);
        if (!o->wdom) {   /* (the MAX of the next step tells the others) */
            o->rc = smap_failf(MPI_ERR_NO_MEM, "out of memory for the collective");
            o->st = T_DONE;
            return;
        }
    }
    o->st = T_REACH;
}

static int eof_of(struct tp_op *o, int mine);

/* A collective write's bytes [lo, hi) are in the page cache: their
 * writeback starts now (sync_file_range, no wait), before the closing
 * agreement holds this rank until the slowest is done.  Without it, a
 * rank that finished first only waited there, and the MPI_File_sync that
 * usually follows began writing everything back after the last write:
 * 2 ranks writing 16 MiB blocks collectively then syncing on an ext
 * file took 17-20 ms against 12-13 ms independently (where the first
 * rank's fsync overlaps the other's write) and 10-13 ms with this.  A
 * page cache without writeback (tmpfs) ignores it. */
static void write_behind(struct tp_op *o, MPI_Offset lo, MPI_Offset hi)
{
    smap_io_write_behind(o->f, lo, hi - lo);
}

/* Between nodes, round o->round: every domain's window, the exchange of
 * its pieces started (or, after the last, the closing steps). */
static void s_round(struct tp_op *o)
{
    struct MPI_ABI_File *f = o->f;
    smap_tp_x_free(&o->x);
    if (o->round == o->nrounds) {
        int fin = o->me >= 0 ? smap_tp_agg_finish(&o->agg) : MPI_SUCCESS;
        int mine = o->mine ? o->mine : fin;
        if (!mine && o->write && o->me >= 0)
            write_behind(o, o->dom[2 * f->rank], o->dom[2 * f->rank + 1]);
        if (!o->write)
            mine = eof_of(o, mine);
        agree(o, mine, T_AGREED);
        return;
    }
    MPI_Offset cb = f->hints.cb_buffer_size;
    for (int r = 0; r < f->size; r++) {
        MPI_Offset lo = o->dom[2 * r] + o->round * cb, hi = o->dom[2 * r + 1];
        if (lo > hi)
            lo = hi;
        if (hi - lo > cb)
            hi = lo + cb;
        o->wdom[2 * r] = lo;
        o->wdom[2 * r + 1] = hi;
    }
    int rc = smap_tp_x_counts(f, o->d, o->wdom, o->remote, &o->x, c_a2a, o);
    if (rc) {
        o->rc = rc;
        o->st = T_DONE;
        return;
    }
    o->st = T_X_PIECES;
}

/* Round o->round's pieces are here: the aggregator's window, then (a
 * read) the data back. */
static void s_window(struct tp_op *o)
{
    struct MPI_ABI_File *f = o->f;
    smap_tp_x_descs(&o->x);
    if (o->me >= 0) {
        for (int r = 0; r < f->size; r++) {
            if (!o->remote[r])
                continue;
            struct tp_peer *p = &o->peers[r];
            const struct tp_desc *rd = o->x.rd[r].npc ? &o->x.rd[r] : NULL;
            p->d = rd;
            p->pc = rd ? rd->pc : NULL;
            p->delta = 0;
            p->lo = rd ? rd->pc[0].fo : 0;
            p->hi = rd ? rd->pc[rd->npc - 1].fo + rd->pc[rd->npc - 1].len : 0;
        }
        /* a failed window leaves the later ones alone; the rounds go on
         * (the others' exchanges need ours) and the class is agreed */
        MPI_Offset lo = o->wdom[2 * f->rank], hi = o->wdom[2 * f->rank + 1];
        if (!o->mine && hi > lo)
            o->mine = smap_tp_agg_window(&o->agg, lo, hi);
    }
    o->round++;
    if (!o->write) {
        int rc = smap_tp_x_back(&o->x, c_a2a, o);
        if (rc) {
            o->rc = rc;
            o->st = T_DONE;
            return;
        }
        o->st = T_X_PLACE;
        return;
    }
    o->st = T_ROUND;
}

/* Each rank's own access (access.c), then the agreement. */
static void s_indep(struct tp_op *o)
{
    int mine = o->bad;
    if (!mine)
        mine = smap_io_rw(o->f, o->write, o->off, o->buf, o->count, o->mt, &o->bytes);
    if (!mine && o->write)
        write_behind(o, o->mg[G_LO], o->mg[G_HI]);
    agree(o, mine, T_FINAL);
}

/* The aggregator's peers (its node's through SMARTMAP, the others' from
 * the messages), then whether every aggregator reached every peer. */
static void s_reach(struct tp_op *o)
{
    struct MPI_ABI_File *f = o->f;
    int cannot = 0;
    if (o->me >= 0) {
        for (int r = 0; r < f->size && !cannot; r++) {
            struct tp_peer *p = &o->peers[r];
            if (o->remote[r])   /* its pieces come by message, round by round */
                continue;
            int lr = smap_p2p_local_rank(smap_group_world_rank(f->c->group, r));
            cannot = smap_tp_reach(lr, o->g + r * G_N, p) != 0;
        }
    }
    int rc = c_max(o, cannot);
    if (rc) {
        o->rc = rc;
        o->st = T_DONE;
        return;
    }
    o->st = T_GO;
}

/* Reading: the end of file the ranks' counts stop at. */
static int eof_of(struct tp_op *o, int mine)
{
    struct stat st;
    if (fstat(o->f->fd, &st))
        return mine ? mine : smap_failf(MPI_ERR_IO, "fstat of %s failed", o->f->path);
    o->eof = st.st_size;
    return mine;
}

/* After the aggregators' windows: a read's data back (between nodes),
 * then the closing agreement. */
static void s_after_agg(struct tp_op *o, int mine)
{
    if (!mine && o->write && o->me >= 0)
        write_behind(o, o->dom[2 * o->f->rank], o->dom[2 * o->f->rank + 1]);
    if (!o->write)
        mine = eof_of(o, mine);
    agree(o, mine, T_AGREED);
}

/* The agreement after the two-phase steps: the bytes moved. */
static void s_agreed(struct tp_op *o)
{
    o->rc = agreed(o);
    o->st = T_DONE;
    if (o->rc)
        return;
    MPI_Count moved = o->total;
    const struct tp_desc *d = o->d;
    if (!o->write && o->total) {
        moved = 0;
        for (MPI_Count i = 0; i < d->npc; i++) {
            const struct tp_piece *c = &d->pc[i];
            if (c->fo + c->len <= o->eof) {
                moved += c->len;
                continue;
            }
            if (c->fo < o->eof)
                moved += o->eof - c->fo;
            break;
        }
    }
    o->bytes = moved;
    if (o->off < 0)
        o->f->fp += moved / o->f->v.esize;
}

/* Runs the steps that can run now: 1 when the access is complete (o->rc
 * its class), 0 when it waits for a collective or (nonblocking) yields
 * after one aggregator window. */
static int step(struct tp_op *o)
{
    for (;;) {
        if (o->rq) {
            if (!smap_req_ready(o->rq)) {
                smap_p2p_progress();   /* the schedules advance in progress */
                if (!smap_req_ready(o->rq))
                    return 0;
            }
            int rc = smap_req_finish(&o->rq, MPI_STATUS_IGNORE);
            o->rq = NULL;
            if (rc) {
                o->rc = coll_rc(rc);
                o->st = T_DONE;
            }
        }
        int rc;
        switch (o->st) {
        case T_START:
            s_start(o);
            break;
        case T_PLAN:
            s_plan(o);
            break;
        case T_INDEP:
            s_indep(o);
            break;
        case T_X_PIECES:
            if ((rc = smap_tp_x_pieces(o->write, o->d, o->wdom, &o->x, c_a2a, o))) {
                o->rc = rc;
                o->st = T_DONE;
            } else {
                o->st = T_X_DATA;
            }
            break;
        case T_X_DATA:
            o->st = T_X_DESCS;
            if (o->write && (rc = smap_tp_x_data(&o->x, c_a2a, o))) {
                o->rc = rc;
                o->st = T_DONE;
            }
            break;
        case T_X_DESCS:
            s_window(o);
            break;
        case T_ROUND:
            s_round(o);
            if (o->nb && o->st == T_X_PIECES && o->round)
                return 0;   /* a window per poll: the program computes meanwhile */
            break;
        case T_REACH:
            s_reach(o);
            break;
        case T_GO:
            if (o->cout[0]) {   /* some rank's memory is out of an aggregator's reach */
                o->st = T_INDEP;
                break;
            }
            rc = o->me < 0 ? MPI_SUCCESS
                           : smap_tp_agg_start(&o->agg, o->f, o->write, o->peers,
                                               o->dom[2 * o->f->rank],
                                               o->dom[2 * o->f->rank + 1]);
            if (o->multi) {   /* a failed start is agreed after the rounds */
                o->mine = rc;
                o->st = T_ROUND;
                break;
            }
            if (o->me < 0 || rc) {
                s_after_agg(o, rc);
                break;
            }
            o->st = T_AGG;
            break;
        case T_AGG:
            rc = smap_tp_agg_step(&o->agg);
            if (rc == 0) {   /* windows left: the program may compute meanwhile */
                if (o->nb)
                    return 0;
                break;
            }
            {
                int fin = smap_tp_agg_finish(&o->agg);
                s_after_agg(o, rc < 0 ? -rc : fin);
            }
            break;
        case T_X_PLACE:   /* (the end of file as it is now: the aggregators'
                           * reads of this round are done) */
            o->mine = eof_of(o, o->mine);
            smap_tp_x_place(o->d, o->eof, &o->x);
            o->st = T_ROUND;
            break;
        case T_AGREED:
            s_agreed(o);
            break;
        case T_FINAL:
            o->rc = agreed(o);
            o->st = T_DONE;
            break;
        case T_DONE:
            if (o->rc && !o->why[0])
                snprintf(o->why, sizeof o->why, "%s", smap_why());
            return 1;
        }
    }
}

/* ---- the file's queue of nonblocking accesses ---- */

static void q_add(struct tp_op *o)
{
    struct tp_op **p = (struct tp_op **)&o->f->nbq;
    while (*p)
        p = &(*p)->next;
    *p = o;
    o->queued = 1;
}

/* Steps of the oldest accesses: each one complete makes the next run. */
static void q_run(struct MPI_ABI_File *f)
{
    struct tp_op *h;
    while ((h = f->nbq) && step(h)) {
        h->queued = 0;
        f->nbq = h->next;
        h->next = NULL;
    }
}

/* Until o is complete (it, and the accesses before it, progress here). */
static void q_wait(struct tp_op *o)
{
    for (unsigned spins = 0; o->queued; spins++) {
        q_run(o->f);
        if (o->queued && spins > 64)
            sched_yield();   /* peers may share our core (D7) */
    }
}

static void op_free(struct tp_op *o)
{
    if (o->agg.wb[0])
        (void)smap_tp_agg_finish(&o->agg);
    smap_tp_x_free(&o->x);
    free(o->wdom);
    if (o->d)
        free(o->d->pc);
    free(o->d);
    free(o->g);
    free(o->peers);
    free(o->dom);
    free(o->remote);
    free(o->aggr);
    if (o->nb && o->mt)
        smap_dtype_release(o->mt);
    free(o);
}

static struct tp_op *op_new(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                            MPI_Count count, smap_dtype_t *mt, int bad, int nb)
{
    struct tp_op *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    *o = (struct tp_op){.f = f, .write = write, .nb = nb, .bad = bad, .off = off,
                        .buf = buf, .count = bad ? 0 : count, .mt = bad ? NULL : mt};
    if (nb && o->mt)
        smap_dtype_retain(o->mt);
    return o;
}

int smap_io_rw_all(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                   MPI_Count count, smap_dtype_t *mt, MPI_Count *bytes, int bad)
{
    *bytes = 0;
    for (struct tp_op *last = f->nbq; last; last = last->next)
        if (!last->next) {   /* the accesses in flight come first */
            q_wait(last);
            break;
        }
    struct tp_op *o = op_new(f, write, off, buf, count, mt, bad, 0);
    if (!o)   /* still the agreement every rank takes */
        return smap_io_agree(f, smap_failf(MPI_ERR_NO_MEM, "out of memory for the "
                                                             "collective"));
    while (!step(o))
        ;
    int rc = o->rc;
    *bytes = rc ? 0 : o->bytes;
    op_free(o);
    return rc;
}

/* ---- the request of a nonblocking collective access ---- */

static int poll_fn(void *arg)
{
    struct tp_op *o = arg;
    q_run(o->f);
    return !o->queued;
}

static int query_fn(void *arg, MPI_Status *st)
{
    struct tp_op *o = arg;
    smap_status_fill(st, MPI_ANY_SOURCE, MPI_ANY_TAG, (size_t)(o->rc ? 0 : o->bytes));
    if (o->rc)
        smap_failf(o->rc, "%s", o->why);
    return o->rc;
}

static int free_fn(void *arg)
{
    op_free(arg);
    return MPI_SUCCESS;
}

/* A rank whose arguments are wrong runs its steps through here: the
 * others' requests need them, and its call returns the class at once. */
static int run_bad(struct MPI_ABI_File *f, int write, MPI_Offset off, int bad)
{
    struct tp_op *o = op_new(f, write, off, NULL, 0, NULL, bad, 1);
    if (!o)
        return bad;
    q_add(o);
    q_wait(o);
    int rc = o->rc ? o->rc : bad;
    op_free(o);
    return rc;
}

/* A new op for a nonblocking access, its first steps run, or NULL. */
static struct tp_op *nb_start(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                              MPI_Count count, smap_dtype_t *mt)
{
    if (off < 0) {
        /* the individual pointer moves at the call, by the whole access */
        MPI_Count total;
        if (!__builtin_mul_overflow(count, smap_dtype_size(mt), &total) &&
            total % f->v.esize == 0) {
            off = f->fp;
            f->fp += total / f->v.esize;
        }
    }
    return op_new(f, write, off, buf, count, mt, 0, 1);
}

int smap_io_irw_all(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                    MPI_Count count, smap_dtype_t *mt, int bad, MPI_Request *req)
{
    if (bad)
        return run_bad(f, write, off, bad);
    struct tp_op *o = nb_start(f, write, off, buf, count, mt);
    int rc = o ? smap_greq_start_polled_query(poll_fn, query_fn, free_fn, o, req)
               : MPI_ERR_NO_MEM;
    if (o)
        q_add(o);
    if (!rc)   /* its errors at completion go to the file's handler */
        ((struct MPI_ABI_Request *)*req)->file = (MPI_File)f;
    if (rc) {   /* no request: the others' steps still need ours, done here */
        if (o) {
            q_wait(o);
            op_free(o);
        }
        return smap_failf(rc, "out of memory for the request");
    }
    /* the first steps now (when it is the oldest): the description
     * published, the gather started */
    q_run(f);
    return MPI_SUCCESS;
}

/* ---- split collectives: the op started at _begin, finished at _end ---- */

int smap_io_split_begin(struct MPI_ABI_File *f, int write, MPI_Offset off, void *buf,
                        MPI_Count count, smap_dtype_t *mt, int bad)
{
    if (bad)
        return run_bad(f, write, off, bad);
    struct tp_op *o = nb_start(f, write, off, buf, count, mt);
    if (!o)
        return smap_io_rw_all(f, write, off, buf, count, mt, &f->split_bytes,
                              smap_failf(MPI_ERR_NO_MEM, "out of memory for the split "
                                                          "collective"));
    q_add(o);
    q_run(f);
    f->split_op = o;
    return MPI_SUCCESS;
}

int smap_io_split_finish(struct MPI_ABI_File *f)
{
    struct tp_op *o = f->split_op;
    if (!o)
        return MPI_SUCCESS;
    q_wait(o);
    f->split_op = NULL;
    f->split_bytes = o->rc ? 0 : o->bytes;
    int rc = o->rc;
    char why[200];
    snprintf(why, sizeof why, "%s", o->why);
    op_free(o);
    return rc ? smap_failf(rc, "%s", why) : MPI_SUCCESS;
}
