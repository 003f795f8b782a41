/* Entry points on communicators: rank, size, barrier (creation and free:
 * comm_create.c, comm_split.c). */
#include <mpi.h>

#include "binding/check.h"
#include "binding/intercomm.h"
#include "boot/boot.h"
#include "base/wait.h"
#include "coll/coll.h"
#include "p2p/p2p.h"
#include "smap/smap.h"

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING("MPI_Comm_rank");
    SMAP_CHECK_COMM("MPI_Comm_rank", comm, c);
    SMAP_CHECK_PTR("MPI_Comm_rank", comm, rank);
    *rank = c->rank;
    return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING("MPI_Comm_size");
    SMAP_CHECK_COMM("MPI_Comm_size", comm, c);
    SMAP_CHECK_PTR("MPI_Comm_size", comm, size);
    *size = c->size;
    return MPI_SUCCESS;
}

static SMAP_COLD int barrier_failed(MPI_Comm comm)
{
    return smap_err_raise(comm, MPI_ERR_OTHER, "MPI_Barrier", "%s",
                          "the node barrier failed (a rank on this node died)");
}

/* The node barrier, progressing point-to-point while waiting: a peer may
 * need this rank to stream a message it sent before the barrier, or to
 * take the rendezvous message its posted receive matches. */
static int node_barrier(MPI_Comm comm)
{
    unsigned g;
    int rc = smap_node_barrier_arrive(&g, smap_coll_consumed_take());
    if (rc != 0)
        return rc > 0 ? MPI_SUCCESS : barrier_failed(comm);
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    for (;;) {
        if (smap_node_barrier_done(g))
            return MPI_SUCCESS;
        smap_p2p_progress();
        if (smap_wait_step(&w) && smap_node_barrier_peer_died())
            return barrier_failed(comm);
    }
}

/* WORLD: when the whole job is one node, the SMARTMAP node barrier
 * (gather/release through control lines, src/smap/barrier.c); otherwise over the bootstrap (correct, not
 * fast) until the collectives issue brings a hierarchical one.  Other
 * communicators (a subset of the node): one sync of their control blocks. */
int PMPI_Barrier(MPI_Comm comm)
{
    struct MPI_ABI_Comm *c;
    SMAP_CHECK_RUNNING("MPI_Barrier");
    SMAP_CHECK_COMM("MPI_Barrier", comm, c);
    if (smap_comm_is_inter(c))
        return inter_barrier("MPI_Barrier", comm, c, NULL);
    if (c->size <= 1)
        return MPI_SUCCESS;
    /* (between nodes: a schedule, which keeps point-to-point moving; the
     * launcher's barrier would not) */
    if (c != &smap_comm_world || smap_job.nnodes > 1) {
        int rc = smap_coll_barrier(c);   /* c's table: hierarchy, blocks or schedule */
        return rc ? smap_err_raise(comm, rc, "MPI_Barrier", "%s", smap_coll_why()) : MPI_SUCCESS;
    }
    if (smap_job.nnodes == 1 && smap_job.local_size == c->size && smap_peers_attached())
        return node_barrier(comm);
    if (smap_boot_barrier() != 0)
        return smap_err_raise(comm, MPI_ERR_OTHER, "MPI_Barrier", "the launcher's barrier failed");
    return MPI_SUCCESS;
}
