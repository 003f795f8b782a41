/* The MPI_THREAD_MULTIPLE switch and the per-thread token (base/lock.h). */
#include "base/lock.h"

int smap_mt;
_Thread_local char smap_thread_token SMAP_TLS_INITIAL_EXEC;
