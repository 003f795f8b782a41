/* Entry points of the library's life cycle. */
#include <mpi.h>
#include <stdio.h>

#include "base/log.h"
#include "binding/check.h"
#include "boot/boot.h"
#include "coll/coll.h"
#include "comm/comm_create.h"
#include "mpi/comm.h"
#include "mpi/runtime.h"
#include "spawn/spawn.h"

/* MPI_Init may be called once; a second call, or one after MPI_Finalize, is
 * the user's error and is reported as such rather than re-initialising. */
static int start(const char *func, int required, int *provided)
{
    int expected = SMAP_STATE_NEW;
    if (!atomic_compare_exchange_strong(&smap_world_state, &expected, SMAP_STATE_NEW))
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_OTHER, func, "%s",
                              expected == SMAP_STATE_RUNNING ? "MPI is already initialized"
                                                             : "called after MPI_Finalize");
    if (atomic_load(&smap_state) == SMAP_STATE_FINALIZED)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_OTHER, func,
                              "the MPI library was finalized by the last MPI_Session_finalize "
                              "after MPI_Finalize and cannot start again");
    smap_comm_layer_start();
    int rc = smap_runtime_acquire(required, provided, 1);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(MPI_COMM_NULL, rc, func, "could not start the MPI library");
    /* a spawned job connects to its parents now (MPI_Comm_get_parent) */
    return smap_spawn_init();
}

int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return start("MPI_Init", MPI_THREAD_SINGLE, NULL);
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    if (required != MPI_THREAD_SINGLE && required != MPI_THREAD_FUNNELED &&
        required != MPI_THREAD_SERIALIZED && required != MPI_THREAD_MULTIPLE)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Init_thread",
                              "required=%d is not an MPI_THREAD_* level", required);
    SMAP_CHECK_PTR("MPI_Init_thread", MPI_COMM_NULL, provided);
    return start("MPI_Init_thread", required, provided);
}

int PMPI_Finalize(void)
{
    SMAP_CHECK_RUNNING("MPI_Finalize");
    if (atomic_load(&smap_world_state) != SMAP_STATE_RUNNING)
        return smap_err_raise(MPI_COMM_NULL, MPI_ERR_OTHER, "MPI_Finalize",
                              "the world model is not initialized (no MPI_Init, or MPI_Finalize already called)");
    /* A barrier that moves point-to-point while it waits: a receive the
     * program freed while active (MPI_Request_free) is still ours to
     * complete, and its sender waits in MPI_Wait until we take the
     * message; the launcher's barrier further on moves nothing.  Its
     * failure (a rank gone without MPI_Finalize) is left to that barrier,
     * which the launcher fails as before.  On one node that barrier is the
     * node barrier, which no control block waits for: we leave the
     * collectives first, so a peer still waiting in one for a step of ours
     * learns that it never comes and stops the job instead of waiting for
     * ever (D18); across nodes the barrier itself runs on control blocks,
     * and the collectives are left after it (smap_runtime_release).  A
     * live session keeps this rank in the collectives (its communicators
     * go on after MPI_Finalize): it leaves them with the last user. */
    if (smap_job.nnodes == 1 && smap_runtime_sole_user())
        smap_coll_leave();
    (void)PMPI_Barrier(MPI_COMM_WORLD);
    int rc = smap_runtime_release(1);
    if (rc != MPI_SUCCESS)
        return smap_err_raise(MPI_COMM_NULL, rc, "MPI_Finalize", "the closing barrier failed");
    return MPI_SUCCESS;
}

int PMPI_Initialized(int *flag)
{
    SMAP_CHECK_PTR("MPI_Initialized", MPI_COMM_NULL, flag);
    *flag = atomic_load(&smap_world_state) != SMAP_STATE_NEW;
    return MPI_SUCCESS;
}

int PMPI_Finalized(int *flag)
{
    SMAP_CHECK_PTR("MPI_Finalized", MPI_COMM_NULL, flag);
    *flag = atomic_load(&smap_world_state) == SMAP_STATE_FINALIZED;
    return MPI_SUCCESS;
}

int PMPI_Query_thread(int *provided)
{
    SMAP_CHECK_RUNNING("MPI_Query_thread");
    SMAP_CHECK_PTR("MPI_Query_thread", MPI_COMM_NULL, provided);
    *provided = smap_thread_provided;
    return MPI_SUCCESS;
}

int PMPI_Is_thread_main(int *flag)
{
    SMAP_CHECK_RUNNING("MPI_Is_thread_main");
    SMAP_CHECK_PTR("MPI_Is_thread_main", MPI_COMM_NULL, flag);
    *flag = smap_runtime_is_main_thread();
    return MPI_SUCCESS;
}

/* Works in any state: a program may give up before MPI_Init succeeded. */
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    struct MPI_ABI_Comm *c = smap_comm_get(comm);
    char msg[256];
    snprintf(msg, sizeof msg, "MPI_Abort(%s, %d) called: stopping the job",
             c ? c->name : "an invalid communicator", errorcode);
    smap_boot_abort(errorcode, msg);
}
