! fortran_f08: `use mpi_f08` -- TYPE(MPI_Comm)/TYPE(MPI_Status) handles,
! IERROR left out, non-contiguous array sections in MPI_Isend/MPI_Irecv and
! in blocking calls (MPI_SUBARRAYS_SUPPORTED: a strided section and a
! matrix row go as they are, received into a section of another shape), a
! count shorter than the section, the large-count generic (INTEGER(KIND=
! MPI_COUNT_KIND) count), MPI_IN_PLACE, MPI_STATUS_IGNORE, and the errors of
! a datatype whose size is not the section's element's and of a section
! given as window memory (collectives take sections: fortran_sections).
! 1-4 ranks.
program f_f08
  use mpi_f08
  implicit none
  integer :: me, np, peer, i, n, ierr, sz, k
  type(MPI_Request) :: reqs(4)
  type(MPI_Status) :: sts(4), st
  type(MPI_Comm) :: dup
  type(MPI_Win) :: win
  double precision :: a(20), b(20), m(4, 6), row(6), s
  integer(kind=MPI_COUNT_KIND) :: big
  integer :: got(10)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call check(MPI_SUBARRAYS_SUPPORTED, 'MPI_SUBARRAYS_SUPPORTED')
  peer = mod(me + 1, np)
  i = mod(me - 1 + np, np)          ! the rank sending to us

  ! strided section a(1:20:2) to the next rank, received into b(2:20:2)
  a = [(dble(k + 100 * me), k = 1, 20)]
  b = -1
  m = reshape([(dble(k + 1000 * me), k = 1, 24)], [4, 6])
  call MPI_Irecv(b(2:20:2), 10, MPI_DOUBLE_PRECISION, i, 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(row, 6, MPI_DOUBLE_PRECISION, i, 2, MPI_COMM_WORLD, reqs(2))
  call MPI_Isend(a(1:20:2), 10, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD, reqs(3))
  call MPI_Isend(m(3, :), 6, MPI_DOUBLE_PRECISION, peer, 2, MPI_COMM_WORLD, reqs(4))
  call MPI_Waitall(4, reqs, sts)
  call check(all(b(2:20:2) == [(dble(2 * k - 1 + 100 * i), k = 1, 10)]), 'strided section')
  call check(all(b(1:19:2) == -1), 'untouched between the section''s elements')
  call check(all(row == [(dble(3 + 4 * (k - 1) + 1000 * i), k = 1, 6)]), 'matrix row')
  call check(sts(2)%MPI_SOURCE == i .and. sts(2)%MPI_TAG == 2, 'TYPE(MPI_Status) fields')
  call MPI_Get_count(sts(1), MPI_DOUBLE_PRECISION, n)
  call check(n == 10, 'Get_count')

  ! blocking, a count shorter than the section (the first 3 of its elements)
  b = -1
  call MPI_Sendrecv(a(20:1:-3), 3, MPI_DOUBLE_PRECISION, peer, 3, b(1:20:4), 3, &
                    MPI_DOUBLE_PRECISION, i, 3, MPI_COMM_WORLD, st)
  call check(b(1) == dble(20 + 100 * i) .and. b(5) == dble(17 + 100 * i) .and. &
             b(9) == dble(14 + 100 * i) .and. b(13) == -1, 'short count, reversed section')

  ! large-count generic: INTEGER(KIND=MPI_COUNT_KIND) count
  big = 5
  b = -1
  call MPI_Sendrecv(a, big, MPI_DOUBLE_PRECISION, peer, 4, b, big, MPI_DOUBLE_PRECISION, &
                    i, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(b(5) == dble(5 + 100 * i) .and. b(6) == -1, 'large-count Sendrecv')

  ! MPI_IN_PLACE through the descriptor; handles compare with ==
  s = dble(me)
  call MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call check(s == dble(np * (np - 1) / 2), 'IN_PLACE')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call check(dup /= MPI_COMM_WORLD .and. dup%MPI_VAL /= MPI_COMM_NULL%MPI_VAL, 'dup')

  ! a section with a datatype of another size: an error, returned
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
  call MPI_Send(got(1:10:2), 5, MPI_DOUBLE_PRECISION, me, 5, dup, ierr)
  call check(ierr /= MPI_SUCCESS, 'mismatched section type refused')
  ! window memory must be contiguous (the standard's exception): refused,
  ! on the call's comm
  call MPI_Win_create(a(1:20:2), 80_MPI_ADDRESS_KIND, 8, MPI_INFO_NULL, dup, win, ierr)
  call MPI_Error_class(ierr, n)
  call check(n == MPI_ERR_BUFFER, 'section as window memory refused')
  call MPI_Sizeof(s, sz)
  call check(sz == 8, 'MPI_Sizeof')
  call MPI_Comm_free(dup)
  call check(dup == MPI_COMM_NULL, 'Comm_free')

  call MPI_Finalize()
  if (me == 0) print *, 'PASS fortran_f08'
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print *, 'FAIL: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check
end program f_f08
