! fortran_reduce: reductions on Fortran types through `use mpi` -- LOGICAL
! with MPI_LAND/MPI_LOR/MPI_LXOR (the compiler's .TRUE.), MPI_IN_PLACE,
! DOUBLE PRECISION and COMPLEX sums, MPI_2INTEGER with MPI_MAXLOC, and a
! user op written in Fortran (MPI_Op_create: called with Fortran
! conventions, the datatype as an INTEGER handle), and the LOGICAL values
! MPI_Abi_get_fortran_booleans reports.
module f_reduce_ops
  use mpi
  implicit none
  integer :: seen_type = -1
contains
  subroutine absmax(invec, inoutvec, n, dtype)
    integer :: n, dtype, i
    integer :: invec(n), inoutvec(n)
    seen_type = dtype
    do i = 1, n
      inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
    end do
  end subroutine absmax
end module f_reduce_ops

program f_reduce
  use mpi
  use f_reduce_ops
  implicit none
  integer :: ierr, me, np, op, i
  logical :: l(3), r(3), lt, lf, isset
  double precision :: x(2)
  complex :: z, zs
  integer :: pair(2), res(2), v(2), w(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

  ! LOGICAL: true everywhere / true on rank 0 only / true on each rank
  l = [.true., me == 0, .true.]
  call MPI_Allreduce(l, r, 3, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call check(r(1) .and. (r(2) .eqv. (np == 1)) .and. r(3), 'LAND')
  call MPI_Allreduce(l, r, 3, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call check(all(r), 'LOR')
  call MPI_Allreduce(l, r, 3, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD, ierr)
  call check((r(1) .eqv. (mod(np, 2) == 1)) .and. r(2), 'LXOR')
  ! the result is the compiler's .TRUE.: usable in .EQV. and as an IF test
  call check(transfer(r(2), 1) == transfer(.true., 1), 'LOGICAL .TRUE. bits')

  ! MPI_IN_PLACE, DOUBLE PRECISION
  x = [dble(me), 1.0d0]
  call MPI_Allreduce(MPI_IN_PLACE, x, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(x(1) == dble(np * (np - 1) / 2) .and. x(2) == dble(np), 'IN_PLACE sum')
  z = cmplx(1.0, real(me))
  call MPI_Reduce(z, zs, 1, MPI_COMPLEX, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (me == 0) call check(zs == cmplx(real(np), real(np * (np - 1) / 2)), 'COMPLEX sum')

  ! MAXLOC on 2INTEGER pairs (value, index)
  pair = [mod(me * 7, 5), me]
  call MPI_Allreduce(pair, res, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(res(1) == maxval([(mod(i * 7, 5), i = 0, np - 1)]), 'MAXLOC value')
  call check(mod(res(2) * 7, 5) == res(1), 'MAXLOC index')

  ! a Fortran user op
  call MPI_Op_create(absmax, .true., op, ierr)
  call check(ierr == MPI_SUCCESS, 'Op_create')
  v = [-(me + 1), me]
  call MPI_Allreduce(v, w, 2, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  if (np > 1) call check(w(1) == np .and. w(2) == np - 1, 'user op result')
  if (np == 1) call check(all(w == v), 'user op, one rank')
  if (np > 1) call check(seen_type == MPI_INTEGER, 'user op datatype handle')
  call MPI_Op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'Op_free')

  ! the booleans the binding uses are the ones the ABI reports
  call MPI_Abi_get_fortran_booleans(4, lt, lf, isset, ierr)
  call check(ierr == MPI_SUCCESS .and. isset, 'Abi_get_fortran_booleans set')
  call check(transfer(lt, 1) == transfer(.true., 1) .and. transfer(lf, 1) == transfer(.false., 1), &
             'Fortran booleans are the compiler''s')

  call MPI_Finalize(ierr)
  if (me == 0) print *, 'PASS fortran_reduce'
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
end program f_reduce
