! The Fortran hello of tests/fortran/tools.sh (mpifort, pkg-config, CMake).
program hello
  use mpi
  implicit none
  integer :: ierr, me, np, n
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_Get_processor_name(host, n, ierr)
  print '(A,I0,A,I0,A,A)', 'Hello from rank ', me, ' of ', np, ' on ', host(1:n)
  call MPI_Finalize(ierr)
end program hello
