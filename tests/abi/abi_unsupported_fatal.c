/* Run by unsupported_fatal.sh (test abi_unsupported_fatal): an unimplemented function under the default
 * error handler (MPI_ERRORS_ARE_FATAL) must end the job. */
#include <stdio.h>

#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_File fh = MPI_FILE_NULL;
    MPI_Init(&argc, &argv);
    int rc = MPI_File_open(MPI_COMM_WORLD, "abi_unsupported.dat", MPI_MODE_RDONLY, MPI_INFO_NULL,
                           &fh);
    printf("NOT REACHED: MPI_File_open returned %d\n", rc);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
