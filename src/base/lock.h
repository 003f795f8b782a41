/* Locks for MPI_THREAD_MULTIPLE.  The library's shared state (point-to-
 * point queues and matching, the request cache, buffered sends, context ids)
 * is guarded by a few coarse locks that are taken only when MPI_Init_thread
 * granted MPI_THREAD_MULTIPLE (smap_mt): every other level promises that
 * one thread at a time calls MPI, so the single-threaded fast paths pay one
 * well-predicted branch on smap_mt and nothing else.
 *
 * smap_lock is recursive: a thread holding it may take it again (the
 * progress engine calls back into point-to-point from its hook, buffered
 * sends progress while they hold it).  Underneath is a plain pthread mutex,
 * which sleeps in the kernel when contended: a spinning lock would be a
 * disaster on an oversubscribed node, where its holder may be descheduled.
 * Blocking MPI calls never hold a lock while they wait: they take and drop
 * it once per poll (base/wait.h). */
#ifndef SMAP_BASE_LOCK_H
#define SMAP_BASE_LOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "base/compiler.h"

/* 1 once MPI_THREAD_MULTIPLE is granted.  Written once, by MPI_Init_thread,
 * before any other thread may call MPI; read everywhere without ordering. */
extern int smap_mt;

/* One byte per thread: its address names the thread (owner of a lock). */
extern _Thread_local char smap_thread_token SMAP_TLS_INITIAL_EXEC;

struct smap_lock {
    pthread_mutex_t m;
    _Atomic uintptr_t owner;   /* &smap_thread_token of the holder, or 0 */
    unsigned depth;            /* the holder's nesting; only it touches this */
};
#define SMAP_LOCK_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, 0, 0 }

static inline void smap_lock_acquire(struct smap_lock *l)
{
    uintptr_t me = (uintptr_t)&smap_thread_token;
    /* Only this thread ever stores `me` there: a relaxed load suffices. */
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) == me) {
        l->depth++;
        return;
    }
    pthread_mutex_lock(&l->m);
    atomic_store_explicit(&l->owner, me, memory_order_relaxed);
    l->depth = 1;
}

static inline void smap_lock_release(struct smap_lock *l)
{
    if (--l->depth == 0) {
        atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
        pthread_mutex_unlock(&l->m);
    }
}

/* Whether the calling thread holds l (for assertions and re-entry). */
static inline int smap_lock_held(struct smap_lock *l)
{
    return atomic_load_explicit(&l->owner, memory_order_relaxed) ==
           (uintptr_t)&smap_thread_token;
}

/* The conditional forms: no-ops unless MPI_THREAD_MULTIPLE. */
static inline void smap_mt_lock(struct smap_lock *l)
{
    if (SMAP_UNLIKELY(smap_mt))
        smap_lock_acquire(l);
}

static inline void smap_mt_unlock(struct smap_lock *l)
{
    if (SMAP_UNLIKELY(smap_mt))
        smap_lock_release(l);
}

#endif
