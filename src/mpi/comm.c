#include "mpi/comm.h"

#include <stdio.h>

#include "mpi/errhandler.h"

struct MPI_ABI_Comm smap_comm_world = { SMAP_COMM_MAGIC, 0, 1, MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD" };
struct MPI_ABI_Comm smap_comm_self = { SMAP_COMM_MAGIC, 0, 1, MPI_ERRORS_ARE_FATAL, "MPI_COMM_SELF" };

void smap_comm_init(int rank, int size)
{
    smap_comm_world.rank = rank;
    smap_comm_world.size = size;
    smap_comm_self.rank = 0;
    smap_comm_self.size = 1;
}

void smap_comm_finalize(void)
{
    smap_errhandler_release(smap_comm_world.errhandler);
    smap_errhandler_release(smap_comm_self.errhandler);
    smap_comm_world.errhandler = smap_comm_self.errhandler = MPI_ERRORS_ARE_FATAL;
}
