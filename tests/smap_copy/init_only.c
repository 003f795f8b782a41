/* Starts and stops MPI and prints what smartmap.h reports: the program of
 * smap_copy_badenv, whose MPI_Init must fail on malformed settings. */
#include <smartmap.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rc = MPI_Init(&argc, &argv);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init returned %d\n", rc);
        return 3;
    }
    printf("ok local rank %d of %d\n", smap_local_rank(), smap_local_size());
    MPI_Finalize();
    return 0;
}
