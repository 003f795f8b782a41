! fortran_datarep: MPI_Register_datarep and MPI_Register_datarep_c with
! conversion and extent functions written in Fortran (src/binding/fortran/
! callbacks.c).  Representation "fplus" stores each INTEGER as its value
! plus the extra state (1000), "fplus_c" (the _c form: COUNT of
! MPI_COUNT_KIND) plus 2000 and swapped end for end within each call; both
! declare a file extent of 4 bytes per INTEGER.  Each rank writes its block
! through a view with the representation, reads the file bytes back through
! a "native" view (the transformed values must be there) and through the
! representation again (the originals must come back), value by value.
module datarep_procs
  use mpi_f08
  implicit none
  integer :: nread = 0, nwrite = 0, nextent = 0
contains
  subroutine rd(ubuf, dt, count, fbuf, pos, extra, ierr)
    integer :: ubuf(*), fbuf(*), count, ierr
    type(MPI_Datatype) :: dt
    integer(MPI_OFFSET_KIND) :: pos
    integer(MPI_ADDRESS_KIND) :: extra
    integer :: i
    if (dt /= MPI_INTEGER) then
      ierr = MPI_ERR_TYPE
      return
    end if
    do i = 1, count
      ubuf(pos + i) = fbuf(i) - int(extra)
    end do
    nread = nread + 1
    ierr = MPI_SUCCESS
  end subroutine rd
  subroutine wr(ubuf, dt, count, fbuf, pos, extra, ierr)
    integer :: ubuf(*), fbuf(*), count, ierr
    type(MPI_Datatype) :: dt
    integer(MPI_OFFSET_KIND) :: pos
    integer(MPI_ADDRESS_KIND) :: extra
    integer :: i
    if (dt /= MPI_INTEGER) then
      ierr = MPI_ERR_TYPE
      return
    end if
    do i = 1, count
      fbuf(i) = ubuf(pos + i) + int(extra)
    end do
    nwrite = nwrite + 1
    ierr = MPI_SUCCESS
  end subroutine wr
  subroutine rd_c(ubuf, dt, count, fbuf, pos, extra, ierr)
    integer :: ubuf(*), fbuf(*), ierr
    type(MPI_Datatype) :: dt
    integer(MPI_COUNT_KIND) :: count
    integer(MPI_OFFSET_KIND) :: pos
    integer(MPI_ADDRESS_KIND) :: extra
    integer(MPI_COUNT_KIND) :: i
    do i = 1, count
      ubuf(pos + i) = fbuf(count + 1 - i) - int(extra)
    end do
    nread = nread + 1
    ierr = MPI_SUCCESS
  end subroutine rd_c
  subroutine wr_c(ubuf, dt, count, fbuf, pos, extra, ierr)
    integer :: ubuf(*), fbuf(*), ierr
    type(MPI_Datatype) :: dt
    integer(MPI_COUNT_KIND) :: count
    integer(MPI_OFFSET_KIND) :: pos
    integer(MPI_ADDRESS_KIND) :: extra
    integer(MPI_COUNT_KIND) :: i
    do i = 1, count
      fbuf(count + 1 - i) = ubuf(pos + i) + int(extra)
    end do
    nwrite = nwrite + 1
    ierr = MPI_SUCCESS
  end subroutine wr_c
  subroutine ext(dt, extent, extra, ierr)
    type(MPI_Datatype) :: dt
    integer(MPI_ADDRESS_KIND) :: extent, extra
    integer :: ierr
    extent = 4
    if (dt /= MPI_INTEGER .or. (extra /= 1000 .and. extra /= 2000)) then
      ierr = MPI_ERR_TYPE
    else
      ierr = MPI_SUCCESS
    end if
    nextent = nextent + 1
  end subroutine ext
end module datarep_procs

program f_datarep
  use mpi_f08
  use datarep_procs
  implicit none
  integer, parameter :: N = 16
  integer :: ierr, me, np, i, k, fails, stamp
  integer :: a(N), b(N)
  integer(MPI_ADDRESS_KIND) :: e1, e2
  integer(MPI_OFFSET_KIND) :: disp
  character(len=512) :: dir, path
  character(len=8) :: rep
  type(MPI_File) :: fh
  fails = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  e1 = 1000
  e2 = 2000
  call MPI_Register_datarep('fplus', rd, wr, ext, e1, ierr)
  call expect(ierr == MPI_SUCCESS, 'MPI_Register_datarep')
  call MPI_Register_datarep_c('fplus_c', rd_c, wr_c, ext, e2, ierr)
  call expect(ierr == MPI_SUCCESS, 'MPI_Register_datarep_c')
  ! a second registration of a name is MPI_ERR_DUP_DATAREP
  call MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN)
  call MPI_Register_datarep('fplus', rd, wr, ext, e1, ierr)
  call MPI_Error_class(ierr, k)
  call expect(k == MPI_ERR_DUP_DATAREP, 'duplicate name refused')

  call get_environment_variable('TMPDIR', dir)
  if (len_trim(dir) == 0) dir = '/tmp'
  call system_clock(stamp)
  call MPI_Bcast(stamp, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  write (path, '(a,a,i0)') trim(dir), '/smap_f_datarep_', stamp
  disp = int(me, MPI_OFFSET_KIND) * N * 4

  do k = 1, 2
    rep = merge('fplus   ', 'fplus_c ', k == 1)
    do i = 1, N
      a(i) = 100 * me + i
    end do
    call MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE + MPI_MODE_RDWR, &
                       MPI_INFO_NULL, fh, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_File_open')
    call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, trim(rep), MPI_INFO_NULL, ierr)
    call expect(ierr == MPI_SUCCESS, 'set_view ' // trim(rep))
    call MPI_File_write_at_all(fh, 0_MPI_OFFSET_KIND, a, N, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call expect(ierr == MPI_SUCCESS, 'write through ' // trim(rep))
    call MPI_File_sync(fh, ierr)
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPI_File_sync(fh, ierr)
    ! the bytes in the file: the write conversion's
    call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
    b = -1
    call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, b, N, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call expect(ierr == MPI_SUCCESS, 'native read')
    do i = 1, N
      if (k == 1 .and. b(i) /= a(i) + 1000) call bad('file (fplus)', i, b(i), a(i) + 1000)
      if (k == 2 .and. b(i) /= a(N + 1 - i) + 2000) &
        call bad('file (fplus_c)', i, b(i), a(N + 1 - i) + 2000)
    end do
    ! read back through the representation: the originals
    call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, trim(rep), MPI_INFO_NULL, ierr)
    b = -1
    call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, b, N, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call expect(ierr == MPI_SUCCESS, 'read through ' // trim(rep))
    do i = 1, N
      if (b(i) /= a(i)) call bad('read back ' // trim(rep), i, b(i), a(i))
    end do
    call MPI_File_close(fh, ierr)
    call MPI_Barrier(MPI_COMM_WORLD)
    if (me == 0) call MPI_File_delete(path, MPI_INFO_NULL, ierr)
    call MPI_Barrier(MPI_COMM_WORLD)
  end do
  call expect(nread >= 2 .and. nwrite >= 2 .and. nextent >= 1, 'the callbacks ran')
  call MPI_Allreduce(MPI_IN_PLACE, fails, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Finalize(ierr)
  if (fails /= 0) then
    print *, 'FAIL fortran_datarep:', fails, 'failures'
    error stop 1
  end if
  if (me == 0) print *, 'PASS fortran_datarep'
contains
  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print *, 'FAIL rank', me, ':', what, ' ierr', ierr
      fails = fails + 1
    end if
  end subroutine expect
  subroutine bad(what, i, got, want)
    character(len=*), intent(in) :: what
    integer, intent(in) :: i, got, want
    print *, 'FAIL rank', me, ':', what, ' element', i, 'got', got, 'want', want
    fails = fails + 1
  end subroutine bad
end program f_datarep
