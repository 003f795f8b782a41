/* Sessions: each is a user of the runtime (smap_runtime_acquire/release),
 * with its own error handler, thread level and info.  The runtime is the
 * same one MPI_Init uses — WORLD's communicator machinery underneath — so
 * sessions and the world model coexist in any order the standard allows,
 * except a start after the runtime's final teardown (mpi/runtime.c). */
#include "mpi/session.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mpi/errhandler.h"
#include "mpi/group.h"
#include "mpi/handles.h"
#include "mpi/info.h"
#include "mpi/request.h"
#include "mpi/runtime.h"

static pthread_mutex_t sessions_lock = PTHREAD_MUTEX_INITIALIZER;
static struct MPI_ABI_Session *live;

struct MPI_ABI_Session *smap_session_get(MPI_Session h)
{
    if (h == MPI_SESSION_NULL)
        return NULL;
    pthread_mutex_lock(&sessions_lock);
    struct MPI_ABI_Session *s = live;
    while (s && s != h)
        s = s->next;
    pthread_mutex_unlock(&sessions_lock);
    return s;
}

static const char *const levels[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                      "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
static const int level_values[] = { MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                    MPI_THREAD_MULTIPLE };

const char *smap_thread_level_name(int level)
{
    for (int i = 0; i < 4; i++)
        if (level_values[i] == level)
            return levels[i];
    return "MPI_THREAD_SINGLE";
}

/* The "thread_level" info key (MPI 5.0 section 11.3.1): one of the
 * MPI_THREAD_* names; absent: single.  -1 when the value is none. */
static int requested_level(const struct MPI_ABI_Info *info)
{
    const char *v = info ? smap_info_lookup(info, "thread_level") : NULL;
    if (!v)
        return MPI_THREAD_SINGLE;
    for (int i = 0; i < 4; i++)
        if (!strcasecmp(v, levels[i]))
            return level_values[i];
    return -1;
}

int smap_session_init(struct MPI_ABI_Info *info, MPI_Errhandler errhandler,
                      struct MPI_ABI_Session **out, const char **why)
{
    int required = requested_level(info);
    if (required < 0) {
        *why = "the info key thread_level is not one of MPI_THREAD_SINGLE|FUNNELED|"
               "SERIALIZED|MULTIPLE";
        return MPI_ERR_INFO;
    }
    struct MPI_ABI_Session *s = calloc(1, sizeof *s);
    if (!s || (info && !(s->info = smap_info_dup(info)))) {
        free(s);
        *why = "out of memory";
        return MPI_ERR_NO_MEM;
    }
    int rc = smap_runtime_acquire(required, &s->thread_level, 0);
    if (rc != MPI_SUCCESS) {
        smap_info_free(s->info);
        free(s);
        *why = atomic_load(&smap_state) == SMAP_STATE_FINALIZED
                   ? "the MPI library was finalized after MPI_Finalize and cannot start again"
                   : "could not start the MPI library";
        return rc;
    }
    s->magic = SMAP_SESSION_MAGIC;
    atomic_init(&s->refs, 1);
    smap_errhandler_retain(errhandler);
    s->errhandler = errhandler;
    pthread_mutex_lock(&sessions_lock);
    s->next = live;
    live = s;
    pthread_mutex_unlock(&sessions_lock);
    *out = s;
    return MPI_SUCCESS;
}

int smap_session_finalize(struct MPI_ABI_Session *s)
{
    pthread_mutex_lock(&sessions_lock);
    for (struct MPI_ABI_Session **pp = &live; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    pthread_mutex_unlock(&sessions_lock);
    s->magic = 0;
    smap_handle_forget(s);
    smap_session_buffer_free(s);   /* MPI 4.1: flushed and detached, before the runtime goes */
    smap_errhandler_release(s->errhandler);
    s->errhandler = MPI_ERRHANDLER_NULL;
    smap_info_free(s->info);
    s->info = NULL;
    smap_session_release(s);
    return smap_runtime_release(0);
}

void smap_session_retain(struct MPI_ABI_Session *s)
{
    if (s)
        atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
}

void smap_session_release(struct MPI_ABI_Session *s)
{
    if (s && atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
        free(s);
}

static const char *const psets[] = { "mpi://WORLD", "mpi://SELF" };

int smap_pset_count(void)
{
    return 2;
}

const char *smap_pset_name(int n)
{
    return n >= 0 && n < 2 ? psets[n] : NULL;
}

/* Process set names are matched without regard to case, as MPICH and
 * Open MPI do.  The group is a copy of the static one, not that one
 * itself: it carries the session, which communicators made from it
 * inherit (their buffered sends use the session's buffer). */
struct MPI_ABI_Group *smap_pset_group(struct MPI_ABI_Session *s, const char *name, int *nomem)
{
    const struct MPI_ABI_Group *base = !strcasecmp(name, psets[0])   ? &smap_group_world
                                       : !strcasecmp(name, psets[1]) ? &smap_group_self
                                                                     : NULL;
    *nomem = 0;
    if (!base)
        return NULL;
    int *world = malloc((size_t)base->size * sizeof *world);
    for (int i = 0; world && i < base->size; i++)
        world[i] = smap_group_world_rank(base, i);
    struct MPI_ABI_Group *g = world ? smap_group_from_world(base->size, world) : NULL;
    if (!g) {
        *nomem = 1;
        return NULL;
    }
    smap_group_set_session(g, s);
    return g;
}
