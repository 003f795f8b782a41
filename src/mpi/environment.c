/* What the environment entry points report (MPI_Get_processor_name,
 * MPI_Get_version, MPI_Get_library_version, MPI_Abi_get_version), called by
 * their generated stubs in src/binding/gen/environment.c once the pointers
 * are checked.  None can fail. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "boot/boot.h"
#include "mpi/runtime.h"
#include "smap_config.h"

void smap_env_processor_name(char *name, int *resultlen)
{
    snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", smap_job.hostname);
    *resultlen = (int)strlen(name);
}

void smap_env_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
}

void smap_env_library_version(char *version, int *resultlen)
{
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
             "smartmap %s (MPI %d.%d, standard ABI %d.%d; %s)", SMAP_VERSION_STRING,
             MPI_VERSION, MPI_SUBVERSION, MPI_ABI_VERSION, MPI_ABI_SUBVERSION, SMAP_BUILD_OPTIONS);
    *resultlen = (int)strlen(version);
}

void smap_env_abi_version(int *abi_major, int *abi_minor)
{
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
}
