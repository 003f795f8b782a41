/* Sessions (MPI 4.0 chapter 11): handles on the runtime that do not need
 * MPI_Init.  Each live session holds the runtime up (mpi/runtime.h); its
 * process sets are mpi://WORLD and mpi://SELF. */
#ifndef SMAP_MPI_SESSION_H
#define SMAP_MPI_SESSION_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#define SMAP_SESSION_MAGIC 0x53455353u   /* "SESS" */

struct MPI_ABI_Info;
struct MPI_ABI_Group;
struct smap_bpool;

struct MPI_ABI_Session {
    uint32_t magic;
    MPI_Errhandler errhandler;     /* one reference */
    int thread_level;              /* granted at MPI_Session_init */
    struct MPI_ABI_Info *info;     /* the keys given at MPI_Session_init, or NULL */
    struct MPI_ABI_Session *next;  /* live sessions */
    struct smap_bpool *bpool;      /* MPI_Session_attach_buffer's pool (mpi/bsend.c), or NULL */
    /* One reference for the user's handle (dropped by MPI_Session_finalize)
     * plus one per group and communicator derived from the session, which
     * may outlive it (erroneously, or the empty shell is all they read:
     * bpool, NULL once finalized). */
    _Atomic int refs;
};

/* The live session behind a handle, or NULL. */
struct MPI_ABI_Session *smap_session_get(MPI_Session h);

/* A new session (starting the runtime if it is the first user).
 * MPI_SUCCESS or an error class, *why set. */
int smap_session_init(struct MPI_ABI_Info *info, MPI_Errhandler errhandler,
                      struct MPI_ABI_Session **out, const char **why);
/* Ends s: flushes and frees its buffer, drops the handle's reference (the
 * last user tears the runtime down).  MPI_SUCCESS or a class. */
int smap_session_finalize(struct MPI_ABI_Session *s);

/* References of groups and communicators derived from a session (NULL:
 * nothing); the last release frees the object. */
void smap_session_retain(struct MPI_ABI_Session *s);
void smap_session_release(struct MPI_ABI_Session *s);

/* Process sets: their number, the n-th name, the group of a name (a new
 * group carrying session s, one reference; NULL when the name is no
 * process set, or out of memory: *nomem set). */
int smap_pset_count(void);
const char *smap_pset_name(int n);
struct MPI_ABI_Group *smap_pset_group(struct MPI_ABI_Session *s, const char *name, int *nomem);
/* "MPI_THREAD_SINGLE" ... */
const char *smap_thread_level_name(int level);

#endif
