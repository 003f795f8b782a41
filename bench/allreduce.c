/* allreduce.c — MPI_Allreduce latency (osu_allreduce); see reduce_bench.h. */
#include "reduce_bench.h"

int main(int argc, char **argv)
{
    return reduce_bench_main(argc, argv, RED_ALLREDUCE);
}
