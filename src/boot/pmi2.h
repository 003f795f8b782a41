/* PMI-2 wire protocol client (pmi2.c), used by pmi.c when SMAP_PMI says 2,
 * or says auto and the launcher looks like Slurm's `srun --mpi=pmi2`
 * (PMI_FD with PMI_JOBID).  Same calls as PMI-1; the caller serialises
 * them. */
#ifndef SMAP_BOOT_PMI2_H
#define SMAP_BOOT_PMI2_H

#include <stddef.h>

/* Handshake and fullinit on fd; kvsname receives the job id.  0, or -1
 * with a message in err. */
int smap_pmi2_init(int fd, int rank, char *kvsname, size_t kvslen, int *appnum, int *universe,
                   char *err, size_t errlen);
int smap_pmi2_put(const char *key, const char *value);
/* PMI_process_mapping is read as a job attribute (info-getjobattr). */
int smap_pmi2_get(const char *key, char *value, size_t len);
int smap_pmi2_fence(void);
/* A true barrier of the job's size ranks (kvs-fence alone is not one in
 * hydra). */
int smap_pmi2_barrier(int rank, int size);
int smap_pmi2_finalize(void);
void smap_pmi2_abort(int code);

#endif
