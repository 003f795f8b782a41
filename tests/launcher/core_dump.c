/* A rank that crashes leaves a core of its own memory (issue 37): rank 1
 * fills 32 MiB of its heap, and, once rank 0 has shown that it reaches
 * that memory (a heap, RMA and collective peer, so every kind of view is
 * mapped), calls abort() in a function core_dump.sh finds in the
 * backtrace.  Rank 0 waits to be stopped by the launcher. */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FILL ((size_t)32 << 20)

/* noinline: the backtrace must name it. */
__attribute__((noinline)) static void crash_here(char *mem)
{
    /* libfabric, which libmpi still loads on one node, lets a provider
     * (libpsm_infinipath) catch SIGABRT and exit 1 without a core: restore
     * the default so that this test measures the core, not the handler. */
    signal(SIGABRT, SIG_DFL);
    mem[0] = 'x';
    abort();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *mem = malloc(FILL);
    if (!mem)
        MPI_Abort(MPI_COMM_WORLD, 2);
    memset(mem, 'a' + rank, FILL);
    /* A window in the one-sided region, so that its used part is dumped. */
    int *win_mem;
    MPI_Win win;
    MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 1)
        crash_here(mem);
    for (;;)
        pause();
}
