! fortran_p2p: point-to-point through `use mpi` -- status fields, the
! sentinels MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE, MPI_Get_count,
! nonblocking requests (Isend/Irecv/Waitall), strings with hidden lengths
! (communicator names, MPI_Get_processor_name, MPI_Error_string),
! MPI_Comm_get_attr(MPI_TAG_UB) and MPI_Alloc_mem into a TYPE(C_PTR).
! Any rank count >= 2.
program f_p2p
  use mpi
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_associated
  implicit none
  integer :: ierr, me, np, peer, n, i, reqs(4), idx, idxs(4)
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 4)
  double precision :: a(10), b(10), c(10), d(10)
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=MPI_MAX_ERROR_STRING) :: msg
  integer(kind=MPI_ADDRESS_KIND) :: tagub
  logical :: flag
  type(c_ptr) :: mem
  integer, pointer :: arr(:)

  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'init')
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call check(np >= 2, 'needs 2 ranks')

  ! blocking exchange between 0 and 1, status fields
  if (me < 2) then
    peer = 1 - me
    a = [(dble(i + 100 * me), i = 1, 10)]
    if (me == 0) then
      call MPI_Send(a, 7, MPI_DOUBLE_PRECISION, peer, 42, MPI_COMM_WORLD, ierr)
      call MPI_Recv(b, 10, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, &
                    MPI_COMM_WORLD, st, ierr)
    else
      call MPI_Recv(b, 10, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, &
                    MPI_COMM_WORLD, st, ierr)
      call MPI_Send(a, 7, MPI_DOUBLE_PRECISION, peer, 43, MPI_COMM_WORLD, ierr)
    end if
    call check(ierr == MPI_SUCCESS, 'recv')
    call check(st(MPI_SOURCE) == peer, 'status MPI_SOURCE')
    call check(st(MPI_TAG) == 42 + peer, 'status MPI_TAG')
    call MPI_Get_count(st, MPI_DOUBLE_PRECISION, n, ierr)
    call check(n == 7, 'MPI_Get_count')
    call check(all(b(1:7) == [(dble(i + 100 * peer), i = 1, 7)]), 'received data')

    ! MPI_STATUS_IGNORE, then nonblocking with MPI_STATUSES_IGNORE and statuses
    call MPI_Sendrecv(a, 3, MPI_DOUBLE_PRECISION, peer, 1, b, 3, MPI_DOUBLE_PRECISION, &
                      peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. b(3) == dble(3 + 100 * peer), 'sendrecv')
    call MPI_Irecv(b, 10, MPI_DOUBLE_PRECISION, peer, 5, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(c, 10, MPI_DOUBLE_PRECISION, peer, 6, MPI_COMM_WORLD, reqs(2), ierr)
    d = a + 1
    call MPI_Isend(a, 10, MPI_DOUBLE_PRECISION, peer, 5, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Isend(d, 4, MPI_DOUBLE_PRECISION, peer, 6, MPI_COMM_WORLD, reqs(4), ierr)
    call check(reqs(1) /= MPI_REQUEST_NULL, 'Irecv request')
    call MPI_Waitall(4, reqs, sts, ierr)
    call check(ierr == MPI_SUCCESS, 'waitall')
    call check(all(reqs == MPI_REQUEST_NULL), 'requests freed')
    call check(sts(MPI_TAG, 2) == 6 .and. sts(MPI_SOURCE, 1) == peer, 'waitall statuses')
    call MPI_Get_count(sts(:, 2), MPI_DOUBLE_PRECISION, n, ierr)
    call check(n == 4 .and. c(4) == dble(5 + 100 * peer), 'second message')
    call MPI_Isend(a, 1, MPI_DOUBLE_PRECISION, peer, 7, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(b, 1, MPI_DOUBLE_PRECISION, peer, 7, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. b(1) == dble(1 + 100 * peer), 'statuses ignore')
  end if

  ! request indices count from 1 in Fortran (Waitany, Waitsome, Testany)
  if (me < 2) then
    call MPI_Irecv(b, 1, MPI_DOUBLE_PRECISION, peer, 8, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(c, 1, MPI_DOUBLE_PRECISION, peer, 9, MPI_COMM_WORLD, reqs(2), ierr)
    reqs(3) = MPI_REQUEST_NULL
    call MPI_Send(a, 1, MPI_DOUBLE_PRECISION, peer, 9, MPI_COMM_WORLD, ierr)
    call MPI_Waitany(3, reqs, idx, st, ierr)
    call check(idx == 2 .and. reqs(2) == MPI_REQUEST_NULL .and. st(MPI_TAG) == 9, 'Waitany index')
    ! tag 8 only once both sides are past Waitany (else it may complete first)
    call MPI_Sendrecv(a, 1, MPI_DOUBLE_PRECISION, peer, 10, d, 1, MPI_DOUBLE_PRECISION, &
                      peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Send(a, 1, MPI_DOUBLE_PRECISION, peer, 8, MPI_COMM_WORLD, ierr)
    call MPI_Waitsome(3, reqs, n, idxs, sts, ierr)
    call check(n == 1 .and. idxs(1) == 1, 'Waitsome indices')
    call MPI_Testany(3, reqs, idx, flag, MPI_STATUS_IGNORE, ierr)
    call check(flag .and. idx == MPI_UNDEFINED, 'Testany with no active request')
  end if

  ! strings: set and get a name (blank padding), processor name, error string
  call MPI_Comm_set_name(MPI_COMM_WORLD, 'fortran world   ', ierr)
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, n, ierr)
  call check(n == 13 .and. name == 'fortran world', 'comm name')
  call MPI_Get_processor_name(host, n, ierr)
  call check(n > 0 .and. len_trim(host) == n, 'processor name')
  call MPI_Error_string(MPI_ERR_TAG, msg, n, ierr)
  call check(n > 0 .and. len_trim(msg) == n, 'error string')

  ! predefined attribute: its value, not an address
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tagub, flag, ierr)
  call check(flag .and. tagub >= 32767, 'MPI_TAG_UB')

  ! MPI_Alloc_mem's TYPE(C_PTR) form (MPI_ALLOC_MEM_CPTR)
  tagub = 10 * 4
  call MPI_Alloc_mem(tagub, MPI_INFO_NULL, mem, ierr)
  call check(ierr == MPI_SUCCESS .and. c_associated(mem), 'Alloc_mem C_PTR')
  call c_f_pointer(mem, arr, [10])
  arr = [(i, i = 1, 10)]
  call check(sum(arr) == 55, 'memory usable')
  call MPI_Free_mem(arr, ierr)
  call check(ierr == MPI_SUCCESS, 'Free_mem')

  call MPI_Finalize(ierr)
  if (me == 0) print *, 'PASS fortran_p2p'
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
end program f_p2p
