/* scatter.c — MPI_Scatter latency (osu_scatter) from rank 0; see rooted_bench.h. */
#include "rooted_bench.h"

int main(int argc, char **argv)
{
    return rooted_bench_main(argc, argv, 0);
}
