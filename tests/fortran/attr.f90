! Attributes from Fortran (MPI 4.0 section 7.7 and 19.3.7) through MPICH's
! libmpichfort.so.12 and mpcr's MPII_* entry points, plus a little
! point-to-point and MPI_ALLREDUCE on Fortran datatypes. Every rank prints
! what it saw; tests/compare.sh compares with the native MPICH run.
module callbacks
    use mpi
    implicit none
    integer :: ncopy = 0, ndelete = 0, nbad_extra = 0
    integer(kind=MPI_ADDRESS_KIND) :: last_deleted = -1
contains
    ! MPI_COMM_CREATE_KEYVAL's copy callback: the copy is the value plus one.
    subroutine copy_plus_one(oldcomm, keyval, extra_state, val_in, val_out, flag, ierr)
        integer :: oldcomm, keyval, ierr
        integer(kind=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
        logical :: flag
        ncopy = ncopy + 1
        if (extra_state /= 1000) nbad_extra = nbad_extra + 1
        val_out = val_in + 1
        flag = .true.
        ierr = MPI_SUCCESS
    end subroutine

    subroutine record_delete(comm, keyval, val, extra_state, ierr)
        integer :: comm, keyval, ierr
        integer(kind=MPI_ADDRESS_KIND) :: val, extra_state
        ndelete = ndelete + 1
        if (extra_state /= 1000) nbad_extra = nbad_extra + 1
        last_deleted = val
        ierr = MPI_SUCCESS
    end subroutine
end module

program attr
    use mpi
    use callbacks
    implicit none
    integer :: ierr, rank, nprocs, keyval, oldkeyval, tkeyval, dup, ival, ito, ifrom
    integer :: status(MPI_STATUS_SIZE), isum, ibuf(3)
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    double precision :: dsend(2), drecv(2), dsum
    logical :: flag

    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)

    ! Predefined attributes are read from Fortran as values.
    call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
    print '(A,I0,A,L1,A,I0)', 'rank ', rank, ': COMM_GET_ATTR TAG_UB flag ', flag, ' value ', val
    call MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
    print '(A,I0,A,L1,A,I0)', 'rank ', rank, ': ATTR_GET TAG_UB flag ', flag, ' value ', ival

    ! A keyval with Fortran callbacks: copy on MPI_COMM_DUP, delete on free.
    extra = 1000
    call MPI_COMM_CREATE_KEYVAL(copy_plus_one, record_delete, keyval, extra, ierr)
    val = 42 + rank
    call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, keyval, val, ierr)
    val = 0
    call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, keyval, val, flag, ierr)
    print '(A,I0,A,L1,A,I0)', 'rank ', rank, ': set attr flag ', flag, ' value ', val
    call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
    call MPI_COMM_GET_ATTR(dup, keyval, val, flag, ierr)
    print '(A,I0,A,L1,A,I0,A,I0)', 'rank ', rank, ': dup attr flag ', flag, ' value ', val, &
        ' copies ', ncopy
    call MPI_COMM_FREE(dup, ierr)
    print '(A,I0,A,I0,A,I0)', 'rank ', rank, ': after free deletes ', ndelete, ' deleted ', last_deleted
    call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, keyval, ierr)
    call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, keyval, val, flag, ierr)
    print '(A,I0,A,I0,A,I0,A,L1,A,I0)', 'rank ', rank, ': after delete deletes ', ndelete, &
        ' deleted ', last_deleted, ' flag ', flag, ' bad extra_state ', nbad_extra
    call MPI_COMM_FREE_KEYVAL(keyval, ierr)
    print '(A,I0,A,L1)', 'rank ', rank, ': keyval freed ', keyval == MPI_KEYVAL_INVALID

    ! MPI-1 forms: an INTEGER attribute, Fortran's MPI_DUP_FN copies it.
    call MPI_KEYVAL_CREATE(MPI_DUP_FN, MPI_NULL_DELETE_FN, oldkeyval, 0, ierr)
    call MPI_ATTR_PUT(MPI_COMM_WORLD, oldkeyval, 7 * (rank + 1), ierr)
    call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
    ival = 0
    call MPI_ATTR_GET(dup, oldkeyval, ival, flag, ierr)
    print '(A,I0,A,L1,A,I0)', 'rank ', rank, ': MPI-1 attr on dup flag ', flag, ' value ', ival
    ! Set with INTEGER, read with the address-sized form.
    call MPI_COMM_GET_ATTR(dup, oldkeyval, val, flag, ierr)
    print '(A,I0,A,L1,A,I0)', 'rank ', rank, ': MPI-1 attr as address flag ', flag, ' value ', val
    call MPI_COMM_FREE(dup, ierr)
    call MPI_ATTR_DELETE(MPI_COMM_WORLD, oldkeyval, ierr)
    call MPI_KEYVAL_FREE(oldkeyval, ierr)

    ! Across languages: a C attribute read from Fortran, Fortran INTEGER
    ! and address-sized attributes read from C (attr_c.c).
    call MPI_COMM_CREATE_KEYVAL(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, keyval, extra, ierr)
    call c_set_attr(MPI_COMM_WORLD, keyval, 12345 + rank)
    call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, keyval, val, flag, ierr)
    print '(A,I0,A,L1,A,I0)', 'rank ', rank, ': C attribute in Fortran flag ', flag, ' value ', val
    call MPI_ATTR_PUT(MPI_COMM_WORLD, keyval, 500 + rank, ierr)
    call c_get_int_attr(MPI_COMM_WORLD, keyval, ival)
    print '(A,I0,A,I0)', 'rank ', rank, ': Fortran INTEGER attribute in C ', ival
    val = 600 + rank
    call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, keyval, val, ierr)
    call c_get_aint_attr(MPI_COMM_WORLD, keyval, ival)
    print '(A,I0,A,I0)', 'rank ', rank, ': Fortran address-sized attribute in C ', ival
    call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, keyval, ierr)
    call MPI_COMM_FREE_KEYVAL(keyval, ierr)

    ! A datatype attribute, on a predefined Fortran type.
    call MPI_TYPE_CREATE_KEYVAL(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, tkeyval, extra, ierr)
    val = 99
    call MPI_TYPE_SET_ATTR(MPI_DOUBLE_PRECISION, tkeyval, val, ierr)
    val = 0
    call MPI_TYPE_GET_ATTR(MPI_DOUBLE_PRECISION, tkeyval, val, flag, ierr)
    print '(A,I0,A,L1,A,I0)', 'rank ', rank, ': type attr flag ', flag, ' value ', val
    call MPI_TYPE_DELETE_ATTR(MPI_DOUBLE_PRECISION, tkeyval, ierr)
    call MPI_TYPE_GET_ATTR(MPI_DOUBLE_PRECISION, tkeyval, val, flag, ierr)
    print '(A,I0,A,L1)', 'rank ', rank, ': type attr after delete flag ', flag
    call MPI_TYPE_FREE_KEYVAL(tkeyval, ierr)

    ! Point-to-point around a ring, Fortran datatypes.
    ito = mod(rank + 1, nprocs)
    ifrom = mod(rank + nprocs - 1, nprocs)
    ibuf = (/ rank + 1, 10 * (rank + 1), 100 * (rank + 1) /)
    dsend = (/ rank + 0.5d0, rank * 2.25d0 /)
    call MPI_SENDRECV(dsend, 2, MPI_DOUBLE_PRECISION, ito, 5, drecv, 2, MPI_DOUBLE_PRECISION, &
        ifrom, 5, MPI_COMM_WORLD, status, ierr)
    print '(A,I0,A,2F8.3,A,I0,A,I0)', 'rank ', rank, ': sendrecv got', drecv, ' from ', &
        status(MPI_SOURCE), ' tag ', status(MPI_TAG)
    if (rank == 0) then
        call MPI_SEND(ibuf, 3, MPI_INTEGER, ito, 6, MPI_COMM_WORLD, ierr)
        call MPI_RECV(ibuf, 3, MPI_INTEGER, ifrom, 6, MPI_COMM_WORLD, status, ierr)
    else
        call MPI_RECV(ibuf, 3, MPI_INTEGER, ifrom, 6, MPI_COMM_WORLD, status, ierr)
        ibuf = ibuf + 1
        call MPI_SEND(ibuf, 3, MPI_INTEGER, ito, 6, MPI_COMM_WORLD, ierr)
    end if
    print '(A,I0,A,3I6)', 'rank ', rank, ': ring integers', ibuf

    ! Reductions on Fortran datatypes.
    ival = rank + 1
    call MPI_ALLREDUCE(ival, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    dsend(1) = rank * 1.5d0
    call MPI_ALLREDUCE(dsend, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    print '(A,I0,A,I0,A,F8.3)', 'rank ', rank, ': allreduce integer ', isum, ' double ', dsum

    call MPI_FINALIZE(ierr)
end program
