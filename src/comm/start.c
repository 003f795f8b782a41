/* What the layers below need from this one, handed to them at start, so
 * that none of them calls up by name (DESIGN.md §2): coll/hier's maker of
 * sub-communicators (hier_comms.c), mpi/'s hooks at a communicator's
 * destruction (its topology, its collective state) and at the runtime's
 * teardown (leaving the collectives).  Registration is idempotent. */
#include <pthread.h>

#include "comm/comm_create.h"
#include "mpi/runtime.h"
#include "topo/topo.h"

/* A communicator's topology goes with it. */
static void free_topo(struct MPI_ABI_Comm *c)
{
    smap_topo_free(c->topo);
    c->topo = NULL;
}

static void start_once(void)
{
    smap_hier_set_comms(smap_comm_hier_comms());
    smap_comm_on_destroy(free_topo);
    smap_comm_on_destroy(smap_coll_forget);
    smap_runtime_on_leave(smap_coll_leave);
}

void smap_comm_layer_start(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, start_once);
}
