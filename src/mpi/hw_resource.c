/* MPI_Get_hw_resource_info (MPI 4.1): the hardware resource types this
 * process knows, as an info object.  They are the types
 * MPI_Comm_split_type(MPI_COMM_TYPE_HW_GUIDED) accepts here: only
 * "mpi_shared_memory" (the node: smartmap's unit of direct access).
 *
 *   mpi_hw_resource_type  the known types, ':'-separated
 *   mpi_shared_memory     "true": this process is in such a domain
 *   mpi_hw_cpus_allowed   the processors this process may run on now */
#define _GNU_SOURCE
#include "mpi/abi.h"

#include <sched.h>
#include <stdio.h>

#include "mpi/info.h"

struct MPI_ABI_Info *smap_hw_resource_info(void)
{
    struct MPI_ABI_Info *i = smap_info_new();
    if (!i)
        return NULL;
    int bad = smap_info_set(i, "mpi_hw_resource_type", "mpi_shared_memory");
    bad |= smap_info_set(i, "mpi_shared_memory", "true");
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        char v[16];
        snprintf(v, sizeof v, "%d", CPU_COUNT(&set));
        bad |= smap_info_set(i, "mpi_hw_cpus_allowed", v);
    }
    if (bad) {
        smap_info_free(i);
        return NULL;
    }
    return i;
}
