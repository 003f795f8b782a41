! The Fortran binding's own cost per call, robust to a loaded machine:
! MPI_Send of 8 bytes to MPI_PROC_NULL (no communication), 200000 calls
! timed, best of 20 repetitions, in ns per call; c_overhead.c is the C twin.
! Built with -DF08 for `use mpi_f08`.  One rank.
program f_overhead
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer, parameter :: calls = 200000
  integer(kind=1) :: buf(8)
  integer :: ierr, i, r
  double precision :: t0, best
#ifdef F08
  character(len=*), parameter :: what = 'f08_overhead'
#else
  character(len=*), parameter :: what = 'usempi_overhead'
#endif
  call MPI_Init(ierr)
  buf = 0
  best = 1d9
  do r = 1, 20
    t0 = MPI_Wtime()
    do i = 1, calls
      call MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, ierr)
    end do
    best = min(best, (MPI_Wtime() - t0) / calls * 1d6)
  end do
  print '(A,A,A,I0,A,F0.6)', 'RESULT bench=', what, ' np=1 size=8 iters=', calls, ' usec=', best
  call MPI_Finalize(ierr)
end program f_overhead
