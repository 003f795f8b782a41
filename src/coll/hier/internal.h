/* Shared by the hierarchical collectives (src/coll/hier/README.md). */
#ifndef SMAP_COLL_HIER_INTERNAL_H
#define SMAP_COLL_HIER_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "base/tunables.h"
#include "coll/hier/hier.h"
#include "coll/nbc/nbc.h"
#include "coll/smap/cb.h"

/* One per communicator spanning nodes (c->hier). */
struct smap_hier {
    int usable;         /* 0: the hierarchy does not apply (one node, build failed) */
    smap_comm_t *node;  /* the objects behind them (lead NULL off the leaders) */
    smap_comm_t *lead;
    int nnodes;         /* nodes c spans */
    int *node_of;       /* rank in c -> node index (the leaders' order) */
    int *local_of;      /* rank in c -> its rank in its node's sub-communicator */
    int *leader_of;     /* node index -> rank in c of its leader */
    int contiguous;     /* every node holds one range of c's ranks */
    int *node_start;    /* node index -> its first entry in rank_at (nnodes + 1 entries) */
    int *rank_at;       /* ranks of c grouped by node, in node order within each */
};

/* Rank in c of member `local` (its rank in the node) of node x. */
static inline int hier_rank_at(const struct smap_hier *h, int x, int local)
{
    return h->rank_at[h->node_start[x] + local];
}

/* Members of node x. */
static inline int hier_node_size(const struct smap_hier *h, int x)
{
    return h->node_start[x + 1] - h->node_start[x];
}

/* c's node map, local (no communication): node_of and local_of by rank
 * in c, leader_of by node (c->size entries each, caller's); nodes
 * numbered in the order of their lowest rank.  0, or -1 out of memory. */
int hier_map_nodes(smap_comm_t *c, int *node_of, int *local_of, int *leader_of, int *nnodes,
                   int *contiguous);

static inline int hier_is_leader(const struct smap_hier *h)
{
    return h->node->rank == 0;
}

/* Whether op keeps its result when its operands are reordered. */
int hier_commutative(MPI_Op op);

/* The on-node phase on the node sub-communicator: the control-block
 * algorithms when it has a block, its schedules otherwise. */
int hier_node_bcast(struct smap_hier *h, void *buf, MPI_Count count, smap_dtype_t *t, int root);
int hier_node_reduce(struct smap_hier *h, const void *sbuf, void *rbuf, MPI_Count count,
                     smap_dtype_t *t, MPI_Datatype type, MPI_Op op, int root);
int hier_node_barrier(struct smap_hier *h);
/* One message on the node sub-communicator (a schedule): every member
 * calls it. */
int hier_node_move(struct smap_hier *h, void *buf, MPI_Count count, smap_dtype_t *t, int from,
                   int to);

/* The on-node phase of a node of one rank: its own block copied to
 * displ (elements of rt) in rbuf, nothing for MPI_IN_PLACE. */
int hier_node_self(struct smap_hier *h, const void *sbuf, MPI_Count scount, smap_dtype_t *st,
                   void *rbuf, MPI_Count count, MPI_Count displ, smap_dtype_t *rt);

/* The on-node allgather(v) into rbuf: counts and displs (elements of rt)
 * by rank in the node. */
int hier_node_allgatherv(struct smap_hier *h, const void *sbuf, MPI_Count scount,
                         smap_dtype_t *st, void *rbuf, const MPI_Count *counts,
                         const MPI_Count *displs, smap_dtype_t *rt);

/* The on-node gather (scatter) of v blocks at root (rank in the node):
 * counts and displacements by rank in the node, in elements of the
 * root's type (read at the root only). */
int hier_node_gatherv(struct smap_hier *h, const void *sbuf, MPI_Count scount, smap_dtype_t *st,
                      void *rbuf, const MPI_Count *cnt, const MPI_Count *dsp, smap_dtype_t *rt,
                      int root);
int hier_node_scatterv(struct smap_hier *h, const void *sbuf, const MPI_Count *cnt,
                       const MPI_Count *dsp, smap_dtype_t *st, void *rbuf, MPI_Count rcount,
                       smap_dtype_t *rt, int root);

/* The messages between the root of a rooted collective (Gather(v),
 * Scatter(v)) and the leaders of the other nodes, as one schedule on c
 * that every member runs (empty on most, so that c's schedule numbers stay
 * equal everywhere): at_root(s, arg) builds the root's part,
 * at_leader(s, arg) a leader's off the root's node (gather.c). */
typedef void hier_side_fn(struct smap_sched *s, void *arg);
int hier_root_leaders(struct smap_hier *h, smap_comm_t *c, int root, hier_side_fn *at_root,
                      hier_side_fn *at_leader, void *arg);

/* Gatherv's and Scatterv's groups (gatherv.c, nbc_gatherv.c): a node's
 * blocks cross between its leader and the root in groups of consecutive
 * members (node order) of at most SMAP_COLL_HIER_CHUNK bytes, at least one
 * member, one message each; the root and the leader both know the sizes
 * and cut the same groups.  The end of the group that starts at member j,
 * from the members' sizes in bytes; and a group's bytes. */
static inline int hier_group_end(const MPI_Count *bytes, int k, int j)
{
    MPI_Count room = (MPI_Count)smap_tun.coll_hier_chunk, sum = bytes[j++];
    while (j < k && sum + bytes[j] <= room)
        sum += bytes[j++];
    return j;
}

static inline MPI_Count hier_group_bytes(const MPI_Count *bytes, int j, int e)
{
    MPI_Count sum = 0;
    while (j < e)
        sum += bytes[j++];
    return sum;
}

/* Starts a built schedule of the inter-node phase (frees it when a build
 * step ran out of memory). */
int hier_launch(struct smap_sched *s, MPI_Request *req);
/* Runs a built schedule to completion (blocking collectives); frees it
 * and fails with `oom` when building it ran out of memory. */
int hier_run(struct smap_sched *s, const char *oom);

/* Waits for a request of the inter-node phase, driving progress. */
int hier_wait(MPI_Request *req);
/* Drives progress until *flag (moved by a callback of the schedule behind
 * req) reaches want, or req is complete (the schedule ended, perhaps
 * failed: hier_wait then says how).  req stays valid. */
void hier_wait_until(MPI_Request req, const _Atomic int *flag, int want);

/* Scratch for count elements of t in t's layout (the pointer is where
 * element 0 goes); *base is what to free.  NULL when out of memory. */
void *hier_tmp(MPI_Count count, smap_dtype_t *t, void **base);

/* Element `index` of a buffer of type t. */
static inline void *hier_at(const void *buf, MPI_Count index, smap_dtype_t *t)
{
    return (void *)((uintptr_t)buf + (uintptr_t)(index * t->extent));
}

/* Elements per pipeline chunk (SMAP_COLL_HIER_CHUNK, at least one). */
MPI_Count hier_chunk(smap_dtype_t *t);


/* A pipelined collective over count elements of t in hier_chunk(t)
 * chunks (pipeline.c): front(arg, start, len, req) runs chunk [start,
 * start+len)'s on-node phase and starts its inter-node phase (*req, or
 * MPI_REQUEST_NULL off the leaders); back(arg, ...) (may be NULL) runs
 * after that request completed, while the next chunk's front has already
 * run.  Stops at the first failure. */
struct hier_pipe {
    int (*front)(void *arg, MPI_Count start, MPI_Count len, MPI_Request *req);
    int (*back)(void *arg, MPI_Count start, MPI_Count len);
    void *arg;
};
int hier_pipeline(const struct hier_pipe *p, MPI_Count count, smap_dtype_t *t);
/* The same over count units in chunks of ce units (Gather and Scatter:
 * members of a node). */
int hier_pipeline_n(const struct hier_pipe *p, MPI_Count count, MPI_Count ce);

/* The binomial tree of n members rooted at member 0 (the nodes, counted
 * from the root's, in the trees of Bcast, Ibcast and the rails): member
 * v's mask is the lowest set bit of v (v > 0: its parent is v - mask), or
 * the first power of two >= n for the root; its children are v + m for
 * the powers of two m < mask with v + m < n. */
static inline int hier_tree_mask(int v, int n)
{
    int mask = 1;
    while (mask < n && !(v & mask))
        mask <<= 1;
    return mask;
}

/* Rails (rails.c): the inter-node phase on every rank of a node.  Their
 * number (the members of the smallest node), and where piece q of p
 * starts in len elements (piece q: [lo(q), lo(q+1))). */
int hier_rails_width(const struct smap_hier *h);
MPI_Count hier_piece_lo(MPI_Count len, int q, int p);
/* Bcast on rails, in hier_chunk chunks (pipelined). */
int hier_bcast_rails(struct smap_hier *h, smap_comm_t *c, void *buf, MPI_Count count,
                     smap_dtype_t *t, int root);

/* The inter-node allreduce among the leaders, in place in buf, started
 * (*req) with the algorithm chosen by size and node count (reduce.c). */
int hier_lead_allreduce(struct smap_hier *h, void *buf, MPI_Count count, smap_dtype_t *t,
                        MPI_Datatype type, MPI_Op op, MPI_Request *req);

/* Whether an allgather(v) of `total` elements of rt in all takes the
 * rails (SMAP_COLL_HIER_ALLGATHER_RAILS_MIN), and Iallgather(v) on rails:
 * allgather.c's three phases as one schedule on c (a non-blocking start:
 * the node map computed locally, on-node messages instead of the control
 * blocks). */
int hier_allgather_rails(MPI_Count total, smap_dtype_t *rt);
int hier_iallgather_rails(const void *sbuf, MPI_Count scount, smap_dtype_t *st, void *rbuf,
                          MPI_Count rcount, struct smap_cvec rcounts, struct smap_cvec displs,
                          smap_dtype_t *rt, smap_comm_t *c, MPI_Request *req);

/* The leaders' allreduce of buf (in place; rank order kept except by the
 * ring, which takes commutative ops only) among n members, this one the
 * r-th, appended to s: recursive doubling, Rabenseifner or the ring by
 * size and n (reduce.c); member v is rank ranks[v] of s's communicator
 * (ranks NULL: v itself); tmp: scratch for count elements. */
void hier_add_lead_allreduce(struct smap_sched *s, int n, int r, const int *ranks, void *buf,
                             MPI_Count count, smap_dtype_t *t, MPI_Datatype type, MPI_Op op,
                             void *tmp);

/* ---- the node-aware schedules of the non-blocking forms (nbc*.c) ---- */

/* c's node map in a schedule's scratch (computed locally: a
 * non-blocking start must not wait for other ranks), and this rank's node
 * members in node order (members[0]: the leader). */
struct hier_imap {
    int nn, contiguous, *node_of, *local_of, *leader_of;
    int k, *members;
};

/* A new schedule on c with c's node map: MPI_SUCCESS, an error class, or
 * SMAP_HIER_FLAT when c is on one node (*s NULL then). */
int hier_nb_start(smap_comm_t *c, struct smap_sched **s, struct hier_imap *m);

/* Builds a collective of `count` elements of t and launches s (*req):
 * whole on s, or, when it spans more than one hier_chunk(t) chunk, one
 * lane per chunk (smap_sched_lanes: chunk k follows chunk k-1 through
 * every phase, so the on-node phase of one chunk overlaps the inter-node
 * phase of the one before, as pipeline.c does for the blocking forms).
 * build(lane, m, start, len, arg) adds chunk [start, start+len) to lane;
 * it must not keep m past its return. */
typedef void hier_lane_fn(struct smap_sched *s, const struct hier_imap *m, MPI_Count start,
                          MPI_Count len, void *arg);
int hier_nb_chunked(struct smap_sched *s, const struct hier_imap *m, MPI_Count count,
                    smap_dtype_t *t, hier_lane_fn *build, void *arg, MPI_Request *req);
/* The same over count units in chunks of ce units (Igather and Iscatter:
 * members of a node). */
int hier_nb_chunked_n(struct smap_sched *s, const struct hier_imap *m, MPI_Count count,
                      MPI_Count ce, hier_lane_fn *build, void *arg, MPI_Request *req);

/* Ranks of node x (kx of them, in node order) into out (caller's, kx). */
int hier_nb_node_ranks(const struct hier_imap *m, int p, int x, int *out);

/* A block of a rank at the hub of its node: where it lands (node gather)
 * or where it is taken from (release). */
struct hier_blk {
    const void *buf;
    MPI_Count count;
    smap_dtype_t *t;
};
/* member j's block at the hub (j: index in m->members). */
typedef struct hier_blk hier_slot_fn(int j, void *arg);

/* Node gather to the hub (a member of this node, usually the leader):
 * every other member sends `mine` to it, the hub receives member j's where
 * slot(j, arg) says.  Release from the hub: the hub sends member j
 * slot(j, arg), every other member receives into `mine`.  Both end the
 * round, so what follows sees the blocks moved. */
void hier_nb_to_hub(struct smap_sched *s, const struct hier_imap *m, int me, int hub,
                    struct hier_blk mine, hier_slot_fn *slot, void *arg);
void hier_nb_from_hub(struct smap_sched *s, const struct hier_imap *m, int me, int hub,
                      struct hier_blk mine, hier_slot_fn *slot, void *arg);
/* The same for the members j in [lo, hi) only (a chunk of a rooted
 * collective's lanes: the others take no part). */
void hier_nb_to_hub_range(struct smap_sched *s, const struct hier_imap *m, int me, int hub,
                          struct hier_blk mine, hier_slot_fn *slot, void *arg, int lo, int hi);
void hier_nb_from_hub_range(struct smap_sched *s, const struct hier_imap *m, int me, int hub,
                            struct hier_blk mine, hier_slot_fn *slot, void *arg, int lo, int hi);

/* Ialltoallv and Ialltoallw (nbc_alltoallv.c; the blocking forms wait
 * for it): the gateway scheme of alltoall.c, the gateways' sizes learnt
 * inside the schedule.  SMAP_HIER_FLAT with one rank per node or on one
 * node. */
int hier_ialltoallv(const struct smap_a2a *a, smap_comm_t *c, MPI_Request *req);

#endif
