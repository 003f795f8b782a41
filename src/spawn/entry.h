/* The dynamic-process calls as the entry points make them (binding/gen/
 * dynamic.c): the arguments that matter at the root only, and
 * MPI_Comm_disconnect's order.  Each raises its own errors in F's name on
 * the communicator, as spawn.h's functions do. */
#ifndef SMAP_SPAWN_ENTRY_H
#define SMAP_SPAWN_ENTRY_H

#include <mpi.h>

struct MPI_ABI_Comm;

int smap_spawn_accept_checked(const char *port, int root, struct MPI_ABI_Comm *c,
                              MPI_Comm *newcomm, const char *F);
int smap_spawn_connect_checked(const char *port, int root, struct MPI_ABI_Comm *c,
                               MPI_Comm *newcomm, const char *F);
/* MPI_Comm_spawn: one command; argv may be MPI_ARGV_NULL. */
int smap_spawn_one(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                   struct MPI_ABI_Comm *c, MPI_Comm *intercomm, int errcodes[], const char *F);
int smap_spawn_multiple_checked(int count, char *cmds[], char **argvs[], const int maxprocs[],
                                const MPI_Info infos[], int root, struct MPI_ABI_Comm *c,
                                MPI_Comm *intercomm, int errcodes[], const char *F);
/* Waits for c's pending traffic, closes its bridges, frees it (*comm:
 * MPI_COMM_NULL). */
int smap_spawn_comm_disconnect(MPI_Comm *comm, struct MPI_ABI_Comm *c, const char *F);

#endif
