/* Run by unsupported_fatal.sh (test abi_unsupported_fatal): an unimplemented function under the default
 * error handler (MPI_ERRORS_ARE_FATAL) must end the job. */
#include <stdio.h>

#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* no communicator argument: MPI_COMM_SELF's handler, fatal by default */
    MPI_Comm joined = MPI_COMM_NULL;
    int rc = MPI_Comm_join(-1, &joined);
    printf("NOT REACHED: MPI_Comm_join returned %d\n", rc);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
