/* The intra-node transport (DESIGN.md D5; seeds 001 section 3.2): one
 * single-producer single-consumer queue per (sender, receiver) pair, living
 * in the RECEIVER's control region and written by the sender through its
 * view of that region.  No atomic read-modify-write anywhere: every cell
 * has a sequence word that the sender sets (release) after filling the
 * cell, and the receiver publishes how many cells it has consumed (release)
 * every few cells, in a word the sender reads only when it runs out of
 * credit.
 *
 * Cell kinds:
 *   EAGER  header + the whole (packed) payload (inline or in the cell's slot)
 *   RTS    rendezvous descriptor: the address and length of the sender's
 *          contiguous buffer, and the index of a completion word in the
 *          SENDER's control region that the receiver raises when done
 *          (SMAP_SHM_DONE), when it wants the data streamed (SMAP_SHM_CTS),
 *          or, for large messages, when it asks the sender to copy the
 *          second half into the receive buffer itself (SMAP_SHM_SPLIT: both
 *          cores copy at once; the sender answers SMAP_SHM_HALF)
 *   FRAG   one fragment of a streamed (pipelined bounce) message, keyed by
 *          the sender's completion word index, with its stream offset
 * The receiver consumes its queues round-robin (fairness for wildcard
 * receives).  Everything here is inline: it is the fast path. */
#ifndef SMAP_SHM_SHM_H
#define SMAP_SHM_SHM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/compiler.h"
#include "smap/smap.h"

enum { SMAP_SHM_EAGER = 1, SMAP_SHM_RTS = 2, SMAP_SHM_FRAG = 3 };
/* Cell flags. */
enum {
    SMAP_SHM_F_SYNC = 1,       /* EAGER: raise the completion word on match */
    SMAP_SHM_F_NONCONTIG = 2,  /* RTS: sender's data is not one block: stream it */
    SMAP_SHM_F_MOVABLE = 4,    /* RTS: the sender may move the data (SMAP_SHM_MOVED) */
    /* RTS, who copies a large message (SMAP_P2P_TO_HUB / _FROM_HUB): the
     * receiver is a hub with many such messages, so the idle sender copies
     * all of it (a split at 0); the sender is the hub: the receiver copies
     * all of it (no split) */
    SMAP_SHM_F_PUSH = 8,
    SMAP_SHM_F_PULL = 16,
};
/* Completion word values (written by the receiver, read by the sender). */
enum {
    SMAP_SHM_PENDING = 0,
    SMAP_SHM_DONE = 1,    /* receiver: finished with the sender's buffer */
    SMAP_SHM_CTS = 2,     /* receiver: stream the message to me */
    SMAP_SHM_SPLIT = 3,   /* receiver: copy [split, end) of it to dst yourself */
    SMAP_SHM_HALF = 4,    /* sender: my part of a split copy is done */
    /* SMAP_SHM_F_MOVABLE only, each set by compare-and-swap from PENDING
     * (the one race of the protocol: who goes first decides): */
    SMAP_SHM_CLAIMED = 5, /* receiver: I am reading your buffer, keep it */
    SMAP_SHM_MOVED = 6,   /* sender: the data is now at word.dst (a heap copy) */
};

/* A cell is one cache line: the header and up to SMAP_SHM_INLINE bytes of
 * payload, so a small message costs one line transfer and consecutive
 * messages use consecutive lines (one page for the whole queue: no TLB
 * misses).  Larger payloads go to the cell's slot in a separate array. */
#define SMAP_SHM_NCELLS 64u
#define SMAP_SHM_HDR_BYTES 32u
#define SMAP_SHM_INLINE 32u
#define SMAP_SHM_SLOT_BYTES 8192u
#define SMAP_SHM_PAYLOAD SMAP_SHM_SLOT_BYTES
/* Completion words: one cache line each, after the barrier bytes. */
#define SMAP_SHM_WORD_STRIDE 64u
#define SMAP_SHM_NWORDS ((unsigned)((SMAP_CTL_FIXED - SMAP_CTL_BARRIER_BYTES) / SMAP_SHM_WORD_STRIDE))

struct smap_shm_cell {
    _Atomic uint32_t seq;    /* n + 1 once message n of the queue is in it */
    uint8_t kind, flags;
    uint16_t pad;
    int32_t ctx, src, tag;   /* context id, sender's rank in that context */
    uint32_t word;           /* sender's completion word (RTS, SYNC, FRAG) */
    uint64_t len;            /* EAGER/FRAG: payload bytes; RTS: message bytes */
    unsigned char data[SMAP_SHM_INLINE];  /* small payload; RTS: address; FRAG: offset */
};
_Static_assert(offsetof(struct smap_shm_cell, data) == SMAP_SHM_HDR_BYTES, "cell header size");
_Static_assert(sizeof(struct smap_shm_cell) == 64, "a cell is one cache line");

#define SMAP_SHM_SLOTS_OFF ((size_t)SMAP_SHM_NCELLS * sizeof(struct smap_shm_cell))

/* memcpy of an eager payload: the few bytes of the common small message
 * are moved inline instead of through a call to the C library's
 * dispatcher, which costs more than the copy itself.  Below 8 bytes, bytes
 * one by one (measured faster in ping-pong here than 4-byte moves); 8 to
 * 16 bytes, two possibly overlapping 8-byte moves (no byte outside
 * [src, src+n) is touched). */
static inline void smap_shm_copy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else if (n <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else {
        memcpy(d, s, n);
    }
}

/* Where the payload of `len` bytes of cell c (of the queue at base) lives. */
static inline unsigned char *smap_shm_payload(struct smap_shm_cell *base, struct smap_shm_cell *c,
                                              size_t len)
{
    if (len <= SMAP_SHM_INLINE)
        return c->data;
    return (unsigned char *)base + SMAP_SHM_SLOTS_OFF + (size_t)(c - base) * SMAP_SHM_SLOT_BYTES;
}

/* Fragments: the offset inline, the data in the slot. */
static inline unsigned char *smap_shm_slot(struct smap_shm_cell *base, struct smap_shm_cell *c)
{
    return (unsigned char *)base + SMAP_SHM_SLOTS_OFF + (size_t)(c - base) * SMAP_SHM_SLOT_BYTES;
}

/* A prefetch for writing: the line comes in exclusive, so the stores into
 * it do not wait for the other core to give it up.  GCC turns
 * __builtin_prefetch(p, 1) into a read prefetch (a shared copy: the store
 * still waits for the upgrade) unless the target has PRFCHW; the
 * instruction itself exists on every x86-64 (AMD since K6-2; older Intel
 * cores execute it as a NOP), so it is spelled out there. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define SMAP_SHM_PREFETCHW(p) __asm__ volatile("prefetchw %0" : : "m"(*(const char *)(p)))
#else
#define SMAP_SHM_PREFETCHW(p) SMAP_PREFETCH_WRITE(p)
#endif

/* After the cells: how far the receiver has consumed.  Written by the
 * receiver every SMAP_SHM_CREDIT_STEP cells (not per cell: the sender
 * reads it only when it believes the queue is full), so that a small
 * message costs one cache-line transfer, not two. */
struct smap_shm_qctl {
    _Alignas(64) _Atomic uint32_t consumed;
};
#define SMAP_SHM_CREDIT_STEP 16u
/* How many cells ahead the sender claims lines (smap_shm_post). */
#define SMAP_SHM_PREFETCH 4u
#define SMAP_SHM_QCTL_OFF (SMAP_SHM_SLOTS_OFF + (size_t)SMAP_SHM_NCELLS * SMAP_SHM_SLOT_BYTES)
_Static_assert(SMAP_SHM_QCTL_OFF + sizeof(struct smap_shm_qctl) <= SMAP_CTL_PER_PEER,
               "queue outgrew ctl");
_Static_assert((SMAP_SHM_NCELLS & (SMAP_SHM_NCELLS - 1)) == 0, "cell count is a power of two");

struct smap_shm_word {
    _Atomic uint32_t v;
    uint32_t pad0;
    /* SMAP_SHM_SPLIT: the receiver's buffer (its address) and the range of
     * the message the sender copies into it (written before v, release). */
    uint64_t dst, split, end;
    char pad[SMAP_SHM_WORD_STRIDE - 32];
};
_Static_assert(sizeof(struct smap_shm_word) == SMAP_SHM_WORD_STRIDE, "word size");

/* Bytes in a FRAG cell's payload. */
#define SMAP_SHM_FRAG_PAYLOAD SMAP_SHM_SLOT_BYTES

/* Local (private) state of one peer connection. */
struct smap_shm_peer {
    struct smap_shm_cell *out;   /* our queue in the peer's region (via view) */
    struct smap_shm_cell *in;    /* the peer's queue in our region */
    struct smap_shm_word *words; /* the peer's completion words (via view) */
    struct smap_shm_qctl *out_ctl, *in_ctl;
    uint32_t head;               /* messages we have put into `out` */
    uint32_t credit;             /* last `consumed` we read from out_ctl */
    uint32_t tail;               /* messages we have consumed from `in` */
};

/* Sets up the connection table (after smap_init).  0, or -1 when a peer's
 * control region is not mapped. */
int smap_shm_init(struct smap_shm_peer *peers, int nlocal, int me);
/* Connects p to the process of another job at our spare index idx, which
 * knows us at its index `theirs` (its control region mapped at idx by
 * smap_peers_attach_at).  0, or -1 when a region is too small. */
int smap_shm_connect(struct smap_shm_peer *p, int idx, int theirs);
/* This rank's own completion words. */
struct smap_shm_word *smap_shm_my_words(void);

/* The next free outgoing cell to peer p, or NULL when the queue is full. */
static inline struct smap_shm_cell *smap_shm_out_cell(struct smap_shm_peer *p)
{
    if (SMAP_UNLIKELY(p->head - p->credit >= SMAP_SHM_NCELLS)) {
        /* Acquire: the receiver is done reading the cells it counted. */
        p->credit = atomic_load_explicit(&p->out_ctl->consumed, memory_order_acquire);
        if (p->head - p->credit >= SMAP_SHM_NCELLS)
            return NULL;
    }
    return &p->out[p->head % SMAP_SHM_NCELLS];
}

/* Publishes the cell obtained from smap_shm_out_cell (header and payload
 * written). */
static inline void smap_shm_post(struct smap_shm_peer *p, struct smap_shm_cell *c)
{
    p->head++;
    atomic_store_explicit(&c->seq, p->head, memory_order_release);
}

/* After smap_shm_post, when more messages are likely to follow at once
 * (nonblocking sends, stream fragments): asks for ownership of a cell a
 * little ahead now.  Stores commit in order, so a cell line still held by
 * the receiver's cache would otherwise stall every store behind it for a
 * whole line transfer (message rate: x1.5 to x3 here).  Not after a lone
 * blocking send: in a ping-pong the extra line transfer only competes
 * with the one the receiver waits for. */
static inline void smap_shm_prefetch_next(struct smap_shm_peer *p)
{
    SMAP_SHM_PREFETCHW(&p->out[(p->head + SMAP_SHM_PREFETCH) % SMAP_SHM_NCELLS]);
}

/* The next incoming cell from peer p, or NULL when none. */
static inline struct smap_shm_cell *smap_shm_in_cell(struct smap_shm_peer *p)
{
    struct smap_shm_cell *c = &p->in[p->tail % SMAP_SHM_NCELLS];
    if (atomic_load_explicit(&c->seq, memory_order_acquire) != p->tail + 1)
        return NULL;
    return c;
}

/* Returns the consumed cell to the sender. */
static inline void smap_shm_release(struct smap_shm_peer *p, struct smap_shm_cell *c)
{
    (void)c;
    p->tail++;
    if (p->tail % SMAP_SHM_CREDIT_STEP == 0)
        atomic_store_explicit(&p->in_ctl->consumed, p->tail, memory_order_release);
}

/* Receiver: raises the sender's completion word `w`. */
static inline void smap_shm_signal(struct smap_shm_peer *p, uint32_t w, uint32_t value)
{
    atomic_store_explicit(&p->words[w].v, value, memory_order_release);
}

#endif
