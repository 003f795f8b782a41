/* A communicator's assertions from an info object (MPI_Comm_set_info,
 * MPI_Comm_dup_with_info, MPI_Comm_idup_with_info): the keys smartmap
 * keeps, with the values the standard allows ("true", "false"); others
 * are ignored, as MPI 5.0 §7.4.4 permits. */
#include <string.h>

#include "base/compiler.h"
#include "mpi/comm.h"
#include "mpi/info.h"

static const char *const comm_hints[] = {
    "mpi_assert_no_any_tag", "mpi_assert_no_any_source", "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking",
};

int smap_comm_take_hints(struct MPI_ABI_Comm *c, const struct MPI_ABI_Info *info)
{
    for (size_t k = 0; k < SMAP_ARRAY_SIZE(comm_hints); k++) {
        const char *v = smap_info_lookup(info, comm_hints[k]);
        if (!v || (strcmp(v, "true") != 0 && strcmp(v, "false") != 0))
            continue;
        if (!c->hints && !(c->hints = smap_info_new()))
            return MPI_ERR_NO_MEM;
        if (smap_info_set(c->hints, comm_hints[k], v) != 0)
            return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}
