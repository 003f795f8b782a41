! Fortran twin of latency.c at one size (the Fortran bindings' cost, issue
! 33): ping-pong of 8 bytes (MPI_BYTE) between ranks 0 and 1 with MPI_Send +
! MPI_Recv, as latency.c times it (warm-up, then one MPI_Wtime interval
! over the iterations); usec is half the round trip.  Built with -DF08 for
! `use mpi_f08`, without for `use mpi`.  Argument: iterations (20000).
program f_latency
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer, parameter :: n = 8
  integer(kind=1) :: sbuf(n), rbuf(n)
  integer :: me, ierr, i, iters, warm
  double precision :: t0, t
  character(len=32) :: arg
#ifdef F08
  character(len=*), parameter :: what = 'f08_latency'
#else
  character(len=*), parameter :: what = 'usempi_latency'
#endif
  iters = 20000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  warm = max(iters / 10, 2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  sbuf = int(me + 1, 1)
  rbuf = 0
  t0 = 0
  do i = 1, warm + iters
    if (i == warm + 1) t0 = MPI_Wtime()
    if (me == 0) then
      call MPI_Send(sbuf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, ierr)
      call MPI_Recv(rbuf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else if (me == 1) then
      call MPI_Recv(rbuf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(sbuf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, ierr)
    end if
  end do
  t = MPI_Wtime() - t0
  if (me < 2 .and. any(rbuf /= int(2 - me, 1))) then
    print *, 'VALIDATION FAILED bench=', what
    call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  end if
  if (me == 0) print '(A,A,A,I0,A,I0,A,F0.4)', 'RESULT bench=', what, ' np=2 size=', n, &
                                           ' iters=', iters, ' usec=', t / iters / 2 * 1d6
  call MPI_Finalize(ierr)
end program f_latency
