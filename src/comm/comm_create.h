/* Communicator construction: how the members of a new communicator agree
 * on a context id and a collectives control block (comm_agree.c), split
 * (comm_split.c), build intercommunicators (inter_create.c) and duplicate
 * without blocking (comm_idup.c).  src/binding checks the arguments of the
 * MPI_Comm_* / MPI_Intercomm_* entry points and calls these; src/topo's
 * constructors and the Sessions constructors use the agreement directly.
 * Every function raises its errors on the parent's handler (func names the
 * MPI function) and returns the code. */
#ifndef SMAP_COMM_COMM_CREATE_H
#define SMAP_COMM_COMM_CREATE_H

#include <mpi.h>
#include <stdint.h>

#include "coll/coll.h"
#include "mpi/comm.h"
#include "mpi/group.h"

/* What the members of a new communicator agreed on. */
struct smap_comm_ids {
    int ctx, slot;
    uint64_t step;   /* where the slot's step counters start */
};

/* Collective over parent: a context id and a control block free on every
 * member of parent (attempts of an MPI_BAND allreduce of the free masks and
 * an MPI_MAX of the claims and the slot's step counters; other threads may
 * agree at the same time).  MPI_SUCCESS or the raised error. */
int smap_comm_agree(struct MPI_ABI_Comm *parent, struct smap_comm_ids *ids, const char *func);

/* The same among the members of g (a subgroup of parent's) only, over
 * point-to-point: for MPI_Comm_create_group, and for parents without a
 * control block.  Returns ids->ctx < 0 when no id is free. */
void smap_comm_agree_p2p(struct MPI_ABI_Comm *parent, const struct MPI_ABI_Group *g, int tag,
                         struct smap_comm_ids *ids);

/* One member's offer in an agreement across an intercommunicator. */
struct smap_comm_offer {
    uint32_t mask[SMAP_CTX_WORDS + 1];   /* free ids, then free control blocks */
    uint32_t offered;                    /* 0: another thread's agreement has the offer */
    uint64_t step[SMAP_COLL_NSLOTS];
};
/* Fills o with this thread's offer under key; returns whether this rank
 * offered (smap_comm_ctx_offer, mpi/comm.h). */
int smap_comm_offer_mine(struct smap_comm_offer *o, uint64_t key);
/* Folds x into o: AND of the masks and of `offered`, maximum of the steps. */
void smap_comm_offer_fold(struct smap_comm_offer *o, const struct smap_comm_offer *x);

/* The communicator of group g (reference taken over) for this member:
 * claims the slot and stores the new handle.  MPI_SUCCESS or the raised
 * error. */
int smap_comm_make(struct MPI_ABI_Comm *parent, struct MPI_ABI_Group *g,
                   const struct smap_comm_ids *ids, MPI_Comm *newcomm, const char *func);

/* A duplicate of c (same group(s), new context; the virtual topology
 * kept), without attributes or hints yet. */
int smap_comm_dup_bare(struct MPI_ABI_Comm *c, MPI_Comm *newcomm, const char *func);

/* MPI_Comm_create once g is known to be a subgroup of c's (local) group. */
int smap_comm_create(struct MPI_ABI_Comm *c, struct MPI_ABI_Group *g, MPI_Comm *newcomm,
                     const char *func);

/* MPI_Comm_split(_type) once color is checked, on intra- and
 * intercommunicators. */
int smap_comm_split(struct MPI_ABI_Comm *c, int color, int key, MPI_Comm *newcomm,
                    const char *func);

/* The members of g whose color (ck: color, key pairs by rank of g) is
 * `color`, ordered by (key, rank); NULL when out of memory. */
struct MPI_ABI_Group *smap_comm_color_group(const struct MPI_ABI_Group *g, const int *ck,
                                            int color);

/* MPI_Comm_idup(_with_info) once the arguments are checked: the schedule
 * started as *request, the handle written to *newcomm when it completes. */
int smap_comm_idup(struct MPI_ABI_Comm *c, MPI_Info info, int with_info, MPI_Comm *newcomm,
                   MPI_Request *request, const char *func);

/* ---- intercommunicators (inter_create.c) ---- */

/* MPI_Intercomm_create once local_comm (lc, an intracommunicator) and
 * local_leader are checked; peer_comm, remote_leader and tag are checked
 * at the local leader, which tells its group. */
int smap_inter_create(struct MPI_ABI_Comm *lc, int local_leader, MPI_Comm peer_comm,
                      int remote_leader, int tag, MPI_Comm *newintercomm, const char *func);

/* MPI_Intercomm_create's agreement with the leaders talking over
 * MPI_COMM_WORLD's internal context (ctx + SMAP_CTX_MAX) with an internal
 * tag: MPI_Intercomm_create_from_groups, whose local group is lc's.
 * remote_world (the remote leader's job rank) and tag matter at the local
 * leader only. */
/* For src/spawn (DESIGN D17): the intercommunicator between lc's group
 * and the processes of another job it just learned (p2p ranks from
 * smap_job.size on).  The leaders talk over MPI_COMM_WORLD's context: the
 * local leader (lc rank local_leader) reaches the other leader as
 * remote_world and is known there as me_there; `seen` (at the leader
 * only) holds, by lc rank, how the other job numbers lc's members.  The
 * group-local steps of the handshake: lgather (every member's `bytes` at
 * root, in rank order) and lbcast. */
int smap_inter_create_foreign(struct MPI_ABI_Comm *lc, int local_leader, int remote_world,
                              int me_there, const int *seen, int tag, MPI_Comm *newintercomm,
                              const char *func);
int smap_comm_lgather(struct MPI_ABI_Comm *lc, int root, const void *mine, size_t bytes, void *all);
int smap_comm_lbcast(struct MPI_ABI_Comm *lc, int root, void *buf, size_t bytes);

int smap_inter_create_over_world(struct MPI_ABI_Comm *lc, int local_leader, int remote_world,
                                 int tag, MPI_Comm *newintercomm, const char *func);

/* MPI_Intercomm_merge of the intercommunicator c. */
int smap_inter_merge(struct MPI_ABI_Comm *c, int high, MPI_Comm *newintracomm, const char *func);

/* A new intercommunicator with c's groups (no attributes yet). */
int smap_inter_dup(struct MPI_ABI_Comm *c, MPI_Comm *newcomm, const char *func);

/* MPI_Comm_split on an intercommunicator: the members of each group with
 * one color form the local group, the remote members with that color the
 * remote group; MPI_COMM_NULL for MPI_UNDEFINED or an empty side.
 * MPI_Comm_create is the split with color 0 for the members of its group,
 * ordered as in it. */
int smap_inter_split(struct MPI_ABI_Comm *c, int color, int key, MPI_Comm *newcomm,
                     const char *func);

/* Registers what the layers below need from this one (start.c): the
 * hierarchy's sub-communicators, the destroy and teardown hooks.  Called
 * by MPI_Init and MPI_Session_init before they start the runtime;
 * idempotent. */
void smap_comm_layer_start(void);
/* The Sessions model's constructors (comm_from_group.c): every argument
 * checked there, errors raised on the handler given, in F's name. */
int smap_comm_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                         MPI_Errhandler errhandler, MPI_Comm *newcomm, const char *F);
int smap_inter_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                           int remote_leader, const char *stringtag, MPI_Info info,
                           MPI_Errhandler errhandler, MPI_Comm *newintercomm, const char *F);
/* MPI_Session_init: its checks (errors on the handler given), this
 * layer's start, the session; raises its own errors in F's name. */
int smap_comm_session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session,
                           const char *F);
/* The hierarchy's sub-communicators' maker (hier_comms.c). */
const struct smap_hier_comms *smap_comm_hier_comms(void);

/* ---- comm_dup.c: MPI_Comm_dup(_with_info), MPI_Comm_create (group a
 * subset of c's) and MPI_Comm_free, with the hints and the attributes'
 * callbacks; raised on the parent's (the freed communicator's) handler. ---- */
int smap_comm_dup(struct MPI_ABI_Comm *c, MPI_Comm *newcomm, const char *func);
int smap_comm_dup_with_info(struct MPI_ABI_Comm *c, MPI_Info info, MPI_Comm *newcomm,
                            const char *func);
int smap_comm_create_sub(struct MPI_ABI_Comm *c, struct MPI_ABI_Group *g, MPI_Comm *newcomm,
                         const char *func);
int smap_comm_free(MPI_Comm *comm, struct MPI_ABI_Comm *c, const char *func);

/* ---- comm_entry.c: the entry points' checks beyond the arguments' kinds
 * (color, split type, group members, tag, leaders), then the construction;
 * raised on c's handler. ---- */
int smap_comm_split_color(struct MPI_ABI_Comm *c, int color, int key, MPI_Comm *newcomm,
                          const char *func);
int smap_comm_split_type(struct MPI_ABI_Comm *c, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm, const char *func);
int smap_comm_create_group(struct MPI_ABI_Comm *c, struct MPI_ABI_Group *g, int tag,
                           MPI_Comm *newcomm, const char *func);
int smap_inter_create_checked(struct MPI_ABI_Comm *lc, int local_leader, MPI_Comm peer_comm,
                              int remote_leader, int tag, MPI_Comm *newintercomm,
                              const char *func);

/* ---- topo_create.c: the topology constructors (c an intracommunicator,
 * the output pointer checked); raised on c's handler. ---- */
int smap_topo_cart_create(struct MPI_ABI_Comm *c, int ndims, const int dims[],
                          const int periods[], MPI_Comm *comm_cart, const char *func);
/* c has a Cartesian topology. */
int smap_topo_cart_sub(struct MPI_ABI_Comm *c, const int remain_dims[], MPI_Comm *newcomm,
                       const char *func);
int smap_topo_graph_create(struct MPI_ABI_Comm *c, int nnodes, const int index[],
                           const int edges[], MPI_Comm *comm_graph, const char *func);
int smap_topo_dist_graph_adjacent(struct MPI_ABI_Comm *c, int indegree, const int sources[],
                                  const int sourceweights[], int outdegree,
                                  const int destinations[], const int destweights[],
                                  MPI_Info info, MPI_Comm *comm_dist_graph, const char *func);
int smap_topo_dist_graph(struct MPI_ABI_Comm *c, int n, const int sources[], const int degrees[],
                         const int destinations[], const int weights[], MPI_Info info,
                         MPI_Comm *comm_dist_graph, const char *func);

#endif
