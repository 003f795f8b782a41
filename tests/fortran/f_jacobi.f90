! fortran_jacobi: a real Fortran MPI program -- 2-D Jacobi iteration for
! Laplace's equation on an N x N grid (top edge held at 1, the others at 0),
! block-decomposed over an MPI_Cart_create grid, halos exchanged with
! MPI_Sendrecv of array sections (rows of a column-major array are
! non-contiguous: they go through mpi_f08's descriptors), the residual
! summed with MPI_Allreduce.  Every rank also runs the serial solver; the
! distributed field must equal it exactly (each point sees the same
! operations) and the residuals agree to rounding.  1-4 ranks.
program f_jacobi
  use mpi_f08
  implicit none
  integer, parameter :: n = 48, iters = 150
  integer :: me, np, dims(2), coords(2), i, j, it, nx, ny, x0, y0
  integer :: left, right, down, up
  type(MPI_Comm) :: cart
  double precision, allocatable :: u(:, :), v(:, :), s(:, :), t(:, :)
  double precision :: res, resg, sres, diff, diffg

  call MPI_Init()
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  dims = 0
  call MPI_Dims_create(np, 2, dims)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, [.false., .false.], .true., cart)
  call MPI_Comm_rank(cart, me)
  call MPI_Cart_coords(cart, me, 2, coords)
  call MPI_Cart_shift(cart, 0, 1, left, right)
  call MPI_Cart_shift(cart, 1, 1, down, up)
  ! my block of the interior 1..n: points x0+1..x0+nx, y0+1..y0+ny
  call block(n, dims(1), coords(1), x0, nx)
  call block(n, dims(2), coords(2), y0, ny)
  allocate(u(0:nx + 1, 0:ny + 1), v(0:nx + 1, 0:ny + 1))
  u = 0
  if (coords(2) == dims(2) - 1) u(:, ny + 1) = 1     ! the top edge
  v = u

  do it = 1, iters
    ! halos: columns u(i, :) are strided sections, rows u(:, j) contiguous
    call MPI_Sendrecv(u(nx, 1:ny), ny, MPI_DOUBLE_PRECISION, right, 1, &
                      u(0, 1:ny), ny, MPI_DOUBLE_PRECISION, left, 1, cart, MPI_STATUS_IGNORE)
    call MPI_Sendrecv(u(1, 1:ny), ny, MPI_DOUBLE_PRECISION, left, 2, &
                      u(nx + 1, 1:ny), ny, MPI_DOUBLE_PRECISION, right, 2, cart, MPI_STATUS_IGNORE)
    call MPI_Sendrecv(u(1:nx, ny), nx, MPI_DOUBLE_PRECISION, up, 3, &
                      u(1:nx, 0), nx, MPI_DOUBLE_PRECISION, down, 3, cart, MPI_STATUS_IGNORE)
    call MPI_Sendrecv(u(1:nx, 1), nx, MPI_DOUBLE_PRECISION, down, 4, &
                      u(1:nx, ny + 1), nx, MPI_DOUBLE_PRECISION, up, 4, cart, MPI_STATUS_IGNORE)
    res = 0
    do j = 1, ny
      do i = 1, nx
        v(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
        res = res + (v(i, j) - u(i, j))**2
      end do
    end do
    call MPI_Allreduce(res, resg, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart)
    u(1:nx, 1:ny) = v(1:nx, 1:ny)
  end do

  ! the serial answer
  allocate(s(0:n + 1, 0:n + 1), t(0:n + 1, 0:n + 1))
  s = 0
  s(:, n + 1) = 1
  t = s
  do it = 1, iters
    sres = 0
    do j = 1, n
      do i = 1, n
        t(i, j) = 0.25d0 * (s(i - 1, j) + s(i + 1, j) + s(i, j - 1) + s(i, j + 1))
        sres = sres + (t(i, j) - s(i, j))**2
      end do
    end do
    s(1:n, 1:n) = t(1:n, 1:n)
  end do
  diff = maxval(abs(u(1:nx, 1:ny) - s(x0 + 1:x0 + nx, y0 + 1:y0 + ny)))
  call MPI_Allreduce(diff, diffg, 1, MPI_DOUBLE_PRECISION, MPI_MAX, cart)
  if (diffg /= 0 .or. abs(resg - sres) > 1d-12 * sres .or. sres <= 0) then
    if (me == 0) print *, 'FAIL: field differs by', diffg, ' residual', resg, ' serial', sres
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  call MPI_Comm_free(cart)
  deallocate(u, v, s, t)   ! (the main program's arrays outlive it otherwise: LeakSanitizer)
  call MPI_Finalize()
  if (me == 0) print '(A,I0,A,I0,A,ES10.3)', 'PASS fortran_jacobi: ', np, ' ranks, ', iters, &
                                          ' iterations, residual ', resg
contains
  subroutine block(total, parts, idx, first, cnt)
    integer, intent(in) :: total, parts, idx
    integer, intent(out) :: first, cnt
    cnt = total / parts
    first = idx * cnt + min(idx, mod(total, parts))
    if (idx < mod(total, parts)) cnt = cnt + 1
  end subroutine block
end program f_jacobi
