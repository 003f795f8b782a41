/* PMI-1 client over the wire socket a launcher hands us (PMI_FD).
 * Thread-safe: one request/response at a time. */
#ifndef SMAP_BOOT_PMI_H
#define SMAP_BOOT_PMI_H

#include <stddef.h>

/* Returns 1 when a launcher provided PMI_FD, 0 when the process runs alone,
 * -1 on malformed PMI_* variables (message in err). */
int smap_pmi_detect(int *rank, int *size, char *err, size_t errlen);

/* Connects: init handshake, then kvsname, appnum, universe size.
 * Returns 0 or -1 with a message in err. */
int smap_pmi_init(char *kvsname, size_t kvslen, int *appnum, int *universe,
                  char *err, size_t errlen);

int smap_pmi_kvs_put(const char *kvsname, const char *key, const char *value);
int smap_pmi_kvs_get(const char *kvsname, const char *key, char *value, size_t len);
int smap_pmi_barrier(void);
int smap_pmi_finalize(void);
/* Asks the launcher to stop the job with this exit code (best effort). */
void smap_pmi_abort(int code);

/* Dynamic processes (src/spawn): MPICH's simple-PMI name service and
 * multi-line spawn (one block per command, preput keys for the children's
 * key-value space, info keys passed as they are).  0, or -1 (spawn: with
 * a message in err). */
struct smap_spawn_cmd {
    const char *cmd;
    char **argv;             /* NULL-terminated, or NULL */
    int nprocs;
    int ninfo;
    const char *const *info_keys, *const *info_vals;
};
int smap_pmi_spawn(const struct smap_spawn_cmd *cmds, int count, const char *const *pkeys,
                   const char *const *pvals, int npre, char *err, size_t errlen);
int smap_pmi_publish(const char *service, const char *port);
int smap_pmi_unpublish(const char *service);
int smap_pmi_lookup(const char *service, char *port, size_t len);

#endif
