/* Shared by the communicator constructors (comm_create.c, comm_split.c). */
#ifndef SMAP_BINDING_COMM_CREATE_H
#define SMAP_BINDING_COMM_CREATE_H

#include <mpi.h>
#include <stdint.h>

#include "coll/coll.h"
#include "mpi/comm.h"
#include "mpi/group.h"

/* What the members of a new communicator agreed on. */
struct comm_ids {
    int ctx, slot;
    uint64_t step;   /* where the slot's step counters start */
};

/* Collective over parent: a context id and a control block free on every
 * member of parent (one MPI_BAND allreduce of the free masks, one MPI_MAX of
 * the slot's step counters).  MPI_SUCCESS or the raised error. */
int comm_agree(struct MPI_ABI_Comm *parent, struct comm_ids *ids, const char *func);

/* The same among the members of g (a subgroup of parent's) only, over
 * point-to-point: for MPI_Comm_create_group, and for parents without a
 * control block.  Returns ids->ctx < 0 when no id is free. */
void comm_agree_p2p(struct MPI_ABI_Comm *parent, const struct MPI_ABI_Group *g, int tag,
                    struct comm_ids *ids);

/* One member's offer in an agreement over point-to-point (comm_group.c)
 * or across an intercommunicator (intercomm.c); comm_group.c. */
struct comm_offer {
    uint32_t mask[SMAP_CTX_WORDS + 1];   /* free ids, then free control blocks */
    uint32_t offered;                    /* 0: another thread's agreement has the offer */
    uint64_t step[SMAP_COLL_NSLOTS];
};
/* Fills o with this thread's offer under key; returns whether this rank
 * offered (smap_comm_ctx_offer, mpi/comm.h). */
int comm_offer_mine(struct comm_offer *o, uint64_t key);
/* Folds x into o: AND of the masks and of `offered`, maximum of the steps. */
void comm_offer_fold(struct comm_offer *o, const struct comm_offer *x);

/* The communicator of group g (reference taken over) for this member:
 * claims the slot and stores the new handle.  MPI_SUCCESS or the raised
 * error. */
int comm_make(struct MPI_ABI_Comm *parent, struct MPI_ABI_Group *g, const struct comm_ids *ids,
              MPI_Comm *newcomm, const char *func);

#endif
