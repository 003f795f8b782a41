/* Job bootstrap: who am I, who are my node peers, and a way to exchange small
 * strings and synchronise before any transport exists.
 *
 * Started by smrun or any PMI-1 launcher (MPICH's mpiexec.hydra), the client
 * talks PMI-1 over the inherited socket named by PMI_FD (with PMI_RANK and
 * PMI_SIZE).  Started without a launcher, the process is a singleton job of
 * one rank and every operation below is local. */
#ifndef SMAP_BOOT_BOOT_H
#define SMAP_BOOT_BOOT_H

#include <stddef.h>

struct smap_job {
    int rank, size;           /* in the job (MPI_COMM_WORLD) */
    int node, nnodes;         /* node id: index of this host among the job's hosts */
    int local_rank, local_size;
    int *local_ranks;         /* job ranks on this node, ascending; local_size entries */
    int *node_of;             /* node id of every job rank; size entries */
    int appnum;
    int universe_size;
    int singleton;            /* no launcher */
    char kvsname[256];
    char hostname[256];
};

extern struct smap_job smap_job;

/* Connects to the launcher (or becomes a singleton) and learns the node
 * layout through a key-value exchange.  Returns 0, or -1 with a message. */
int smap_boot_init(char *err, size_t errlen);
void smap_boot_finalize(void);

/* Publishes key=value for the job (visible after the next fence). */
int smap_boot_put(const char *key, const char *value);
/* Makes all puts visible to all ranks; collective over the job. */
int smap_boot_fence(void);
/* Reads a value published by any rank before the last fence. */
int smap_boot_get(const char *key, char *value, size_t len);

/* Synchronises all ranks of the job (collective). */
int smap_boot_barrier(void);
/* Synchronises the ranks of this node (collective over the node). */
int smap_boot_node_barrier(void);

/* Tells the launcher to stop the job with exit code `code`, then exits.
 * What the program printed is flushed first (stop.c). */
_Noreturn void smap_boot_abort(int code, const char *msg);
/* The same for an error the program did not handle (MPI_ERRORS_ARE_FATAL,
 * MPI_ERRORS_ABORT): the job's exit status is never 0, whatever the class
 * (MPI_SUCCESS by a bug, or an added class whose low byte is 0). */
_Noreturn void smap_boot_abort_error(int cls, const char *msg);
/* Flushes stdout and stderr unless another thread holds them (stop.c). */
void smap_boot_flush_output(void);
/* A launched rank flushes stdout and stderr when SIGTERM (the launcher
 * stopping the job) ends it, unless the program handles or ignores
 * SIGTERM itself (stop.c). */
void smap_boot_flush_on_stop(void);

/* The node's session directory (created by smrun, SMAP_SESSION_DIR), or
 * NULL when the launcher provides none. */
const char *smap_boot_session_dir(void);

#endif
