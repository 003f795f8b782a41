/* Two-phase collective I/O inside src/io (DESIGN.md D15): the pieces of
 * the ranks' accesses, the aggregators' windows, the exchange between
 * nodes, shared by twophase.c (descriptions, domains, windows),
 * exchange.c (between nodes) and collective.c (the steps of one
 * collective access, blocking or driven by a request's polls). */
#ifndef SMAP_IO_TWOPHASE_H
#define SMAP_IO_TWOPHASE_H

#include <stdint.h>

#include "io/io.h"

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

/* The gathered part: per rank, these numbers. */
enum { G_DESC, G_LO, G_HI, G_ERR, G_TOTAL, G_NOAGG, G_NODE, G_N };

/* A peer's description as this aggregator reaches it. */
struct tp_peer {
    const struct tp_desc *d;   /* translated */
    const struct tp_piece *pc; /* translated */
    intptr_t delta;            /* add to the peer's data addresses */
    MPI_Offset lo, hi;
};

/* The file intervals the pieces of one window cover. */
struct ivals {
    struct tp_piece *v;   /* fo, len used */
    MPI_Count n, cap;
    int oom;
};

/* ---- twophase.c ---- */
/* Whether [p, p + len) lies in this rank's exposed regions / its heap. */
int smap_tp_exposed(const void *p, size_t len);
int smap_tp_in_heap(const void *p, size_t len);
/* The pieces of stream bytes [s0, s0 + total) of the view: 0, -1 out of
 * memory, 1 when they do not advance through the file. */
int smap_tp_build_pieces(struct MPI_ABI_File *f, MPI_Offset s0, MPI_Offset total,
                         struct tp_desc *d);
/* The first piece that ends after file offset at. */
MPI_Count smap_tp_first_after(const struct tp_piece *pc, MPI_Count n, MPI_Offset at);
/* A node peer's description (g: its gathered numbers) through smap_remote. */
int smap_tp_reach(int lr, const long long *g, struct tp_peer *p);
/* Whether the ranks' file ranges interleave. */
int smap_tp_interleaved(const long long *g, int n);

/* One piece of a window read straight into a rank's memory (preadv). */
struct tp_dio {
    MPI_Offset fo, len;
    char *p;
};

/* The aggregator's walk over its file domain, one window of
 * cb_buffer_size at a time.  While a window's file write runs (io_uring
 * when there is one) the next window is gathered into the other buffer. */
struct tp_agg {
    struct MPI_ABI_File *f;
    int write;
    struct tp_peer *peers;
    MPI_Offset dlo, dhi, cb, wlo;
    size_t wlen[2];          /* their mapped lengths (a pooled one may be larger) */
    struct tp_dio *dio;      /* a read's pieces straight into the ranks' buffers */
    MPI_Count ndio, capdio;
    char *wb[2];             /* two window buffers (double buffering) */
    int cur;                 /* the buffer the next window goes into */
    struct ivals iv;
    void *pending;           /* the write in flight (io_uring), or NULL */
    char *pbuf;              /* ... its bytes, length and file offset */
    MPI_Offset plen, poff;
};
/* 0: ready (or nothing to do); a class: out of memory. */
int smap_tp_agg_start(struct tp_agg *a, struct MPI_ABI_File *f, int write,
                      struct tp_peer *peers, MPI_Offset dlo, MPI_Offset dhi);
/* One window: 1 when the domain is done, 0 when windows are left, or -class. */
int smap_tp_agg_step(struct tp_agg *a);
/* Between nodes: window [wlo, whi) of the domain (at most cb_buffer_size),
 * with the peers' pieces of this round; 0 or a class. */
int smap_tp_agg_window(struct tp_agg *a, MPI_Offset wlo, MPI_Offset whi);
/* Waits for a write in flight, frees the buffers; the first class of it. */
int smap_tp_agg_finish(struct tp_agg *a);

/* ---- exchange.c: between nodes, the pieces of other nodes' domains
 * travel by alltoallv (p2p underneath); the aggregator treats each
 * sender's message as one more rank's description. ---- */
struct tp_x {
    int n;                       /* ranks */
    MPI_Count *c;                /* counts and displacements, 8 arrays of n */
    MPI_Count *cnt, *c16;        /* the first exchange: counts per pair */
    struct tp_piece *spc, *rpc;  /* pieces sent / received (so: offset in the data) */
    char *sdata, *rdata;
    MPI_Count snp, rnp, sbytes, rbytes;
    struct tp_desc *rd;          /* received descriptions, one per sender */
};
void smap_tp_x_free(struct tp_x *x);
/* The exchange in steps, each ending with one alltoallv (started by
 * start(), an argument of the caller's: blocking or not). */
struct smap_a2a;
typedef int (*smap_tp_a2a_fn)(void *arg, const void *sb, MPI_Count *sc, MPI_Count *sd,
                              void *rb, MPI_Count *rc, MPI_Count *rd);
/* 1: the counts of every pair. */
int smap_tp_x_counts(struct MPI_ABI_File *f, const struct tp_desc *d, const MPI_Offset *dom,
                     const char *remote, struct tp_x *x, smap_tp_a2a_fn a2a, void *arg);
/* 2: the pieces (and their data, writing: the data's a2a follows). */
int smap_tp_x_pieces(int write, const struct tp_desc *d,
                     const MPI_Offset *dom, struct tp_x *x, smap_tp_a2a_fn a2a, void *arg);
int smap_tp_x_data(struct tp_x *x, smap_tp_a2a_fn a2a, void *arg);
/* 3: one description per sender. */
void smap_tp_x_descs(struct tp_x *x);
/* Reading, after the aggregators: the data back, then into place. */
int smap_tp_x_back(struct tp_x *x, smap_tp_a2a_fn a2a, void *arg);
void smap_tp_x_place(const struct tp_desc *d, MPI_Offset eof, struct tp_x *x);

#endif
