/* MPI_Barrier on MPI_COMM_WORLD when the whole job is one node
 * (coll/dispatch.c gives WORLD this barrier then): the SMARTMAP node
 * barrier (flat or gather/release through control lines,
 * src/smap/barrier.c) when every rank of the node is mapped, else the
 * launcher's barrier (correct, not fast).  Until issue 35 it lived in the
 * binding's MPI_Barrier. */
#include "coll/smap/csm.h"

#include "base/wait.h"
#include "boot/boot.h"
#include "p2p/p2p.h"
#include "smap/smap.h"

static SMAP_COLD int node_failed(void)
{
    return smap_fail(MPI_ERR_OTHER, "the node barrier failed (a rank on this node died)");
}

/* The node barrier, progressing point-to-point while waiting: a peer may
 * need this rank to stream a message it sent before the barrier, or to
 * take the rendezvous message its posted receive matches.  A rank that
 * waited for a peer's data in a collective since its last barrier leaves
 * after the producers (smap_coll_consumed_take: coll/README.md, "late
 * consumers"). */
static int node_barrier(void)
{
    unsigned g;
    int rc = smap_node_barrier_arrive(&g, smap_coll_consumed_take());
    if (rc != 0)
        return rc > 0 ? MPI_SUCCESS : node_failed();
    struct smap_waiter w;
    smap_wait_init(&w, smap_nlocal);
    for (;;) {
        if (smap_node_barrier_done(g))
            return MPI_SUCCESS;
        smap_p2p_progress();
        if (smap_wait_step(&w) && smap_node_barrier_peer_died())
            return node_failed();
    }
}

int smap_cb_world_barrier(smap_comm_t *c)
{
    if (smap_job.local_size == c->size && smap_peers_attached())
        return node_barrier();
    if (smap_boot_barrier() != 0)
        return smap_fail(MPI_ERR_OTHER, "the launcher's barrier failed");
    return MPI_SUCCESS;
}
