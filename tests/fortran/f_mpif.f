! fortran_mpif: a fixed-form FORTRAN 77 style program with mpif.h (no
! interfaces: every argument passes by reference as the C entry points
! expect): a ring of messages with MPI_STATUS_IGNORE, a status array,
! MPI_IN_PLACE, and MPI_Wtime as a DOUBLE PRECISION function.
      PROGRAM FMPIF
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, ME, NP, NXT, PRV, IBUF, ISUM, N
      INTEGER ISTAT(MPI_STATUS_SIZE)
      DOUBLE PRECISION T0, T1, TICK
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      T0 = MPI_WTIME()
      NXT = MOD(ME + 1, NP)
      PRV = MOD(ME - 1 + NP, NP)
      CALL MPI_SENDRECV(ME, 1, MPI_INTEGER, NXT, 9, IBUF, 1,
     &     MPI_INTEGER, PRV, 9, MPI_COMM_WORLD, ISTAT, IERR)
      IF (IBUF .NE. PRV .OR. ISTAT(MPI_SOURCE) .NE. PRV) THEN
         PRINT *, 'FAIL: ring'
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      CALL MPI_GET_COUNT(ISTAT, MPI_INTEGER, N, IERR)
      IF (N .NE. 1 .OR. ISTAT(MPI_TAG) .NE. 9) THEN
         PRINT *, 'FAIL: status'
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      CALL MPI_SENDRECV(ME, 1, MPI_INTEGER, NXT, 8, IBUF, 1,
     &     MPI_INTEGER, PRV, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
      ISUM = ME
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, ISUM, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      IF (ISUM .NE. NP * (NP - 1) / 2) THEN
         PRINT *, 'FAIL: in place'
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      T1 = MPI_WTIME()
      TICK = MPI_WTICK()
      IF (T1 .LT. T0 .OR. TICK .LE. 0.0D0) THEN
         PRINT *, 'FAIL: wtime'
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      CALL MPI_FINALIZE(IERR)
      IF (ME .EQ. 0) PRINT *, 'PASS fortran_mpif'
      END
