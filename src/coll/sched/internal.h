/* The schedule's representation, shared by sched.c (engine) and pool.c
 * (allocation).  Not for use outside src/coll/sched. */
#ifndef SMAP_COLL_SCHED_INTERNAL_H
#define SMAP_COLL_SCHED_INTERNAL_H

#include <mpi.h>
#include <stddef.h>

#include "coll/sched/sched.h"
#include "mpi/op.h"
#include "p2p/p2p.h"

enum sched_op_kind { OP_SEND = 1, OP_RECV, OP_COPY, OP_REDUCE, OP_CB };

/* One operation.  Never moves once allocated: the point-to-point layer
 * keeps a pointer to preq while the message is in flight. */
struct sched_op {
    struct smap_preq preq;   /* OP_SEND, OP_RECV */
    int kind, peer, posted;
    int remote;              /* OP_SEND, OP_RECV: peer is in c's remote group */
    int mode;                /* OP_SEND: smap_p2p_mode (0: standard) */
    const void *in;          /* send/recv buffer (recv: written), copy/reduce source */
    /* a message placed and sized at run time (smap_sched_send_late):
     * buffer *late_buf + *late_off bytes, *late_n elements; NULL: in, n1 */
    char *const *late_buf;
    const MPI_Count *late_off, *late_n;
    void *out;               /* copy destination, reduce inout */
    MPI_Count n1, n2;
    smap_dtype_t *t1, *t2;   /* one reference each (derived types) */
    MPI_Datatype type;       /* reduce: the handle the op is called with */
    MPI_Op op;
    struct MPI_ABI_Op *opobj;   /* one reference */
    smap_sched_fn *fn;
    void *arg;
};

/* Operations come from chunks owned by the schedule. */
#define SCHED_CHUNK 32
struct sched_chunk {
    struct sched_chunk *next;
    int used;
    struct sched_op ops[SCHED_CHUNK];
};

/* A scratch block: header, then the data (max_align_t aligned). */
struct sched_tmp {
    struct sched_tmp *next;
    size_t cap;
    max_align_t data[];
};

struct smap_sched {
    struct MPI_ABI_Comm *c;
    struct smap_sched *next;        /* in the active list */
    struct MPI_ABI_Request *req;    /* NULL: blocking run */
    /* operations in order; round r is ops[round_start[r] .. round_start[r+1]) */
    struct sched_op **ops;
    int nops, ops_cap;
    int *round_start;               /* nrounds + 1 entries */
    int nrounds, rounds_cap;
    struct sched_chunk *chunks;     /* every chunk, in order */
    struct sched_chunk *cur;        /* the one being filled */
    struct sched_tmp *tmps;
    /* state */
    int round, round_started, done, err;
    int pos, posted_round;          /* next local step of the round; messages posted */
    int tag, rtag, ctx;             /* rtag: messages to/from the remote group */
    /* lanes (smap_sched_lanes): a schedule with lanes has no operations of
     * its own; each lane runs its round r once `gate` (the lane before)
     * has completed round r */
    struct smap_sched **lanes;
    int nlanes;
    struct smap_sched *gate;
};

/* pool.c: schedules, operations and scratch come from caches refilled by
 * freed schedules, so a loop of collectives does not call the allocator. */
struct smap_sched *sched_pool_get(void);
void sched_pool_put(struct smap_sched *s);
struct sched_op *sched_op_alloc(struct smap_sched *s);   /* zeroed, appended to the round */
int sched_add_round(struct smap_sched *s);                /* 0, or -1: out of memory */
void *sched_tmp_alloc(struct smap_sched *s, size_t bytes);

#endif
