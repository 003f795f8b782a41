/* gather.c — MPI_Gather latency (osu_gather) to rank 0; see rooted_bench.h. */
#include "rooted_bench.h"

int main(int argc, char **argv)
{
    return rooted_bench_main(argc, argv, 1);
}
