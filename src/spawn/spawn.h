/* Dynamic processes (DESIGN.md D17): spawn, ports, connect/accept, join,
 * names.  The binding checks the arguments and makes one call here; every
 * function raises its errors on `comm`'s handler (or MPI_COMM_WORLD's)
 * in the name of the MPI function `func` and returns the code. */
#ifndef SMAP_SPAWN_SPAWN_H
#define SMAP_SPAWN_SPAWN_H

#include <mpi.h>

struct MPI_ABI_Comm;

/* port.c: a port name (at most MPI_MAX_PORT_NAME bytes with its NUL) that
 * processes of this or another job can connect to; closing it. */
int smap_port_open(char *name, const char *func);
int smap_port_close(const char *name, const char *func);

/* bridge.c: MPI_Comm_accept / MPI_Comm_connect, collective over c (the
 * port name matters at root only); MPI_Comm_join over a connected socket
 * (a group of one on each side). */
int smap_spawn_accept(const char *port, int root, struct MPI_ABI_Comm *c, MPI_Comm *newcomm,
                      const char *func);
int smap_spawn_connect(const char *port, int root, struct MPI_ABI_Comm *c, MPI_Comm *newcomm,
                       const char *func);
int smap_spawn_join(int fd, MPI_Comm *newcomm, const char *func);

/* spawn.c: MPI_Comm_spawn(_multiple) through the launcher's PMI spawn
 * (argv[i] NULL-terminated or NULL; errcodes NULL: MPI_ERRCODES_IGNORE),
 * and the children's side: at MPI_Init, a spawned job connects to its
 * parents (smap_spawn_init); MPI_Comm_get_parent's communicator. */
int smap_spawn_multiple(int count, char *const *cmds, char **const *argvs, const int *maxprocs,
                        const MPI_Info *infos, int root, struct MPI_ABI_Comm *c,
                        MPI_Comm *intercomm, int *errcodes, const char *func);
int smap_spawn_init(void);
MPI_Comm smap_spawn_parent(void);
/* MPI_Comm_disconnect of a communicator reaching another job: what was
 * sent to it is on its way before the communicator goes (bridge.c). */
void smap_spawn_disconnect(struct MPI_ABI_Comm *c);
/* Before MPI_Comm_disconnect frees c: the processes of other jobs in c
 * reached as node peers (a list for smap_spawn_retire, *n entries, or
 * NULL).  After the free: those that no live communicator holds any more
 * are unmapped, their spare index retired and their route removed
 * (frees the list). */
int *smap_spawn_node_peers(struct MPI_ABI_Comm *c, int *n);
void smap_spawn_retire(int *list, int n);
/* MPI_Comm_disconnect of the parent intercommunicator forgets it. */
void smap_spawn_forget_parent(MPI_Comm c);

/* names.c: MPI_Publish_name / MPI_Unpublish_name / MPI_Lookup_name. */
int smap_name_publish(const char *service, const char *port, const char *func);
int smap_name_unpublish(const char *service, const char *port, const char *func);
int smap_name_lookup(const char *service, char *port, const char *func);

#endif
