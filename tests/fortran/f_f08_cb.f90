! fortran_f08_callbacks: mpi_f08's callback procedures, written with the
! mpi_f08 dummy types (MPI 5.0 §19.2: TYPE(C_PTR), VALUE vectors and a
! TYPE(MPI_Datatype) in a user op; TYPE(MPI_Comm) in an error handler and
! in attribute callbacks), passed to MPI_Op_create, MPI_Comm_create_
! errhandler and MPI_Comm_create_keyval of `use mpi_f08`.
module f08_cb
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: calls = 0, copies = 0
  type(MPI_Datatype) :: seen
  type(MPI_Comm) :: eh_comm
contains
  subroutine maxabs(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = max(abs(a), abs(b))
    seen = datatype
  end subroutine maxabs

  subroutine maxabs_c(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = max(abs(a), abs(b)) + 0 * datatype%MPI_VAL
  end subroutine maxabs_c

  subroutine handler(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    calls = calls + 1
    eh_comm = comm
  end subroutine handler

  subroutine copy(oldcomm, keyval, extra, vin, vout, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, vin, vout
    logical :: flag
    copies = copies + 1
    vout = vin * 2 + extra
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine copy
end module f08_cb

program f_f08_cb
  use mpi_f08
  use f08_cb
  implicit none
  integer :: me, np, v(2), w(2), kv, ierr
  type(MPI_Op) :: op
  type(MPI_Errhandler) :: eh
  type(MPI_Comm) :: dup, dup2
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  logical :: flag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call MPI_Op_create(maxabs, .true., op)
  v = [-(me + 1), me]
  call MPI_Allreduce(v, w, 2, MPI_INTEGER, op, MPI_COMM_WORLD)
  if (np > 1) call check(w(1) == np .and. w(2) == np - 1 .and. seen == MPI_INTEGER, 'f08 user op')
  call MPI_Op_free(op)
  call MPI_Op_create_c(maxabs_c, .true., op)
  w = 0
  call MPI_Allreduce(v, w, 2, MPI_INTEGER, op, MPI_COMM_WORLD)
  if (np > 1) call check(w(1) == np .and. w(2) == np - 1, 'f08 large-count user op')
  call MPI_Op_free(op)

  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_create_errhandler(handler, eh)
  call MPI_Comm_set_errhandler(dup, eh)
  call MPI_Send(v, 1, MPI_INTEGER, 0, -3, dup, ierr)
  call check(calls == 1 .and. eh_comm == dup .and. ierr /= MPI_SUCCESS, 'f08 error handler')
  call MPI_Errhandler_free(eh)

  extra = 1
  call MPI_Comm_create_keyval(copy, MPI_COMM_NULL_DELETE_FN, kv, extra)
  val = 20
  call MPI_Comm_set_attr(dup, kv, val)
  call MPI_Comm_dup(dup, dup2)
  call MPI_Comm_get_attr(dup2, kv, val, flag)
  call check(copies == 1 .and. flag .and. val == 41, 'f08 copy callback')
  call MPI_Comm_free(dup2)
  call MPI_Comm_free(dup)
  call MPI_Comm_free_keyval(kv)
  call MPI_Finalize()
  if (me == 0) print *, 'PASS fortran_f08_callbacks'
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print *, 'FAIL: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check
end program f_f08_cb
