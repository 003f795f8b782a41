/* Entry points that describe the environment: clocks, names, versions. */
#include <mpi.h>
#include <stdio.h>
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
