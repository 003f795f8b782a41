! Fortran twin of allreduce.c at 8 bytes (issue 33): MPI_Allreduce of two
! REALs (MPI_REAL, MPI_SUM), a barrier before each call and only the call
! timed, as common.c's bench_time_coll; usec is the mean over ranks.  Built
! with -DF08 for `use mpi_f08`.  Argument: iterations (5000).
program f_allreduce
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  real :: x(2), y(2)
  integer :: me, np, ierr, i, iters, warm
  double precision :: t0, acc, sum
  character(len=32) :: arg
#ifdef F08
  character(len=*), parameter :: what = 'f08_allreduce'
#else
  character(len=*), parameter :: what = 'usempi_allreduce'
#endif
  iters = 5000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  warm = max(iters / 10, 2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  x = [1.0, real(me)]
  acc = 0
  do i = 1, warm + iters
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t0 = MPI_Wtime()
    call MPI_Allreduce(x, y, 2, MPI_REAL, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (i > warm) acc = acc + (MPI_Wtime() - t0)
  end do
  if (y(1) /= real(np) .or. y(2) /= real(np * (np - 1) / 2)) then
    print *, 'VALIDATION FAILED bench=', what
    call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  end if
  acc = acc / iters * 1d6
  call MPI_Reduce(acc, sum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (me == 0) print '(A,A,A,I0,A,I0,A,F0.4)', 'RESULT bench=', what, ' np=', np, &
                                           ' size=8 iters=', iters, ' usec=', sum / np
  call MPI_Finalize(ierr)
end program f_allreduce
