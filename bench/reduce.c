/* reduce.c — MPI_Reduce latency (osu_reduce) to root 0; see reduce_bench.h. */
#include "reduce_bench.h"

int main(int argc, char **argv)
{
    return reduce_bench_main(argc, argv, RED_REDUCE);
}
