! fortran_sections: non-contiguous array sections in mpi_f08 choice buffers
! beyond point-to-point (MPI_SUBARRAYS_SUPPORTED; src/binding/fortran/f08/
! section.c): collectives (blocking, nonblocking, persistent) and
! one-sided calls, MPI_Reduce_local and MPI_Pack's output take a(1, :) --
! every other element -- and must read and
! write exactly those elements, value by value, leaving the others alone.
! The standard's exception, an attached buffer, is refused with
! MPI_ERR_BUFFER.
program f_sections
  use mpi_f08
  implicit none
  integer, parameter :: N = 6, SENT = -7
  integer :: me, np, i, j, k, r, ierr, fails, cls
  integer, allocatable, asynchronous :: s(:, :), x(:, :), g(:, :), w(:)
  type(MPI_Request) :: req
  type(MPI_Win) :: win
  integer(MPI_ADDRESS_KIND) :: wsize, disp
  fails = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  allocate(s(2, N * np), x(2, N * np), g(3, N * np), w(N * np))

  ! ---- MPI_Bcast: the root's a(1, 1:N) to everyone's
  call fill(x, SENT)
  if (me == 0) x(1, 1:N) = [(100 + i, i = 1, N)]
  call MPI_Bcast(x(1, 1:N), N, MPI_INTEGER, 0, MPI_COMM_WORLD)
  do i = 1, N
    call want('bcast', i, x(1, i), 100 + i)
  end do
  call untouched('bcast', x, N)

  ! ---- MPI_Reduce and MPI_Allreduce: sum over ranks of me + i
  call fill(s, SENT)
  s(1, 1:N) = [(me + i, i = 1, N)]
  call fill(x, SENT)
  call MPI_Reduce(s(1, 1:N), x(1, 1:N), N, MPI_INTEGER, MPI_SUM, np - 1, MPI_COMM_WORLD)
  if (me == np - 1) then
    do i = 1, N
      call want('reduce', i, x(1, i), sumr(i))
    end do
  end if
  call untouched('reduce', x, merge(N, 0, me == np - 1))
  call fill(x, SENT)
  call MPI_Allreduce(s(1, 1:N), x(1, 1:N), N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  do i = 1, N
    call want('allreduce', i, x(1, i), sumr(i))
  end do
  call untouched('allreduce', x, N)
  ! in place, on a section of a 3-row array
  call fill(g, SENT)
  g(2, 1:N) = [(me + i, i = 1, N)]
  call MPI_Allreduce(MPI_IN_PLACE, g(2, 1:N), N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  do i = 1, N
    call want('allreduce in place', i, g(2, i), sumr(i))
    call want('allreduce in place row 1', i, g(1, i), SENT)
    call want('allreduce in place row 3', i, g(3, i), SENT)
  end do

  ! ---- MPI_Gather / MPI_Scatter: N elements per rank
  call fill(s, SENT)
  s(1, 1:N) = [(1000 * me + i, i = 1, N)]
  call fill(x, SENT)
  call MPI_Gather(s(1, 1:N), N, MPI_INTEGER, x(1, :), N, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (me == 0) then
    do r = 0, np - 1
      do i = 1, N
        call want('gather', r * N + i, x(1, r * N + i), 1000 * r + i)
      end do
    end do
  end if
  call untouched('gather', x, merge(N * np, 0, me == 0))
  call fill(s, SENT)
  if (me == 0) s(1, :) = [(5000 + i, i = 1, N * np)]
  call fill(x, SENT)
  call MPI_Scatter(s(1, :), N, MPI_INTEGER, x(1, 1:N), N, MPI_INTEGER, 0, MPI_COMM_WORLD)
  do i = 1, N
    call want('scatter', i, x(1, i), 5000 + me * N + i)
  end do
  call untouched('scatter', x, N)

  ! ---- MPI_Alltoall: block r of rank me goes to rank r
  call fill(s, SENT)
  s(1, :) = [(10000 * me + i, i = 1, N * np)]
  call fill(x, SENT)
  call MPI_Alltoall(s(1, :), N, MPI_INTEGER, x(1, :), N, MPI_INTEGER, MPI_COMM_WORLD)
  do r = 0, np - 1
    do i = 1, N
      call want('alltoall', r * N + i, x(1, r * N + i), 10000 * r + me * N + i)
    end do
  end do
  call untouched('alltoall', x, N * np)

  ! ---- MPI_Iallreduce: the result lands in the section at MPI_Wait
  call fill(s, SENT)
  s(1, 1:N) = [(me + i, i = 1, N)]
  call fill(x, SENT)
  call MPI_Iallreduce(s(1, 1:N), x(1, 1:N), N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  do i = 1, N
    call want('iallreduce', i, x(1, i), sumr(i))
  end do
  call untouched('iallreduce', x, N)
  ! MPI_Ibcast completed by MPI_Test in a loop
  call fill(x, SENT)
  if (me == 0) x(1, 1:N) = [(200 + i, i = 1, N)]
  call MPI_Ibcast(x(1, 1:N), N, MPI_INTEGER, 0, MPI_COMM_WORLD, req)
  block
    logical :: done
    done = .false.
    do while (.not. done)
      call MPI_Test(req, done, MPI_STATUS_IGNORE)
    end do
  end block
  do i = 1, N
    call want('ibcast', i, x(1, i), 200 + i)
  end do
  call untouched('ibcast', x, N)

  ! ---- persistent MPI_Allreduce_init: each start reads the section anew
  call fill(s, SENT)
  call fill(x, SENT)
  call MPI_Allreduce_init(s(1, 1:N), x(1, 1:N), N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                          MPI_INFO_NULL, req)
  do k = 1, 3
    s(1, 1:N) = [(k * (me + i), i = 1, N)]
    call MPI_Start(req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    do i = 1, N
      call want('allreduce_init', i, x(1, i), k * sumr(i))
    end do
    call untouched('allreduce_init', x, N)
  end do
  ! freeing the inactive request copies nothing back over the program's data
  x(1, 1:N) = 99
  call MPI_Request_free(req)
  do i = 1, N
    call want('allreduce_init freed', i, x(1, i), 99)
  end do

  ! ---- MPI_Reduce_local: inbuf and inoutbuf sections
  call fill(s, SENT)
  s(1, 1:N) = [(i, i = 1, N)]
  call fill(x, SENT)
  x(1, 1:N) = [(10 * i, i = 1, N)]
  call MPI_Reduce_local(s(1, 1:N), x(1, 1:N), N, MPI_INTEGER, MPI_SUM)
  do i = 1, N
    call want('reduce_local', i, x(1, i), 11 * i)
  end do
  call untouched('reduce_local', x, N)

  ! ---- MPI_Pack into a section (its output buffer), unpacked contiguously
  call fill(x, SENT)
  k = 0
  call MPI_Pack(s(1, 1:N), N, MPI_INTEGER, x(1, :), 4 * N * np, k, MPI_COMM_WORLD)
  call want('pack position', 0, k, 4 * N)
  block
    integer :: unpacked(N)
    unpacked = SENT
    k = 0
    call MPI_Unpack(x(1, 1:N), 4 * N, k, unpacked, N, MPI_INTEGER, MPI_COMM_WORLD)
    do i = 1, N
      call want('pack/unpack', i, unpacked(i), i)
    end do
  end block
  call untouched('pack', x, N)

  ! ---- one-sided: put, get and accumulate with section origins
  w = SENT
  wsize = 4 * N * np
  call MPI_Win_create(w, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  call fill(s, SENT)
  s(1, 1:N) = [(300 * me + i, i = 1, N)]
  ! each rank puts its N elements into block `me` of the next rank's window
  disp = int(me * N, MPI_ADDRESS_KIND)
  call MPI_Put(s(1, 1:N), N, MPI_INTEGER, mod(me + 1, np), disp, N, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  r = mod(me + np - 1, np)
  do i = 1, N
    call want('put', i, w(r * N + i), 300 * r + i)
  end do
  ! get block r of the previous rank's window (written by r - 1) into a section
  call fill(x, SENT)
  j = mod(me + np - 1, np)
  disp = int(mod(j + np - 1, np) * N, MPI_ADDRESS_KIND)
  call MPI_Get(x(1, 1:N), N, MPI_INTEGER, j, disp, N, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  do i = 1, N
    call want('get', i, x(1, i), 300 * mod(j + np - 1, np) + i)
  end do
  call untouched('get', x, N)
  ! everyone accumulates me + i into block 0 of rank 0
  w(1:N) = 0
  call MPI_Win_fence(0, win)
  s(1, 1:N) = [(me + i, i = 1, N)]
  call MPI_Accumulate(s(1, 1:N), N, MPI_INTEGER, 0, 0_MPI_ADDRESS_KIND, N, MPI_INTEGER, &
                      MPI_SUM, win)
  call MPI_Win_fence(0, win)
  if (me == 0) then
    do i = 1, N
      call want('accumulate', i, w(i), sumr(i))
    end do
  end if
  call MPI_Win_free(win)

  ! ---- the exception: an attached buffer must be contiguous
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)
  call MPI_Buffer_attach(g(1, :), 4 * N * np, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_BUFFER) then
    print *, 'FAIL rank', me, ': MPI_Buffer_attach of a section gave class', cls
    fails = fails + 1
  end if

  deallocate(s, x, g, w)
  call MPI_Allreduce(MPI_IN_PLACE, fails, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Finalize()
  if (fails /= 0) then
    if (me == 0) print *, 'FAIL fortran_sections:', fails, 'failures'
    error stop 1
  end if
  if (me == 0) print *, 'PASS fortran_sections'
contains
  integer function sumr(i)
    integer, intent(in) :: i
    sumr = np * (np - 1) / 2 + np * i
  end function sumr
  subroutine fill(a, v)
    integer, intent(out) :: a(:, :)
    integer, intent(in) :: v
    a = v
  end subroutine fill
  subroutine want(what, i, got, expect)
    character(len=*), intent(in) :: what
    integer, intent(in) :: i, got, expect
    if (got /= expect) then
      if (fails < 20) print *, 'FAIL rank', me, ': ', what, ' element', i, 'got', got, &
        'want', expect
      fails = fails + 1
    end if
  end subroutine want
  ! Row 2 of x never belongs to the section; row 1 past n was not written.
  subroutine untouched(what, a, n)
    character(len=*), intent(in) :: what
    integer, intent(in) :: a(:, :), n
    integer :: c
    do c = 1, size(a, 2)
      call want(what // ' (row 2 untouched)', c, a(2, c), SENT)
      if (c > n) call want(what // ' (row 1 past the data)', c, a(1, c), SENT)
    end do
  end subroutine untouched
end program f_sections
