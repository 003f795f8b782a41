! fortran_types: derived datatypes from Fortran -- a row of a column-major
! matrix as MPI_Type_vector, a struct of absolute addresses sent from
! MPI_BOTTOM (MPI_Get_address), MPI_Type_create_subarray on a 2-D block,
! a Cartesian grid (LOGICAL periods in, out through MPI_Cart_get),
! MPI_Cart_sub (remain_dims, a LOGICAL array whose length only the
! communicator knows), MPI_Alltoallw (datatype arrays sized by the group)
! and MPI_Dist_graph_create_adjacent with MPI_UNWEIGHTED.  1-4 ranks.
program f_types
  use mpi
  implicit none
  integer :: ierr, me, np, rowt, st, sub, cart, row, i, j, n, nd
  integer :: m(4, 5), r(5), sizes(2), subs(2), starts(2), blk(2, 3)
  integer :: ival, ival2, blens(2), types(2), g, indeg, outdeg
  double precision :: dval, dval2
  integer(kind=MPI_ADDRESS_KIND) :: disp(2)
  integer :: dims(2), coords(2)
  logical :: periods(2), per(2), remain(2), wflag
  integer, allocatable :: sc(:), rc(:), sd(:), rd(:), stypes(:), rtypes(:), sb(:), rb(:)
  integer :: srcs(1), dsts(1)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

  ! row 2 of m(4,5): 5 elements 4 apart; sent to self
  m = reshape([(i, i = 1, 20)], [4, 5])
  call MPI_Type_vector(5, 1, 4, MPI_INTEGER, rowt, ierr)
  call MPI_Type_commit(rowt, ierr)
  call MPI_Sendrecv(m(2, 1), 1, rowt, me, 0, r, 5, MPI_INTEGER, me, 0, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(all(r == m(2, :)), 'vector row')
  call MPI_Type_free(rowt, ierr)
  call check(rowt == MPI_DATATYPE_NULL, 'Type_free')

  ! struct of absolute addresses, buffer MPI_BOTTOM
  ival = 17 + me
  dval = 2.5d0 * me
  call MPI_Get_address(ival, disp(1), ierr)
  call MPI_Get_address(dval, disp(2), ierr)
  blens = 1
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  call MPI_Type_create_struct(2, blens, disp, types, st, ierr)
  call MPI_Type_commit(st, ierr)
  ival2 = -1
  dval2 = -1
  call MPI_Get_address(ival2, disp(1), ierr)
  call MPI_Get_address(dval2, disp(2), ierr)
  call MPI_Type_create_struct(2, blens, disp, types, g, ierr)
  call MPI_Type_commit(g, ierr)
  call MPI_Sendrecv(MPI_BOTTOM, 1, st, me, 1, MPI_BOTTOM, 1, g, me, 1, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. ival2 == ival .and. dval2 == dval, 'MPI_BOTTOM struct')
  call MPI_Type_free(st, ierr)
  call MPI_Type_free(g, ierr)

  ! subarray m(2:3, 3:5) (Fortran order)
  sizes = [4, 5]
  subs = [2, 3]
  starts = [1, 2]
  call MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INTEGER, sub, ierr)
  call MPI_Type_commit(sub, ierr)
  call MPI_Sendrecv(m, 1, sub, me, 2, blk, 6, MPI_INTEGER, me, 2, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(all(blk == m(2:3, 3:5)), 'subarray')
  call MPI_Type_free(sub, ierr)

  ! Cartesian grid: periods in and out, Cart_sub
  dims = 0
  call MPI_Dims_create(np, 2, dims, ierr)
  periods = [.true., .false.]
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call check(ierr == MPI_SUCCESS .and. cart /= MPI_COMM_NULL, 'Cart_create')
  call MPI_Cart_get(cart, 2, dims, per, coords, ierr)
  call check(per(1) .and. .not. per(2), 'Cart_get periods')
  remain = [.false., .true.]
  call MPI_Cart_sub(cart, remain, row, ierr)
  call MPI_Comm_size(row, n, ierr)
  call check(n == dims(2), 'Cart_sub size')
  call MPI_Cartdim_get(row, nd, ierr)
  call check(nd == 1, 'Cart_sub dims')
  call MPI_Comm_free(row, ierr)
  call MPI_Comm_free(cart, ierr)

  ! Alltoallw: one integer to every rank, types given per rank
  allocate(sc(np), rc(np), sd(np), rd(np), stypes(np), rtypes(np), sb(np), rb(np))
  sc = 1; rc = 1
  sd = [(4 * i, i = 0, np - 1)]; rd = sd
  stypes = MPI_INTEGER; rtypes = MPI_INTEGER
  sb = [(100 * me + i, i = 0, np - 1)]
  rb = -1
  call MPI_Alltoallw(sb, sc, sd, stypes, rb, rc, rd, rtypes, MPI_COMM_WORLD, ierr)
  call check(all(rb == [(100 * i + me, i = 0, np - 1)]), 'Alltoallw')

  ! a ring as a distributed graph, unweighted
  srcs = mod(me - 1 + np, np)
  dsts = mod(me + 1, np)
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., g, ierr)
  call check(ierr == MPI_SUCCESS, 'Dist_graph_create_adjacent')
  call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, wflag, ierr)
  call check(indeg == 1 .and. outdeg == 1 .and. .not. wflag, 'unweighted graph')
  call MPI_Comm_free(g, ierr)

  deallocate(sc, rc, sd, rd, stypes, rtypes, sb, rb)   ! (LeakSanitizer)
  call MPI_Finalize(ierr)
  if (me == 0) print *, 'PASS fortran_types'
  j = 0
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
end program f_types
