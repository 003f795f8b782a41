/* The local rank that picks a rank's heap slot before MPI_Init runs
 * (smap_early_local_rank) comes from whichever launcher started the rank.
 * Under srun (--mpi=pmix or pmi2) only SLURM_LOCALID gives it: PMI_RANK
 * is the global rank, and every rank past the first node took a slot
 * chosen for another local rank (a warning per rank, issue 37).
 * Usage: smap_local_rank EXPECTED (the variables come from the test). */
#include <stdio.h>
#include <stdlib.h>

#include "smap/smap.h"

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    int want = atoi(argv[1]), got = smap_early_local_rank();
    if (got != want) {
        fprintf(stderr, "smap_early_local_rank: %d, expected %d\n", got, want);
        return 1;
    }
    printf("smap_early_local_rank: %d\n", got);
    return 0;
}
