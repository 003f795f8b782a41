/* The library's life cycle: MPI_Init_thread to MPI_Finalize, and the
 * thread level actually provided. */
#ifndef SMAP_MPI_RUNTIME_H
#define SMAP_MPI_RUNTIME_H

#include <stdatomic.h>

enum smap_state { SMAP_STATE_NEW, SMAP_STATE_RUNNING, SMAP_STATE_FINALIZED };

extern _Atomic int smap_state;
extern int smap_thread_provided;

/* Brings every layer up.  Returns MPI_SUCCESS or an MPI error class with a
 * message already printed. */
int smap_runtime_init(int required, int *provided);
int smap_runtime_finalize(void);
int smap_runtime_is_main_thread(void);

static inline int smap_running(void)
{
    return atomic_load_explicit(&smap_state, memory_order_acquire) == SMAP_STATE_RUNNING;
}

#endif
