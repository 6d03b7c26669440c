! A fixed-form program built with mpif77.mpich (include 'mpif.h'):
! the Fortran sentinels (MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE,
! MPI_IN_PLACE, MPI_BOTTOM), every Fortran datatype in communication
! and in the reductions that apply to it (MAXLOC/MINLOC on the pair
! types, LAND/LOR/LXOR on LOGICAL), and the routines that take strings
! with Fortran lengths. Values are small integers and halves, so every
! sum is exact whatever the order of the reduction. Every rank prints
! what it got; tests/compare.sh compares with the native MPICH run.
      program f77
      implicit none
      include 'mpif.h'
      integer ierr, rank, nprocs, next, prev, i, n, ilen
      integer status(MPI_STATUS_SIZE), stats(MPI_STATUS_SIZE, 2)
      integer reqs(2), isend, irecv, iv(3), ir(3)
      integer i2(2), i2r(2), blens(2), newtype, dup
      integer*8 i8, i8r
      real rv(2), rr(2), r2(2), r2r(2)
      double precision dv, dr, d2(2), d2r(2), dbuf(4)
      complex cv, cr
      double complex zv, zr
      logical lv, land, lor, lxor
      character*20 msg, got
      character*(MPI_MAX_OBJECT_NAME) cname
      character*(MPI_MAX_ERROR_STRING) estr
      character*(MPI_MAX_PROCESSOR_NAME) pname
      integer(kind=MPI_ADDRESS_KIND) disps(2)
      integer types(2), ibot
      double precision dbot
! What MPI_BOTTOM reaches lies in a common block, so that the compiler
! keeps it in memory across the calls that do not name it.
      common /bottom/ dbot, ibot

      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
      next = mod(rank + 1, nprocs)
      prev = mod(rank + nprocs - 1, nprocs)

! Point-to-point: MPI_STATUS_IGNORE, then a status read by index.
      isend = 100 + rank
      call MPI_SENDRECV(isend, 1, MPI_INTEGER, next, 1, irecv, 1,
     &     MPI_INTEGER, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &     ierr)
      print 10, rank, 'sendrecv ignore', irecv
      rv(1) = rank + 0.5
      rv(2) = -rank
      call MPI_SEND(rv, 2, MPI_REAL, next, 2, MPI_COMM_WORLD, ierr)
      call MPI_PROBE(prev, 2, MPI_COMM_WORLD, status, ierr)
      call MPI_GET_COUNT(status, MPI_REAL, n, ierr)
      call MPI_RECV(rr, 2, MPI_REAL, MPI_ANY_SOURCE, MPI_ANY_TAG,
     &     MPI_COMM_WORLD, status, ierr)
      print 11, rank, 'recv real', rr, status(MPI_SOURCE),
     &     status(MPI_TAG), n

! Non-blocking, completed with MPI_STATUSES_IGNORE, then with statuses.
      msg = 'hello from rank'
      write (msg(17:20), '(I4)') rank
      call MPI_IRECV(got, 20, MPI_CHARACTER, prev, 3, MPI_COMM_WORLD,
     &     reqs(1), ierr)
      call MPI_ISEND(msg, 20, MPI_CHARACTER, next, 3, MPI_COMM_WORLD,
     &     reqs(2), ierr)
      call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
      print 12, rank, 'character ', got
      call MPI_IRECV(dr, 1, MPI_DOUBLE_PRECISION, prev, 4,
     &     MPI_COMM_WORLD, reqs(1), ierr)
      dv = rank * 2.25d0
      call MPI_ISEND(dv, 1, MPI_DOUBLE_PRECISION, next, 4,
     &     MPI_COMM_WORLD, reqs(2), ierr)
      call MPI_WAITALL(2, reqs, stats, ierr)
      call MPI_GET_COUNT(stats(1, 1), MPI_DOUBLE_PRECISION, n, ierr)
      print 13, rank, 'waitall dp', dr, stats(MPI_SOURCE, 1),
     &     stats(MPI_TAG, 1), n
      call MPI_SENDRECV_REPLACE(dv, 1, MPI_DOUBLE_PRECISION, next, 5,
     &     prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      print 13, rank, 'replace dp', dv, 0, 0, 0

! Reductions over every Fortran type they apply to (ALLRED: over
! MPI_COMM_WORLD).
      iv(1) = rank + 1
      iv(2) = 7 - rank
      iv(3) = 2**rank
      call ALLRED(iv, ir, 3, MPI_INTEGER, MPI_SUM)
      print 14, rank, 'integer sum', ir
      call ALLRED(iv, ir, 3, MPI_INTEGER, MPI_BOR)
      print 14, rank, 'integer bor', ir
      call ALLRED(rv, rr, 2, MPI_REAL, MPI_MAX)
      print 15, rank, 'real max', rr
      dv = 1.5d0 * (rank + 1)
      call ALLRED(dv, dr, 1, MPI_DOUBLE_PRECISION, MPI_PROD)
      print 13, rank, 'dp prod', dr, 0, 0, 0
      cv = cmplx(rank + 1, -rank)
      call ALLRED(cv, cr, 1, MPI_COMPLEX, MPI_PROD)
      print 15, rank, 'complex prod', cr
      zv = dcmplx(0.5d0 * rank, 1.0d0)
      call ALLRED(zv, zr, 1, MPI_DOUBLE_COMPLEX, MPI_SUM)
      print 16, rank, 'dcomplex sum', zr
      i8 = 3000000000_8 * (rank + 1)
      call ALLRED(i8, i8r, 1, MPI_INTEGER8, MPI_SUM)
      print 17, rank, 'integer8 sum', i8r
      call ALLRED(i8, i8r, 1, MPI_INTEGER8, MPI_MIN)
      print 17, rank, 'integer8 min', i8r
      lv = rank .eq. 1
      call ALLRED(lv, land, 1, MPI_LOGICAL, MPI_LAND)
      call ALLRED(lv, lor, 1, MPI_LOGICAL, MPI_LOR)
      call ALLRED(lv, lxor, 1, MPI_LOGICAL, MPI_LXOR)
      print 18, rank, 'logical and/or/xor', land, lor, lxor
! The pair types: (value, index).
      i2(1) = mod(rank * 5, 3)
      i2(2) = rank
      call ALLRED(i2, i2r, 1, MPI_2INTEGER, MPI_MAXLOC)
      print 14, rank, '2integer maxloc', i2r, 0
      call ALLRED(i2, i2r, 1, MPI_2INTEGER, MPI_MINLOC)
      print 14, rank, '2integer minloc', i2r, 0
      r2(1) = -0.5 * rank
      r2(2) = rank
      call ALLRED(r2, r2r, 1, MPI_2REAL, MPI_MINLOC)
      print 15, rank, '2real minloc', r2r
      d2(1) = 1.25d0
      d2(2) = rank
      call ALLRED(d2, d2r, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC)
      print 19, rank, '2dp maxloc', d2r

! MPI_IN_PLACE: Allreduce, Reduce at the root, Gather at the root.
      ir(1) = rank
      ir(2) = 10 * rank
      ir(3) = 1
      call MPI_ALLREDUCE(MPI_IN_PLACE, ir, 3, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      print 14, rank, 'in place allreduce', ir
      dv = rank + 0.25d0
      if (rank .eq. 0) then
         call MPI_REDUCE(MPI_IN_PLACE, dv, 1, MPI_DOUBLE_PRECISION,
     &        MPI_SUM, 0, MPI_COMM_WORLD, ierr)
         print 13, rank, 'in place reduce', dv, 0, 0, 0
      else
         call MPI_REDUCE(dv, dr, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0,
     &        MPI_COMM_WORLD, ierr)
      endif
      do i = 1, 4
         dbuf(i) = -1
      enddo
      dbuf(rank + 1) = rank * 0.5d0
      if (rank .eq. 0) then
         call MPI_GATHER(MPI_IN_PLACE, 1, MPI_DOUBLE_PRECISION, dbuf,
     &        1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
         print 19, rank, 'in place gather', (dbuf(i), i = 1, nprocs)
      else
         call MPI_GATHER(dbuf(rank + 1), 1, MPI_DOUBLE_PRECISION, dbuf,
     &        1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
      endif

! MPI_BOTTOM: a struct type of absolute addresses (an INTEGER and a
! DOUBLE PRECISION that are not adjacent), broadcast from rank 0.
      if (rank .eq. 0) then
         ibot = 4242
         dbot = 8.5d0
      else
         ibot = -1
         dbot = -1
      endif
      call MPI_GET_ADDRESS(ibot, disps(1), ierr)
      call MPI_GET_ADDRESS(dbot, disps(2), ierr)
      blens(1) = 1
      blens(2) = 1
      types(1) = MPI_INTEGER
      types(2) = MPI_DOUBLE_PRECISION
      call MPI_TYPE_CREATE_STRUCT(2, blens, disps, types, newtype, ierr)
      call MPI_TYPE_COMMIT(newtype, ierr)
      call MPI_BCAST(MPI_BOTTOM, 1, newtype, 0, MPI_COMM_WORLD, ierr)
      print 13, rank, 'bottom bcast', dbot, ibot, 0, 0
      if (rank .eq. 1) then
         ibot = 77
         dbot = 0.75d0
         call MPI_SEND(MPI_BOTTOM, 1, newtype, 0, 6, MPI_COMM_WORLD,
     &        ierr)
      else if (rank .eq. 0) then
         call MPI_RECV(MPI_BOTTOM, 1, newtype, 1, 6, MPI_COMM_WORLD,
     &        MPI_STATUS_IGNORE, ierr)
         print 13, rank, 'bottom recv', dbot, ibot, 0, 0
      endif
      call MPI_TYPE_FREE(newtype, ierr)

! Strings with Fortran lengths: object names (trailing blanks are not
! part of a name), error strings, the processor name.
      call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
      call MPI_COMM_SET_NAME(dup, 'a Fortran name   ', ierr)
      call MPI_COMM_GET_NAME(dup, cname, ilen, ierr)
      print 20, rank, 'comm name', ilen, cname(1:ilen)
      call MPI_COMM_GET_NAME(MPI_COMM_WORLD, cname, ilen, ierr)
      print 20, rank, 'world name', ilen, cname(1:ilen)
      call MPI_TYPE_GET_NAME(MPI_DOUBLE_PRECISION, cname, ilen, ierr)
      print 20, rank, 'type name', ilen, cname(1:ilen)
      call MPI_COMM_FREE(dup, ierr)
      call MPI_ERROR_STRING(MPI_ERR_TRUNCATE, estr, ilen, ierr)
      print 22, rank, 'error string', ilen, estr(1:ilen),
     &     estr(ilen+1:) .eq. ' '
      call MPI_GET_PROCESSOR_NAME(pname, ilen, ierr)
      print 20, rank, 'processor', ilen, pname(1:ilen)

      call MPI_FINALIZE(ierr)
 10   format('rank ', I0, ': ', A, 1X, I0)
 11   format('rank ', I0, ': ', A, 2(1X, F6.2), 3(1X, I0))
 12   format('rank ', I0, ': ', A, '[', A, ']')
 13   format('rank ', I0, ': ', A, 1X, F10.4, 3(1X, I0))
 14   format('rank ', I0, ': ', A, 3(1X, I0))
 15   format('rank ', I0, ': ', A, 2(1X, F8.3))
 16   format('rank ', I0, ': ', A, 2(1X, F10.4))
 17   format('rank ', I0, ': ', A, 1X, I0)
 18   format('rank ', I0, ': ', A, 3(1X, L1))
 19   format('rank ', I0, ': ', A, 4(1X, F8.3))
 20   format('rank ', I0, ': ', A, 1X, I0, ' [', A, ']')
 22   format('rank ', I0, ': ', A, 1X, I0, ' [', A, '] ', L1)
      end

! MPI_ALLREDUCE over MPI_COMM_WORLD: buffers of any type, as in F77.
      subroutine ALLRED(sbuf, rbuf, n, type, op)
      implicit none
      include 'mpif.h'
      integer sbuf(*), rbuf(*), n, type, op, ierr
      call MPI_ALLREDUCE(sbuf, rbuf, n, type, op, MPI_COMM_WORLD, ierr)
      end
