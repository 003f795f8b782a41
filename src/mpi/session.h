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

/* ---- the entry points' session calls (session_api.c): a live session,
 * MPI_SUCCESS or a class with smap_why() ---- */
/* Raises class cls on h's handler (MPI_COMM_SELF's when h is no live
 * session), as smap_err_raise does on a communicator's. */
int smap_session_raise(MPI_Session h, int cls, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), cold, noinline));
/* Ends s and sets *session to MPI_SESSION_NULL; raises its own error (on
 * the handler s had, which outlives it for that). */
int smap_session_finalize_checked(struct MPI_ABI_Session *s, MPI_Session *session,
                                  const char *F);
int smap_session_nth_pset(int n, int *pset_len, char *pset_name);
int smap_session_pset_info(struct MPI_ABI_Session *s, const char *pset_name, MPI_Info *info);
int smap_session_info_into(struct MPI_ABI_Session *s, MPI_Info *info_used);
int smap_session_pset_group_into(struct MPI_ABI_Session *s, const char *pset_name,
                                 MPI_Group *newgroup);
void smap_session_errhandler_of(struct MPI_ABI_Session *s, MPI_Errhandler *errhandler);
int smap_session_set_errhandler(struct MPI_ABI_Session *s, MPI_Errhandler errhandler);
void smap_session_invoke(struct MPI_ABI_Session *s, int errorcode);

#endif
