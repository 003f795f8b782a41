/* Shared by the communicator constructors (comm_create.c, comm_split.c). */
#ifndef SMAP_BINDING_COMM_CREATE_H
#define SMAP_BINDING_COMM_CREATE_H

#include <mpi.h>
#include <stdint.h>

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

/* The communicator of group g (reference taken over) for this member:
 * claims the slot and stores the new handle.  MPI_SUCCESS or the raised
 * error. */
int comm_make(struct MPI_ABI_Comm *parent, struct MPI_ABI_Group *g, const struct comm_ids *ids,
              MPI_Comm *newcomm, const char *func);

#endif
