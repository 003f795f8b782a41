/* The library's life cycle: MPI_Init_thread to MPI_Finalize, and the
 * thread level actually provided. */
#ifndef SMAP_MPI_RUNTIME_H
#define SMAP_MPI_RUNTIME_H

#include <stdatomic.h>

enum smap_state { SMAP_STATE_NEW, SMAP_STATE_RUNNING, SMAP_STATE_FINALIZED };

/* smap_state: the runtime (every layer), up from the first of MPI_Init and
 * MPI_Session_init to the last finalize; smap_world_state: the world model
 * (MPI_Init .. MPI_Finalize), what MPI_Initialized/MPI_Finalized report. */
extern _Atomic int smap_state;
extern _Atomic int smap_world_state;
extern int smap_thread_provided;

/* A user of the runtime arrives (world: MPI_Init; else a session): the
 * first brings every layer up.  Returns MPI_SUCCESS or an MPI error class
 * with a message already printed (MPI_ERR_OTHER, silently, when the
 * runtime has already been torn down: no restart). */
int smap_runtime_acquire(int required, int *provided, int world);
/* A user leaves (world: MPI_Finalize, which also runs the world model's
 * finalization); the last one tears the runtime down (collective over the
 * job), except that a runtime only sessions have used stays up idle until
 * the process exits, so that MPI_Init or MPI_Session_init may follow. */
int smap_runtime_release(int world);
/* The teardown's step that leaves the collectives (src/coll, above this
 * layer: it registers it through src/comm at start), run after the
 * point-to-point drains and before the job's last barrier. */
void smap_runtime_on_leave(void (*leave)(void));
int smap_runtime_is_main_thread(void);
/* Whether this process has no user of the runtime but the one calling
 * (MPI_Finalize with no live session): its collectives end with it. */
int smap_runtime_sole_user(void);

static inline int smap_running(void)
{
    return atomic_load_explicit(&smap_state, memory_order_acquire) == SMAP_STATE_RUNNING;
}

/* ---- What the environment entry points report (environment.c); the
 * pointers are checked by the binding. ---- */
void smap_env_processor_name(char *name, int *resultlen);
void smap_env_version(int *version, int *subversion);
void smap_env_library_version(char *version, int *resultlen);
void smap_env_abi_version(int *abi_major, int *abi_minor);

#endif
