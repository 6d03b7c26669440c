! Handles and statuses crossing between Fortran and C (MPI 4.0 section
! 19.3.4 and 19.3.5): Fortran makes a communicator, a datatype, a group, a
! user-defined op (a Fortran function, applied by mpcr's library), an
! info, an error handler, a pending request and a matched message, and
! receives a status; handles_c.c converts and uses each, and returns
! objects it made and a C status, which Fortran uses. Every rank prints
! what it saw; tests/compare.sh compares with the native MPICH run.
subroutine fortran_max_and_sum(invec, inoutvec, len, datatype)
    implicit none
    integer :: len, datatype, invec(len), inoutvec(len), i
    ! element 1: the maximum, the others: the sum (commutative)
    inoutvec(1) = max(invec(1), inoutvec(1))
    do i = 2, len
        inoutvec(i) = invec(i) + inoutvec(i)
    end do
end subroutine

program handles
    use mpi
    implicit none
    external :: fortran_max_and_sum
    integer :: ierr, rank, nprocs, next, prev, dup, vec, group, op, info, req, msg
    integer :: newcomm, newtype, nrank, nsize, count, isend, irecv, tsize
    integer :: status(MPI_STATUS_SIZE), cstatus(MPI_STATUS_SIZE), pairs(2, 2), sums(2, 2)
    logical :: cancelled

    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
    next = mod(rank + 1, nprocs)
    prev = mod(rank + nprocs - 1, nprocs)
    call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
    call MPI_TYPE_VECTOR(3, 1, 2, MPI_INTEGER, vec, ierr)
    call MPI_TYPE_COMMIT(vec, ierr)
    call MPI_COMM_GROUP(MPI_COMM_WORLD, group, ierr)
    call MPI_OP_CREATE(fortran_max_and_sum, .true., op, ierr)
    call MPI_INFO_CREATE(info, ierr)
    call MPI_INFO_SET(info, 'fortran_key', 'set in Fortran', ierr)

    ! a status from a Fortran receive, a request left to C, a message
    isend = 10 * rank
    call MPI_SENDRECV(isend, 1, MPI_INTEGER, next, 21, irecv, 1, MPI_INTEGER, prev, 21, &
                      dup, status, ierr)
    call MPI_IRECV(irecv, 1, MPI_INTEGER, prev, 22, dup, req, ierr)
    isend = 20 + rank
    call MPI_SEND(isend, 1, MPI_INTEGER, next, 22, dup, ierr)
    isend = 30 + rank
    call MPI_SEND(isend, 1, MPI_INTEGER, next, 23, dup, ierr)
    call MPI_MPROBE(prev, 23, dup, msg, MPI_STATUS_IGNORE, ierr)

    call handles_c(dup, vec, group, op, info, MPI_ERRORS_RETURN, req, msg, status, newcomm, &
                   newtype, cstatus)
    print '(A,I0,A,I0,L2,L2)', 'rank ', rank, ': after C irecv ', irecv, &
        req == MPI_REQUEST_NULL, msg == MPI_MESSAGE_NULL

    ! the status C made
    call MPI_GET_COUNT(cstatus, MPI_INTEGER, count, ierr)
    call MPI_TEST_CANCELLED(cstatus, cancelled, ierr)
    print '(A,I0,A,4(1X,I0),L2)', 'rank ', rank, ': C status in Fortran', &
        cstatus(MPI_SOURCE), cstatus(MPI_TAG), cstatus(MPI_ERROR) - MPI_ERR_PENDING, count, &
        cancelled

    ! the objects C made
    call MPI_COMM_RANK(newcomm, nrank, ierr)
    call MPI_COMM_SIZE(newcomm, nsize, ierr)
    call MPI_TYPE_SIZE(newtype, tsize, ierr)
    pairs(:, 1) = [rank, 1]
    pairs(:, 2) = [2 * rank, 100]
    sums = -1
    call MPI_SENDRECV(pairs, 2, newtype, mod(nrank + 1, nsize), 24, sums, 2, newtype, &
                      mod(nrank + nsize - 1, nsize), 24, newcomm, MPI_STATUS_IGNORE, ierr)
    call MPI_ALLREDUCE(MPI_IN_PLACE, sums, 4, MPI_INTEGER, MPI_SUM, newcomm, ierr)
    print '(A,I0,A,3(1X,I0),A,4(1X,I0))', 'rank ', rank, ': C comm', nrank, nsize, tsize, &
        ' sums', sums
    ! the Fortran op over the Fortran-made vector type, from Fortran
    pairs = reshape([rank + 1, -1, 3, -1], [2, 2])
    call MPI_ALLREDUCE(pairs, sums, 1, vec, op, MPI_COMM_WORLD, ierr)
    print '(A,I0,A,2(1X,I0))', 'rank ', rank, ': Fortran op on a vector', sums(1, 1), sums(1, 2)

    call MPI_COMM_FREE(newcomm, ierr)
    call MPI_TYPE_FREE(newtype, ierr)
    call MPI_TYPE_FREE(vec, ierr)
    call MPI_OP_FREE(op, ierr)
    call MPI_INFO_FREE(info, ierr)
    call MPI_GROUP_FREE(group, ierr)
    call MPI_COMM_FREE(dup, ierr)
    call MPI_FINALIZE(ierr)
end program
