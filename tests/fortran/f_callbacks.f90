! fortran_callbacks: procedures written in Fortran and called by the
! library with Fortran conventions -- an error handler (MPI_Comm_create_
! errhandler: gets the communicator's INTEGER handle and the code),
! MPI_ERRORS_RETURN, attribute copy/delete callbacks on MPI_Comm_dup /
! MPI_Comm_free (INTEGER(KIND=MPI_ADDRESS_KIND) values), the predefined
! MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN, and a generalized request.
module f_cb
  use mpi
  implicit none
  integer :: eh_calls = 0, eh_code = 0, eh_comm = -1
  integer :: copies = 0, deletes = 0, frees = 0
  integer(kind=MPI_ADDRESS_KIND) :: last_extra = 0
contains
  subroutine handler(comm, code)
    integer :: comm, code
    eh_calls = eh_calls + 1
    eh_code = code
    eh_comm = comm
  end subroutine handler

  subroutine copy_fn(oldcomm, keyval, extra, valin, valout, flag, ierr)
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    copies = copies + 1
    last_extra = extra
    valout = valin + 1
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine copy_fn

  subroutine delete_fn(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deletes = deletes + 1
    ierr = MPI_SUCCESS
  end subroutine delete_fn

  subroutine query_fn(extra, status, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierr
    status(MPI_SOURCE) = int(extra)
    status(MPI_TAG) = 77
    status(MPI_ERROR) = MPI_SUCCESS
    call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierr)
    call MPI_Status_set_cancelled(status, .false., ierr)
    ierr = MPI_SUCCESS
  end subroutine query_fn

  subroutine free_fn(extra, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierr
    frees = frees + int(extra)
    ierr = MPI_SUCCESS
  end subroutine free_fn

  subroutine cancel_fn(extra, complete, ierr)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierr
    ierr = MPI_SUCCESS
  end subroutine cancel_fn
end module f_cb

program f_callbacks
  use mpi
  use f_cb
  implicit none
  integer :: ierr, me, eh, kv, kv2, dup, dup2, req, n
  integer :: st(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)

  ! MPI_ERRORS_RETURN: the error comes back as the code
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(n, 1, MPI_INTEGER, 0, -5, dup, ierr)
  call check(ierr /= MPI_SUCCESS, 'ERRORS_RETURN code')
  call MPI_Error_class(ierr, n, ierr)
  call check(n == MPI_ERR_TAG, 'error class MPI_ERR_TAG')

  ! a Fortran error handler
  call MPI_Comm_create_errhandler(handler, eh, ierr)
  call check(ierr == MPI_SUCCESS, 'create_errhandler')
  call MPI_Comm_set_errhandler(dup, eh, ierr)
  call MPI_Send(n, 1, MPI_INTEGER, 0, -5, dup, ierr)
  call check(eh_calls == 1, 'handler called once')
  call check(eh_comm == dup, 'handler got the communicator')
  call MPI_Error_class(eh_code, n, ierr)
  call check(n == MPI_ERR_TAG, 'handler got the code')
  call MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER, ierr)
  call check(eh_calls == 2 .and. eh_code == MPI_ERR_OTHER, 'Comm_call_errhandler')
  call MPI_Errhandler_free(eh, ierr)

  ! attributes with Fortran callbacks: copied on dup, deleted on free
  extra = 1234
  call MPI_Comm_create_keyval(copy_fn, delete_fn, kv, extra, ierr)
  val = 40
  call MPI_Comm_set_attr(dup, kv, val, ierr)
  call MPI_Comm_dup(dup, dup2, ierr)
  call check(copies == 1 .and. last_extra == 1234, 'copy callback')
  call MPI_Comm_get_attr(dup2, kv, val, flag, ierr)
  call check(flag .and. val == 41, 'copied value')
  call MPI_Comm_free(dup2, ierr)
  call check(deletes == 1, 'delete callback on free')
  call MPI_Comm_delete_attr(dup, kv, ierr)
  call check(deletes == 2, 'delete callback on delete_attr')
  call MPI_Comm_free_keyval(kv, ierr)

  ! predefined callbacks: DUP_FN copies the value, NULL_COPY_FN does not
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, kv2, extra, ierr)
  val = 99
  call MPI_Comm_set_attr(dup, kv, val, ierr)
  call MPI_Comm_set_attr(dup, kv2, val, ierr)
  call MPI_Comm_dup(dup, dup2, ierr)
  call MPI_Comm_get_attr(dup2, kv, val, flag, ierr)
  call check(flag .and. val == 99, 'MPI_COMM_DUP_FN')
  call MPI_Comm_get_attr(dup2, kv2, val, flag, ierr)
  call check(.not. flag, 'MPI_COMM_NULL_COPY_FN')
  call MPI_Comm_free(dup2, ierr)
  call MPI_Comm_free_keyval(kv, ierr)
  call MPI_Comm_free_keyval(kv2, ierr)
  call MPI_Comm_free(dup, ierr)

  ! a generalized request completed at once; its status from query_fn
  extra = 5
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
  call check(ierr == MPI_SUCCESS, 'Grequest_start')
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, st, ierr)
  call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL, 'Grequest wait')
  call check(st(MPI_SOURCE) == 5 .and. st(MPI_TAG) == 77, 'Grequest status')
  call MPI_Get_count(st, MPI_INTEGER, n, ierr)
  call check(n == 3, 'Grequest count')
  call check(frees == 5, 'Grequest free_fn')

  call MPI_Finalize(ierr)
  if (me == 0) print *, 'PASS fortran_callbacks'
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      print *, 'FAIL: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check
end program f_callbacks
