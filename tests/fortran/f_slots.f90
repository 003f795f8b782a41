! fortran_slots: each Fortran error handler or user op is bound to its C
! object (src/binding/fortran/callbacks.c): 12 handlers and 12 ops, each
! must be the one called for its object, and the same procedure given
! twice works for both objects (fortran_many: hundreds of them).
module slots_procs
  use mpi
  implicit none
  integer :: last = 0
contains
  subroutine h1(comm, code)
    integer :: comm, code
    last = 1 + 0 * (comm + code)
  end subroutine h1
  subroutine op1(a, b, n, t)
    integer :: n, t, a(n), b(n)
    b = a + b + 1 + 0 * t
  end subroutine op1
  subroutine h2(comm, code)
    integer :: comm, code
    last = 2 + 0 * (comm + code)
  end subroutine h2
  subroutine op2(a, b, n, t)
    integer :: n, t, a(n), b(n)
    b = a + b + 2 + 0 * t
  end subroutine op2
  subroutine h3(comm, code)
    integer :: comm, code
    last = 3 + 0 * (comm + code)
  end subroutine h3
  subroutine op3(a, b, n, t)
    integer :: n, t, a(n), b(n)
    b = a + b + 3 + 0 * t
  end subroutine op3
  subroutine h4(comm, code)
    integer :: comm, code
    last = 4 + 0 * (comm + code)
  end subroutine h4
  subroutine op4(a, b, n, t)
    integer :: n, t, a(n), b(n)
    b = a + b + 4 + 0 * t
  end subroutine op4
  subroutine h5(comm, code)
    integer :: comm, code
    last = 5 + 0 * (comm + code)
  end subroutine h5
  subroutine op5(a, b, n, t)
    integer :: n, t, a(n), b(n)
    b = a + b + 5 + 0 * t
  end subroutine op5
  subroutine h6(comm, code)
    integer :: comm, code
    last = 6 + 0 * (comm + code)
  end subroutine h6
  subroutine op6(a, b, n, t)
    integer :: n, t, a(n), b(n)
    b = a + b + 6 + 0 * t
  end subroutine op6
  subroutine h7(comm, code)
    integer :: comm, code
    last = 7 + 0 * (comm + code)
  end subroutine h7
  subroutine op7(a, b, n, t)
    integer :: n, t, a(n), b(n)
    b = a + b + 7 + 0 * t
  end subroutine op7
  subroutine h8(comm, code)
    integer :: comm, code
    last = 8 + 0 * (comm + code)
  end subroutine h8
  subroutine op8(a, b, n, t)
    integer :: n, t, a(n), b(n)
    b = a + b + 8 + 0 * t
  end subroutine op8
  subroutine h9(comm, code)
    integer :: comm, code
    last = 9 + 0 * (comm + code)
  end subroutine h9
  subroutine op9(a, b, n, t)
    integer :: n, t, a(n), b(n)
    b = a + b + 9 + 0 * t
  end subroutine op9
  subroutine h10(comm, code)
    integer :: comm, code
    last = 10 + 0 * (comm + code)
  end subroutine h10
  subroutine op10(a, b, n, t)
    integer :: n, t, a(n), b(n)
    b = a + b + 10 + 0 * t
  end subroutine op10
  subroutine h11(comm, code)
    integer :: comm, code
    last = 11 + 0 * (comm + code)
  end subroutine h11
  subroutine op11(a, b, n, t)
    integer :: n, t, a(n), b(n)
    b = a + b + 11 + 0 * t
  end subroutine op11
  subroutine h12(comm, code)
    integer :: comm, code
    last = 12 + 0 * (comm + code)
  end subroutine h12
  subroutine op12(a, b, n, t)
    integer :: n, t, a(n), b(n)
    b = a + b + 12 + 0 * t
  end subroutine op12
end module slots_procs

program f_slots
  use mpi
  use slots_procs
  implicit none
  integer :: ierr, me, np, k, eh(13), op(12), x, y
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_Comm_create_errhandler(h1, eh(1), ierr)
  call MPI_Op_create(op1, .true., op(1), ierr)
  call MPI_Comm_create_errhandler(h2, eh(2), ierr)
  call MPI_Op_create(op2, .true., op(2), ierr)
  call MPI_Comm_create_errhandler(h3, eh(3), ierr)
  call MPI_Op_create(op3, .true., op(3), ierr)
  call MPI_Comm_create_errhandler(h4, eh(4), ierr)
  call MPI_Op_create(op4, .true., op(4), ierr)
  call MPI_Comm_create_errhandler(h5, eh(5), ierr)
  call MPI_Op_create(op5, .true., op(5), ierr)
  call MPI_Comm_create_errhandler(h6, eh(6), ierr)
  call MPI_Op_create(op6, .true., op(6), ierr)
  call MPI_Comm_create_errhandler(h7, eh(7), ierr)
  call MPI_Op_create(op7, .true., op(7), ierr)
  call MPI_Comm_create_errhandler(h8, eh(8), ierr)
  call MPI_Op_create(op8, .true., op(8), ierr)
  call MPI_Comm_create_errhandler(h9, eh(9), ierr)
  call MPI_Op_create(op9, .true., op(9), ierr)
  call MPI_Comm_create_errhandler(h10, eh(10), ierr)
  call MPI_Op_create(op10, .true., op(10), ierr)
  call MPI_Comm_create_errhandler(h11, eh(11), ierr)
  call MPI_Op_create(op11, .true., op(11), ierr)
  call MPI_Comm_create_errhandler(h12, eh(12), ierr)
  call MPI_Op_create(op12, .true., op(12), ierr)
  call MPI_Comm_create_errhandler(h11, eh(13), ierr)   ! h11 again
  do k = 1, 13
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, eh(k), ierr)
    call MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_OTHER, ierr)
    if (last /= merge(11, k, k == 13)) then
      print *, 'FAIL: handler', k, 'ran', last
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end do
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
  do k = 1, 12
    x = 1
    call MPI_Allreduce(x, y, 1, MPI_INTEGER, op(k), MPI_COMM_WORLD, ierr)
    ! np ones combined by np - 1 applications of b = a + b + k
    if (y /= np + (np - 1) * k) then
      print *, 'FAIL: op', k, 'gave', y
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
    call MPI_Op_free(op(k), ierr)
  end do
  do k = 1, 13
    call MPI_Errhandler_free(eh(k), ierr)
  end do
  call MPI_Finalize(ierr)
  if (me == 0) print *, 'PASS fortran_slots'
end program f_slots
