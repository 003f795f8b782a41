/* PMIx client (pmix_client.c): used when no PMI-1 launcher (PMI_FD) but a
 * PMIx server (PMIX_NAMESPACE, PMIX_RANK) started the process, e.g. Open
 * MPI's mpirun.  libpmix is loaded with dlopen. */
#ifndef SMAP_BOOT_PMIX_CLIENT_H
#define SMAP_BOOT_PMIX_CLIENT_H

#include <stddef.h>

#include "boot/pmi.h"   /* struct smap_spawn_cmd */

/* 1: started by PMIx and connected; 0: not a PMIx launch; -1: error in err. */
int smap_pmix_detect(int *rank, int *size, char *err, size_t errlen);
int smap_pmix_active(void);
int smap_pmix_init(char *kvsname, size_t kvslen, int *appnum, int *universe);
/* Values are strings without blanks, as with PMI-1; gets after a fence. */
int smap_pmix_put(const char *key, const char *value);
int smap_pmix_fence(void);
int smap_pmix_get(const char *key, char *value, size_t len, int size);
int smap_pmix_node_name(char *buf, size_t len);
/* PMIx_Spawn of the commands (smap_pmi_spawn's arguments, which it hands
 * here under PMIx): the preput keys reach the children through their
 * environment and smap_pmix_get.  0, or -1 with a message in err. */
int smap_pmix_spawn(const struct smap_spawn_cmd *cmds, int count, const char *const *pkeys,
                    const char *const *pvals, int npre, char *err, size_t errlen);
/* The launcher's name service (Open MPI's mpirun: its data server): 0, or
 * -1 (already published; not published; no such name). */
int smap_pmix_publish(const char *service, const char *port);
int smap_pmix_unpublish(const char *service);
int smap_pmix_lookup(const char *service, char *port, size_t len);
void smap_pmix_abort(int code, const char *msg);
int smap_pmix_finalize(void);

#endif
