/* reduce_scatter.c — MPI_Reduce_scatter_block latency (osu_reduce_scatter);
 * size is the block each rank receives; see reduce_bench.h. */
#include "reduce_bench.h"

int main(int argc, char **argv)
{
    return reduce_bench_main(argc, argv, RED_REDUCE_SCATTER);
}
