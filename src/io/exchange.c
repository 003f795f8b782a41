/* Two-phase collective I/O between nodes (D15): each rank sends the pieces
 * of its access that lie in another node's file domain, with their data
 * when writing, to that node's aggregator: three alltoallv over the file's
 * communicator (counts; piece lists; data), p2p underneath; on-node pairs
 * send nothing (the aggregator reaches its node's ranks through SMARTMAP).
 * The aggregator treats each incoming message as one more rank's
 * description (its pieces, the data in the message).  A read sends the
 * data back with a fourth alltoallv and each rank copies it into place
 * (bytes past the end of file left untouched).
 *
 * The steps are cut at each alltoallv, which the caller runs through a
 * function of its own (collective.c: blocking, or started and completed
 * by a request's polls). */
#include <stdlib.h>
#include <string.h>

#include "dtype/engine.h"
#include "io/twophase.h"

void smap_tp_x_free(struct tp_x *x)
{
    free(x->c);
    free(x->cnt);
    free(x->c16);
    free(x->spc);
    free(x->rpc);
    free(x->sdata);
    free(x->rdata);
    free(x->rd);
    memset(x, 0, sizeof *x);
}

/* My pieces in domain [lo, hi): [*i0, *i1) of d->pc. */
static void in_domain(const struct tp_desc *d, MPI_Offset lo, MPI_Offset hi, MPI_Count *i0,
                      MPI_Count *i1)
{
    MPI_Count i = smap_tp_first_after(d->pc, d->npc, lo), j = i;
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

/* The arrays of x->c: pieces and bytes sent / received per rank, then
 * displacements and byte counts of the current exchange. */
#define SNP(x) ((x)->c)
#define SBY(x) ((x)->c + (x)->n)
#define RNP(x) ((x)->c + 2 * (x)->n)
#define RBY(x) ((x)->c + 3 * (x)->n)
#define SD(x) ((x)->c + 4 * (x)->n)
#define RD(x) ((x)->c + 5 * (x)->n)
#define SC(x) ((x)->c + 6 * (x)->n)
#define RC(x) ((x)->c + 7 * (x)->n)

int smap_tp_x_counts(struct MPI_ABI_File *f, const struct tp_desc *d, const MPI_Offset *dom,
                     const char *remote, struct tp_x *x, smap_tp_a2a_fn a2a, void *arg)
{
    int n = f->size;
    x->n = n;
    x->c = calloc(8 * (size_t)n, sizeof *x->c);
    /* counts: 2 per pair (pieces, bytes), as 16-byte blocks */
    x->cnt = malloc(4 * (size_t)n * sizeof *x->cnt);
    x->c16 = malloc(2 * (size_t)n * sizeof *x->c16);
    if (!x->c || !x->cnt || !x->c16)
        return smap_failf(MPI_ERR_NO_MEM, "out of memory for the exchange");
    MPI_Count *snp = SNP(x), *sby = SBY(x);
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
    for (int a = 0; a < n; a++) {
        x->cnt[2 * a] = snp[a];
        x->cnt[2 * a + 1] = sby[a];
        x->c16[a] = 16;
        x->c16[n + a] = 16 * (MPI_Count)a;
    }
    return a2a(arg, x->cnt, x->c16, x->c16 + n, x->cnt + 2 * n, x->c16, x->c16 + n);
}

int smap_tp_x_pieces(int write, const struct tp_desc *d,
                     const MPI_Offset *dom, struct tp_x *x, smap_tp_a2a_fn a2a, void *arg)
{
    int n = x->n;
    MPI_Count *snp = SNP(x), *sby = SBY(x), *rnp = RNP(x), *rby = RBY(x);
    MPI_Count *sd = SD(x), *rd = RD(x), *sc = SC(x), *rcn = RC(x);
    for (int a = 0; a < n; a++) {
        rnp[a] = x->cnt[2 * n + 2 * a];
        rby[a] = x->cnt[2 * n + 2 * a + 1];
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
    MPI_Count sp = 0, rp = 0;
    for (int a = 0; a < n; a++) {
        sd[a] = sp * (MPI_Count)sizeof(struct tp_piece);
        sc[a] = snp[a] * (MPI_Count)sizeof(struct tp_piece);
        rd[a] = rp * (MPI_Count)sizeof(struct tp_piece);
        rcn[a] = rnp[a] * (MPI_Count)sizeof(struct tp_piece);
        sp += snp[a];
        rp += rnp[a];
    }
    return a2a(arg, x->spc, sc, sd, x->rpc, rcn, rd);
}

/* The data displacements (after the pieces' exchange). */
static void data_displs(struct tp_x *x)
{
    MPI_Count sb = 0, rb = 0;
    for (int a = 0; a < x->n; a++) {
        SD(x)[a] = sb;
        RD(x)[a] = rb;
        sb += SBY(x)[a];
        rb += RBY(x)[a];
    }
}

int smap_tp_x_data(struct tp_x *x, smap_tp_a2a_fn a2a, void *arg)
{
    data_displs(x);
    return a2a(arg, x->sdata, SBY(x), SD(x), x->rdata, RBY(x), RD(x));
}

void smap_tp_x_descs(struct tp_x *x)
{
    data_displs(x);
    MPI_Count pp = 0;
    for (int r = 0; r < x->n; r++) {
        x->rd[r] = (struct tp_desc){.data = x->rdata + RD(x)[r], .pc = x->rpc + pp,
                                    .npc = RNP(x)[r], .total = RBY(x)[r]};
        pp += RNP(x)[r];
    }
}

int smap_tp_x_back(struct tp_x *x, smap_tp_a2a_fn a2a, void *arg)
{
    /* the aggregator sends what it received (rby), the rank receives sby */
    return a2a(arg, x->rdata, RBY(x), RD(x), x->sdata, SBY(x), SD(x));
}

void smap_tp_x_place(const struct tp_desc *d, MPI_Offset eof, struct tp_x *x)
{
    for (MPI_Count k = 0, db = 0; k < x->snp; k++) {
        const struct tp_piece *c = &x->spc[k];
        if (k && c->so == 0)
            db = x->spc[k - 1].so + x->spc[k - 1].len + db;   /* next aggregator's message */
        MPI_Offset len = c->fo + c->len <= eof ? c->len : eof - c->fo;
        if (len <= 0)
            continue;
        /* the piece's stream offset: where it lies in d's pieces */
        MPI_Count i = smap_tp_first_after(d->pc, d->npc, c->fo);
        mem_io(d, 1, x->sdata + db + c->so, d->pc[i].so + (c->fo - d->pc[i].fo), len);
    }
}
