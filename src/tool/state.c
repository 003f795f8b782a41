/* MPI_T's life cycle and lock.  MPI_T_init_thread may be called any number
 * of times, before MPI_Init and after MPI_Finalize; the interface stays
 * usable until the matching number of MPI_T_finalize calls.  Loading the
 * tunables is the only start-up work (the values are process-wide and
 * live as long as the process). */
#include "tool/tool.h"

#include <pthread.h>
#include <string.h>

#include "base/log.h"
#include "base/tunables.h"

static pthread_mutex_t tool_lock = PTHREAD_MUTEX_INITIALIZER;
static int refs;   /* under tool_lock */

int smap_tool_init(int required, int *provided)
{
    char err[512];
    if (smap_tunables_ensure(err, sizeof err) != 0) {
        smap_log(SMAP_LOG_ERROR, "MPI_T_init_thread: %s", err);
        return MPI_T_ERR_CANNOT_INIT;
    }
    pthread_mutex_lock(&tool_lock);
    refs++;
    pthread_mutex_unlock(&tool_lock);
    /* Every MPI_T call takes the lock: any thread level can be granted. */
    *provided = required;
    return MPI_SUCCESS;
}

int smap_tool_finalize(void)
{
    pthread_mutex_lock(&tool_lock);
    if (refs == 0) {
        pthread_mutex_unlock(&tool_lock);
        return MPI_T_ERR_NOT_INITIALIZED;
    }
    if (--refs == 0) {
        /* Handles and sessions do not outlive the interface. */
        smap_pvar_free_all();
        smap_cvar_free_all();
    }
    pthread_mutex_unlock(&tool_lock);
    return MPI_SUCCESS;
}

int smap_tool_enter(void)
{
    pthread_mutex_lock(&tool_lock);
    if (refs == 0) {
        pthread_mutex_unlock(&tool_lock);
        return MPI_T_ERR_NOT_INITIALIZED;
    }
    return MPI_SUCCESS;
}

void smap_tool_leave(void)
{
    pthread_mutex_unlock(&tool_lock);
}

void smap_tool_str(const char *s, char *buf, int *len)
{
    if (!len)
        return;
    size_t n = strlen(s);
    if (buf && *len > 0) {
        size_t room = (size_t)*len - 1, k = n < room ? n : room;
        memcpy(buf, s, k);
        buf[k] = '\0';
    }
    *len = (int)n + 1;
}
