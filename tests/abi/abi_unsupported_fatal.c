/* Run by unsupported_fatal.sh (test abi_unsupported_fatal): an unimplemented function under the default
 * error handler (MPI_ERRORS_ARE_FATAL) must end the job. */
#include <stdio.h>

#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* no communicator argument: MPI_COMM_SELF's handler, fatal by default */
    int rc = MPI_Register_datarep("abi_unsupported", MPI_CONVERSION_FN_NULL,
                                  MPI_CONVERSION_FN_NULL, NULL, NULL);
    printf("NOT REACHED: MPI_Register_datarep returned %d\n", rc);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
