! fortran_many: no fixed limit on Fortran callbacks (src/binding/fortran/
! callbacks.c binds each Fortran procedure to its C object as context).
! 200 distinct user ops and 100 distinct error handlers are created, each
! used (the op in an MPI_Allreduce, the handler through
! MPI_Comm_call_errhandler) and must be the one called, then freed.
! The procedures are written by the preprocessor: op<k> adds k to
! the sum, h<k> records k.  (Traditional cpp: a/**/b pastes tokens.)
#define CAT(a,b) a/**/b
#define OP(k) subroutine CAT(op,k)(a, b, n, t); integer :: n, t, a(n), b(n); b = a + b + k + 0 * t; end subroutine;
#define H(k) subroutine CAT(h,k)(comm, code); integer :: comm, code; last = k + 0 * (comm + code); end subroutine;
#define OP10(d) OP(d/**/0) OP(d/**/1) OP(d/**/2) OP(d/**/3) OP(d/**/4) OP(d/**/5) OP(d/**/6) OP(d/**/7) OP(d/**/8) OP(d/**/9)
#define H10(d) H(d/**/0) H(d/**/1) H(d/**/2) H(d/**/3) H(d/**/4) H(d/**/5) H(d/**/6) H(d/**/7) H(d/**/8) H(d/**/9)
#define MKOP(k) call MPI_Op_create(CAT(op,k), .true., op(k - 99), ierr); call check(ierr, k);
#define MKH(k) call MPI_Comm_create_errhandler(CAT(h,k), eh(k - 99), ierr); call check(ierr, k);
#define MKOP10(d) MKOP(d/**/0) MKOP(d/**/1) MKOP(d/**/2) MKOP(d/**/3) MKOP(d/**/4) MKOP(d/**/5) MKOP(d/**/6) MKOP(d/**/7) MKOP(d/**/8) MKOP(d/**/9)
#define MKH10(d) MKH(d/**/0) MKH(d/**/1) MKH(d/**/2) MKH(d/**/3) MKH(d/**/4) MKH(d/**/5) MKH(d/**/6) MKH(d/**/7) MKH(d/**/8) MKH(d/**/9)
! Procedure k is named op<k> with k written in three digits (op100 .. op299,
! h100 .. h199) so that every name has the same length; its number minus 99
! is its index in op(:) / eh(:).
module many_procs
  use mpi
  implicit none
  integer :: last = 0
contains
  subroutine check(ierr, what)
    integer :: ierr, what
    if (ierr /= MPI_SUCCESS) then
      print *, 'FAIL: creating callback', what, 'ierr', ierr
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine check
  OP10(10) OP10(11) OP10(12) OP10(13) OP10(14) OP10(15) OP10(16) OP10(17) OP10(18) OP10(19)
  OP10(20) OP10(21) OP10(22) OP10(23) OP10(24) OP10(25) OP10(26) OP10(27) OP10(28) OP10(29)
  H10(10) H10(11) H10(12) H10(13) H10(14) H10(15) H10(16) H10(17) H10(18) H10(19)
end module many_procs

program f_many
  use mpi
  use many_procs
  implicit none
  integer, parameter :: NOPS = 200, NEH = 100
  integer :: ierr, me, np, k, eh(NEH), op(NOPS), x, y
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  MKOP10(10) MKOP10(11) MKOP10(12) MKOP10(13) MKOP10(14) MKOP10(15) MKOP10(16) MKOP10(17) MKOP10(18) MKOP10(19)
  MKOP10(20) MKOP10(21) MKOP10(22) MKOP10(23) MKOP10(24) MKOP10(25) MKOP10(26) MKOP10(27) MKOP10(28) MKOP10(29)
  MKH10(10) MKH10(11) MKH10(12) MKH10(13) MKH10(14) MKH10(15) MKH10(16) MKH10(17) MKH10(18) MKH10(19)
  do k = 1, NEH
    last = 0
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, eh(k), ierr)
    call MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_OTHER, ierr)
    if (last /= k + 99) then
      print *, 'FAIL: handler', k, 'ran', last
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end do
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
  do k = 1, NOPS
    x = me + 1
    call MPI_Allreduce(x, y, 1, MPI_INTEGER, op(k), MPI_COMM_WORLD, ierr)
    ! 1 + ... + np, combined by np - 1 applications of b = a + b + (k + 99)
    if (ierr /= MPI_SUCCESS .or. y /= np * (np + 1) / 2 + (np - 1) * (k + 99)) then
      print *, 'FAIL: op', k, 'gave', y, 'ierr', ierr
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    call MPI_Op_free(op(k), ierr)
    if (ierr /= MPI_SUCCESS .or. op(k) /= MPI_OP_NULL) then
      print *, 'FAIL: MPI_Op_free', k
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end do
  do k = 1, NEH
    call MPI_Errhandler_free(eh(k), ierr)
    if (ierr /= MPI_SUCCESS .or. eh(k) /= MPI_ERRHANDLER_NULL) then
      print *, 'FAIL: MPI_Errhandler_free', k
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end do
  call MPI_Finalize(ierr)
  if (me == 0) print *, 'PASS fortran_many'
end program f_many
