/* What the MPI 5.0 ABI functions report (MPI_Abi_get_info and the Fortran
 * details a Fortran binding layer built over the C ABI records with
 * MPI_Abi_set_fortran_info / _booleans).  smartmap's own Fortran side
 * (src/binding/fortran) records its booleans when loaded; another layer may
 * set its own: kept for the process's life (a later set replaces an earlier
 * one).  Guarded
 * by a mutex: these calls are allowed before MPI_Init and from any
 * thread. */
#include "mpi/abi.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "mpi/info.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct MPI_ABI_Info *fortran_info;   /* a copy of the last set, or NULL */
static int bool_size;                       /* 0: booleans never set */
static unsigned char bool_true[16], bool_false[16];

struct MPI_ABI_Info *smap_abi_info(void)
{
    struct MPI_ABI_Info *i = smap_info_new();
    if (!i)
        return NULL;
    char v[32];
    int bad = 0;
#define SIZE_KEY(key, type)                                                                \
    do {                                                                                   \
        snprintf(v, sizeof v, "%zu", sizeof(type));                                        \
        bad |= smap_info_set(i, key, v);                                                   \
    } while (0)
    SIZE_KEY("mpi_aint_size", MPI_Aint);
    SIZE_KEY("mpi_count_size", MPI_Count);
    SIZE_KEY("mpi_offset_size", MPI_Offset);
    SIZE_KEY("mpi_fint_size", MPI_Fint);
#undef SIZE_KEY
    snprintf(v, sizeof v, "%d.%d", MPI_ABI_VERSION, MPI_ABI_SUBVERSION);
    bad |= smap_info_set(i, "mpi_abi_version", v);
    bad |= smap_info_set(i, "mpi_library_name", "smartmap");
    if (bad) {
        smap_info_free(i);
        return NULL;
    }
    return i;
}

int smap_abi_fortran_info(struct MPI_ABI_Info **out)
{
    pthread_mutex_lock(&lock);
    *out = fortran_info ? smap_info_dup(fortran_info) : smap_info_new();
    pthread_mutex_unlock(&lock);
    return *out ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int smap_abi_set_fortran_info(const struct MPI_ABI_Info *info)
{
    struct MPI_ABI_Info *copy = smap_info_dup(info);
    if (!copy)
        return MPI_ERR_NO_MEM;
    pthread_mutex_lock(&lock);
    struct MPI_ABI_Info *old = fortran_info;
    fortran_info = copy;
    pthread_mutex_unlock(&lock);
    smap_info_free(old);
    return MPI_SUCCESS;
}

void smap_abi_set_fortran_booleans(int size, const void *t, const void *f)
{
    pthread_mutex_lock(&lock);
    bool_size = size;
    memcpy(bool_true, t, (size_t)size);
    memcpy(bool_false, f, (size_t)size);
    pthread_mutex_unlock(&lock);
}

int smap_abi_get_fortran_booleans(int size, void *t, void *f)
{
    pthread_mutex_lock(&lock);
    int set = bool_size == size;
    if (set) {
        memcpy(t, bool_true, (size_t)size);
        memcpy(f, bool_false, (size_t)size);
    }
    pthread_mutex_unlock(&lock);
    return set;
}
