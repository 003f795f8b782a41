/* What the layers below need from this one, handed to them at start, so
 * that none of them calls up by name (DESIGN.md §2): coll/hier's maker of
 * sub-communicators (hier_comms.c), mpi/'s hooks at a communicator's
 * destruction (its topology, its collective state) and at the runtime's
 * teardown (leaving the collectives).  Registration is idempotent.
 * MPI_Session_init's checks are here too: a session starts this layer. */
#include <pthread.h>

#include "comm/comm_create.h"
#include "mpi/errhandler.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "mpi/runtime.h"
#include "mpi/session.h"
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

/* Errors before a session exists go to the handler given (MPI 5.0 §11.3.1),
 * or to MPI_COMM_SELF's when that is no handler. */
int smap_comm_session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session,
                           const char *F)
{
    if (!smap_errhandler_valid(errhandler) || errhandler == MPI_ERRHANDLER_NULL)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, F,
                              "errhandler is not a valid error handler");
    if (!session)
        return smap_err_raise_on(errhandler, NULL, F, MPI_ERR_ARG, F, "session is NULL");
    struct MPI_ABI_Info *in = info == MPI_INFO_NULL ? NULL : smap_info_get(info);
    if (info != MPI_INFO_NULL && !in)
        return smap_err_raise_on(errhandler, session, F, MPI_ERR_INFO, F,
                                 "info is not a valid info object");
    struct MPI_ABI_Session *s;
    const char *why = "";
    smap_comm_layer_start();
    int rc = smap_session_init(in, errhandler, &s, &why);
    if (rc != MPI_SUCCESS)
        return smap_err_raise_on(errhandler, session, F, rc, F, "%s", why);
    *session = s;
    return MPI_SUCCESS;
}
