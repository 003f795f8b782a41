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

#endif
