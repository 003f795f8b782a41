#include "mpi/comm.h"

#include <stdio.h>

#include "mpi/attr.h"
#include "mpi/errhandler.h"
#include "mpi/group.h"
#include "mpi/info.h"

struct MPI_ABI_Comm smap_comm_world = {
    .magic = SMAP_COMM_MAGIC, .rank = 0, .size = 1, .ctx = 0, .errhandler = MPI_ERRORS_ARE_FATAL,
    .name = "MPI_COMM_WORLD", .handle = MPI_COMM_WORLD, .group = &smap_group_world,
};
struct MPI_ABI_Comm smap_comm_self = {
    .magic = SMAP_COMM_MAGIC, .rank = 0, .size = 1, .ctx = 1, .errhandler = MPI_ERRORS_ARE_FATAL,
    .name = "MPI_COMM_SELF", .handle = MPI_COMM_SELF, .group = &smap_group_self,
};

void smap_comm_init(int rank, int size)
{
    smap_comm_world.rank = rank;
    smap_comm_world.size = size;
    smap_comm_self.rank = 0;
    smap_comm_self.size = 1;
    smap_group_init(rank, size);
    smap_comm_world.group = &smap_group_world;
    smap_comm_self.group = &smap_group_self;
}

/* MPI-5.0 section 11.2.4: MPI_Finalize first deletes MPI_COMM_SELF's
 * attributes, in the reverse order of their setting, while everything still
 * works (a delete callback may communicate). */
void smap_comm_finalize_begin(void)
{
    (void)smap_attr_delete_all(&smap_comm_self);
}

void smap_comm_finalize(void)
{
    (void)smap_attr_delete_all(&smap_comm_world);
    smap_info_free(smap_comm_world.hints);
    smap_info_free(smap_comm_self.hints);
    smap_comm_world.hints = smap_comm_self.hints = NULL;
    smap_errhandler_release(smap_comm_world.errhandler);
    smap_errhandler_release(smap_comm_self.errhandler);
    smap_comm_world.errhandler = smap_comm_self.errhandler = MPI_ERRORS_ARE_FATAL;
}
