/* What the files of src/spawn share. */
#ifndef SMAP_SPAWN_INTERNAL_H
#define SMAP_SPAWN_INTERNAL_H

#include <netinet/in.h>

#include "spawn/spawn.h"

#define SMAP_PORT_NAME_MAX 96
#define SMAP_NONCE_LEN 16

/* port.c */
int smap_port_parse(const char *name, struct sockaddr_in *sa, char nonce[SMAP_NONCE_LEN + 1]);
int smap_port_wait(int fd, short events);
/* A connection to the port: the accepted socket (acceptor) or the
 * connected one with the port's nonce (connector); -1 and *why. */
int smap_port_accept_fd(const char *name, int *fd, const char **why);
int smap_port_connect_fd(const char *name, int *fd, char nonce[SMAP_NONCE_LEN + 1],
                         const char **why);

/* bridge.c: the handshake and the intercommunicator, collective over c.
 * At root: port non-NULL, accept a connection there whose hello carries
 * `nonce`; else fd is a connected socket (closed here) and our hello
 * carries `nonce`. */
int smap_bridge(struct MPI_ABI_Comm *c, int root, int fd, const char *port, const char *nonce,
                MPI_Comm *newcomm, const char *func);

#endif
