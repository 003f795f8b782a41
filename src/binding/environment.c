/* Entry points that describe the environment: clocks, names, versions. */
#include <mpi.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "base/timer.h"
#include "binding/check.h"
#include "boot/boot.h"
#include "smap_config.h"

double PMPI_Wtime(void)
{
    return smap_now();
}

double PMPI_Wtick(void)
{
    return smap_tick();
}

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    SMAP_CHECK_RUNNING("MPI_Get_processor_name");
    SMAP_CHECK_PTR("MPI_Get_processor_name", MPI_COMM_NULL, name);
    SMAP_CHECK_PTR("MPI_Get_processor_name", MPI_COMM_NULL, resultlen);
    snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", smap_job.hostname);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int PMPI_Get_version(int *version, int *subversion)
{
    SMAP_CHECK_PTR("MPI_Get_version", MPI_COMM_NULL, version);
    SMAP_CHECK_PTR("MPI_Get_version", MPI_COMM_NULL, subversion);
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int PMPI_Get_library_version(char *version, int *resultlen)
{
    SMAP_CHECK_PTR("MPI_Get_library_version", MPI_COMM_NULL, version);
    SMAP_CHECK_PTR("MPI_Get_library_version", MPI_COMM_NULL, resultlen);
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
             "smartmap %s (MPI %d.%d, standard ABI %d.%d; %s)", SMAP_VERSION_STRING,
             MPI_VERSION, MPI_SUBVERSION, MPI_ABI_VERSION, MPI_ABI_SUBVERSION, SMAP_BUILD_OPTIONS);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}

int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    SMAP_CHECK_PTR("MPI_Abi_get_version", MPI_COMM_NULL, abi_major);
    SMAP_CHECK_PTR("MPI_Abi_get_version", MPI_COMM_NULL, abi_minor);
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}

/* Without a profiling library there is nothing to control: the standard
 * makes this a no-op, and instrumented programs call it freely. */
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}

/* Addresses are plain integers in our address space (MPI_Aint is intptr_t);
 * unsigned arithmetic keeps wrap-around defined. */
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
