/* Internal interface of the SMARTMAP collectives (src/coll/smap/).
 *
 * Every rank owns, per communicator, a control block ("slot") in its
 * collectives region (smap_coll_region(): always shared with the node's
 * ranks, whatever SMAP_EXPOSE says).  A slot is
 *   [0, 4 KiB)   header: four cells carrying the rank's step and inline data
 *   two halves   each = descriptor area + payload (inline data, bounce
 *                chunks, reduction accumulators)
 * A collective is a sequence of steps.  Step t: a rank writes what peers
 * need (descriptor, packed data) into its half t%2, publishes t in its
 * header, and waits until every peer published >= t (csm_sync).  Data of
 * step t is read by peers after sync t and is not overwritten before sync
 * t+1 has completed (the next write into that half belongs to step t+2),
 * so consecutive chunks pipeline through the two halves.  User buffers a
 * peer reads or writes directly stay valid because such collectives end
 * with one more sync.  All ranks of a communicator make the same number of
 * syncs per collective: every count that decides it is known to all (or is
 * published in step one's descriptors).
 *
 * Rooted steps may wait for fewer peers (csm_sync_some: a bcast's
 * receivers wait for the root only, the root for nobody).  Then "all peers
 * are done with my step t-2 data" no longer follows from the last sync, so
 * every write into a half is preceded by csm_prepare(), which waits for
 * every peer to have published the step before the one being written (a
 * no-op after a full sync: a rank can run at most one step ahead).
 *
 * The step rules, all together:
 *   1. a rank publishes every step, in order, in cell step%CSM_NCELLS;
 *   2. a reader uses the data of a peer's step t (cell, half) only after
 *      acquiring "published t" and before publishing t+1 itself;
 *   3. a writer rewrites a half (step t+2) only after every peer published
 *      t+1 (csm_prepare), a cell (step t+CSM_NCELLS) only after every peer
 *      published t+1 (csm_prepare_cell);
 *   4. user buffers peers access directly stay valid until a closing sync.
 * Fast paths (bcast.c's cell bcast, reduce.c's tiny replicated vectors,
 * alltoall.c's wide cells)
 * keep them: they differ from the generic engine only in what they skip,
 * and every rank takes them or not from values all ranks share (byte
 * count, communicator size, SMAP_COLL_ALGO). */
#ifndef SMAP_COLL_SMAP_CSM_H
#define SMAP_COLL_SMAP_CSM_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "coll/coll.h"
#include "coll/smap/cb.h"
#include "dtype/engine.h"
#include "smap/remote.h"

/* WORLD slot 0, SELF slot 1, the rest for user communicators, allocated at
 * their creation (smap_coll_slots_free / smap_coll_slot_claim). */
#define CSM_NSLOTS SMAP_COLL_NSLOTS
#define CSM_SLOT_BYTES (SMAP_COLL_REGION_SIZE / CSM_NSLOTS)
#define CSM_HDR_BYTES ((size_t)4096)
#define CSM_HALF_BYTES ((CSM_SLOT_BYTES - CSM_HDR_BYTES) / 2)
#define CSM_DESC_BYTES ((size_t)16 << 10)
#define CSM_PAY_BYTES (CSM_HALF_BYTES - CSM_DESC_BYTES)  /* 64-byte multiple */
/* Elements a threaded fold handles at a time: the accumulator of one chunk
 * is written by the first input's copy and then read and rewritten once
 * per further input, so it must stay in the core's L2 (512 KiB on the
 * machines we measure) next to the input streams.  With 1 MiB chunks a
 * 4 MiB two-rank MPI_Reduce moved ~5 bytes per result byte through memory,
 * with 64 KiB ~3. */
#define CSM_FOLD_BYTES ((size_t)64 << 10)

/* The header: CSM_NCELLS "cells", one cache line each, then the wide
 * cells (below).  Step t is
 * published in cell t%CSM_NCELLS (seq = t, release) together with up to
 * CSM_CELL_BYTES of data written into the same line before it, so a peer
 * that sees the step has the data too: one line transfer, no separate
 * "arrived" and "data" lines.  Every step is published, in order, and seq
 * of cell p only ever holds steps = p (mod CSM_NCELLS), increasing, so
 * "rank i has published t or more" is exactly cell[t%CSM_NCELLS].seq >= t
 * and a waiter polls one line.
 * Readers use the data of step t only between seeing t and publishing
 * t+1.  So a cell's meta and data are rewritten (step t+CSM_NCELLS) only
 * after every peer published t+1 (csm_prepare_cell): with four cells a
 * writer that knows its peers reached its own step (`seen`) may write
 * three more cells without reading any peer line, where two cells made it
 * read one before every write.  The halves still alternate (csm_prepare
 * before writing one: every peer published the step before).  Storing
 * seq alone never disturbs a reader (data untouched, seq compared with
 * >=). */
#define CSM_NCELLS 4
#define CSM_CELL_BYTES ((size_t)48)
struct csm_cell {
    _Alignas(64) _Atomic uint64_t seq;
    uint64_t meta;                                  /* xfer.c: flags | rounds << 8 */
    _Alignas(16) unsigned char data[CSM_CELL_BYTES];  /* 16: any predefined type */
};
/* The wide cells: the rest of the header, CSM_WIDE_LINES lines per cell
 * (the lines of step t go with cell t%CSM_NCELLS and follow its reuse
 * rule), each line carrying CSM_WLINE_BYTES of data and the step that
 * wrote them, stored after them (release).  A reader waits for every line
 * it needs to show the step, polling them all in one pass, so that blocks
 * of a few hundred bytes cost one round of parallel line transfers, where
 * a payload read after the cell's step costs a second, serial one
 * (alltoall.c's wide path). */
#define CSM_WIDE_LINES 15
#define CSM_WLINE_BYTES ((size_t)56)
struct csm_wline {
    _Alignas(64) unsigned char data[CSM_WLINE_BYTES];
    _Atomic uint64_t seq;
};
struct csm_hdr {
    struct csm_cell cell[CSM_NCELLS];
    struct csm_wline wide[CSM_NCELLS][CSM_WIDE_LINES];
};
_Static_assert(sizeof(struct csm_wline) == 64, "a wide line is one cache line");
_Static_assert(sizeof(struct csm_hdr) <= CSM_HDR_BYTES, "the cells fit the header");
_Static_assert(sizeof(struct csm_cell) == 64, "a cell is one cache line");

/* What a rank publishes at the first step of a collective. */
enum { CSM_F_STAGED = 1u, CSM_F_DIRECT_OK = 2u, CSM_F_CMA = 4u };
/* A step-one cell meta written by a path other than xfer.c's (alltoall's
 * wide lines, the reductions), with its bytes in the high 32 bits
 * (saturated): a rank on xfer.c's path that reads one knows the ranks
 * took different paths (issue 36). */
#define CSM_META_OTHER 32u
/* The low bits of a step-one cell of a rank on a rooted push (gather.c,
 * scatter.c), so that a rank on the pull learns it and follows the root's
 * path, or takes the steps the root's path takes.  (The reductions use
 * 64 and 128 alone: reduce.c.) */
#define CSM_META_PUSH (CSM_META_OTHER | 64u | 128u)
static inline int csm_meta_is_push(uint64_t meta)
{
    return (meta & CSM_META_PUSH) == CSM_META_PUSH;
}
static inline uint64_t csm_meta_other(uint64_t bytes, unsigned low)
{
    return (bytes < 0xffffffffu ? bytes : 0xffffffffu) << 32 | CSM_META_OTHER | low;
}
struct csm_blk {
    uint64_t addr, bytes;   /* a dense block in the owner's address space */
};
struct csm_desc {
    uint64_t flags;
    uint64_t in, out;       /* reductions: buffer base addresses */
    struct csm_blk blk[];   /* transfers: one per destination (or one: same) */
};
/* The last line of half 0's descriptor area says whether the rank has
 * left for MPI_Finalize (ctlblock.c: a peer waiting for a step of ours
 * then stops the job instead of hanging). */
#define CSM_WREC_BYTES ((size_t)64)
struct csm_wrec {
    _Alignas(64) _Atomic uint64_t on;   /* UINT64_MAX: gone to MPI_Finalize */
    char pad[56];
};
_Static_assert(sizeof(struct csm_wrec) == CSM_WREC_BYTES, "a record is one line");
#define CSM_MAX_RANKS                                                                      \
    ((int)((CSM_DESC_BYTES - CSM_WREC_BYTES - sizeof(struct csm_desc)) / sizeof(struct csm_blk)))

/* Per-communicator state of this rank (allocated once per communicator). */
struct csm_comm {
    int n, me;
    int *lr;              /* node-local rank of each comm rank */
    char **slot;          /* local address of each comm rank's slot */
    uint64_t step;        /* last step this rank published */
    uint64_t seen;        /* every peer is known to have published this step */
    MPI_Count *disp;      /* n+1 scratch counts (reduce_scatter offsets) */
    unsigned char *flag;  /* n scratch flags (each source's step-one decision) */
};

/* The state of communicator c, or an error class (comm spans nodes, no
 * memory) with smap_why() set. */
int csm_get(smap_comm_t *c, struct csm_comm **out);
/* A peer's step-one cell shows that it took another path through the
 * collective than ours (its size chose it: counts differ between the
 * ranks) where going on could write into its memory at an address it did
 * not publish for us: stops the job with a message naming the collective
 * (D18: "or the job stops"). */
_Noreturn void csm_diverged(const struct csm_comm *s, int peer);

static inline char *csm_half(const struct csm_comm *s, int i, uint64_t step)
{
    return s->slot[i] + CSM_HDR_BYTES + (size_t)(step & 1) * CSM_HALF_BYTES;
}
static inline struct csm_desc *csm_desc(const struct csm_comm *s, int i, uint64_t step)
{
    return (struct csm_desc *)(void *)csm_half(s, i, step);
}
static inline char *csm_pay(const struct csm_comm *s, int i, uint64_t step)
{
    return csm_half(s, i, step) + CSM_DESC_BYTES;
}
static inline struct csm_cell *csm_cell(const struct csm_comm *s, int i, uint64_t step)
{
    return &((struct csm_hdr *)(void *)s->slot[i])->cell[step % CSM_NCELLS];
}
/* The first wide line of comm rank i's step `step`. */
static inline struct csm_wline *csm_wide(const struct csm_comm *s, int i, uint64_t step)
{
    return ((struct csm_hdr *)(void *)s->slot[i])->wide[step % CSM_NCELLS];
}
/* Waits until comm rank i has published step t or more (the cell's data
 * and everything i wrote before step t are visible then).  0, or
 * MPI_ERR_OTHER when a peer died. */
int csm_wait_slow(const struct csm_comm *s, int i, uint64_t t);
static inline int csm_wait(const struct csm_comm *s, int i, uint64_t t)
{
    _Atomic uint64_t *seq = &csm_cell(s, i, t)->seq;
    if (SMAP_LIKELY(atomic_load_explicit(seq, memory_order_acquire) >= t))
        return MPI_SUCCESS;
    return csm_wait_slow(s, i, t);
}
/* The same for every peer (nothing read when s->seen says so already). */
int csm_wait_all(struct csm_comm *s, uint64_t t);
/* Publishes the next step (release: our cell's data, descriptor and
 * payload of that step become visible with it); returns it. */
static inline uint64_t csm_publish(struct csm_comm *s)
{
    uint64_t t = ++s->step;
    atomic_store_explicit(&csm_cell(s, s->me, t)->seq, t, memory_order_release);
    return t;
}
/* Set when this process waits for a peer's step to read what it wrote
 * while that peer waits for nobody: a rooted collective's receiver (bcast,
 * scatter) or a reduce root (smap_coll_consumed_take: the node barrier's
 * hint, to leave after its producers).  Symmetric steps (csm_sync: each
 * rank both writes and reads) and waits that only make sure peers are
 * done with our cells (csm_prepare*) do not count: there every rank waits
 * for every other, and leaving in any order costs the same. */
extern _Atomic int csm_consumed;
static inline void csm_consume(void)
{
    atomic_store_explicit(&csm_consumed, 1, memory_order_relaxed);
}
/* Publishes the next step and waits for comm rank `who` to reach it
 * (CSM_ALL: everyone; CSM_NONE, or ourselves: nobody).  0, or
 * MPI_ERR_OTHER when a peer died. */
enum { CSM_ALL = -1, CSM_NONE = -2 };
static inline int csm_sync_some(struct csm_comm *s, int who)
{
    uint64_t t = csm_publish(s);
    if (who == CSM_ALL)
        return csm_wait_all(s, t);
    if (who >= 0 && who != s->me) {
        csm_consume();
        return csm_wait(s, who, t);
    }
    return MPI_SUCCESS;
}
/* Publishes the next step and waits for every peer to reach it. */
static inline int csm_sync(struct csm_comm *s)
{
    return csm_sync_some(s, CSM_ALL);
}
/* Before writing the next step's data into our half: every peer has
 * published the current step (so it is done with what that half held). */
static inline int csm_prepare(struct csm_comm *s)
{
    return s->seen >= s->step ? MPI_SUCCESS : csm_wait_all(s, s->step);
}
/* Before writing the next step's cell only (data <= CSM_CELL_BYTES, no
 * half): every peer has published the step after the one that cell held.
 * When a peer line must be read, `seen` is raised as far as the peers
 * show, so that the next writes read none. */
int csm_catch_up(struct csm_comm *s, uint64_t need);
static inline int csm_prepare_cell(struct csm_comm *s)
{
    uint64_t need = s->step + 2 > CSM_NCELLS ? s->step + 2 - CSM_NCELLS : 0;
    return s->seen >= need ? MPI_SUCCESS : csm_catch_up(s, need);
}
/* The step a header shows as published (the largest of its cells). */
static inline uint64_t csm_hdr_step(struct csm_hdr *h)
{
    uint64_t m = 0;
    for (int k = 0; k < CSM_NCELLS; k++) {
        uint64_t v = atomic_load_explicit(&h->cell[k].seq, memory_order_acquire);
        m = v > m ? v : m;
    }
    return m;
}
/* The step the next csm_sync publishes: where to write its data. */
static inline uint64_t csm_next(const struct csm_comm *s)
{
    return s->step + 1;
}

/* Local address of comm rank i's [addr, addr+len), or NULL. */
static inline void *csm_view(const struct csm_comm *s, int i, uint64_t addr, size_t len)
{
    return smap_remote_inline(s->lr[i], (const void *)(uintptr_t)addr, len);
}
/* Whether peers can load/store [p, p+len) of ours through their views. */
int csm_exposed(const void *p, size_t len);
/* Whether peers may read or write our memory with CMA (SMAP_COPY allows it
 * and the start-up probe found it working). */
int csm_cma_ok(void);

/* Layout helpers for (count, t) buffers. */
static inline MPI_Count csm_span(const smap_dtype_t *t, MPI_Count n)
{
    return n > 0 ? (n - 1) * t->extent + t->true_extent : 0;
}
/* The first byte of n elements at buf (true lower bound). */
static inline const char *csm_lo(const void *buf, const smap_dtype_t *t)
{
    return (const char *)buf + t->true_lb;
}
/* Dense start of a contiguous (count, t) buffer (a predefined type's is
 * the buffer itself: no call on the small collectives' path). */
static inline char *csm_dense(const void *buf, smap_dtype_t *t)
{
    return (char *)buf + ((t->flags & SMAP_DT_PREDEF) ? 0 : smap_dtype_data_offset(t));
}

#endif
