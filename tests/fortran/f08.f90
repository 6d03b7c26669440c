! `use mpi_f08` (MPICH 4.0.2's module, libmpichfort.so.12's *_f08ts_
! routines over mpcr's C library): handles as derived types, the status as
! type(MPI_Status), the sentinels of the module (MPI_STATUS_IGNORE,
! MPI_STATUSES_IGNORE, MPI_IN_PLACE, MPI_BOTTOM), Fortran datatypes in
! point-to-point and reductions, strings, and non-contiguous array
! sections (the module passes descriptors; libmpichfort packs them).
! Every rank prints what it got; tests/compare.sh compares with the
! native MPICH run.
module f08_bottom
    implicit none
    ! What MPI_BOTTOM reaches: module variables, which the compiler keeps
    ! in memory across calls that do not name them.
    integer, target :: ibot
    double precision, target :: dbot
end module

program f08
    use mpi_f08
    use f08_bottom
    implicit none
    integer :: rank, nprocs, next, prev, n, i, ilen, ierr
    type(MPI_Status) :: status, stats(2)
    type(MPI_Request) :: reqs(2)
    type(MPI_Comm) :: dup
    type(MPI_Datatype) :: pair, types(2)
    integer :: isend, irecv, iv(3), ir(3), i2(2), i2r(2), blens(2), grid(4, 3), col(3)
    integer(kind=MPI_ADDRESS_KIND) :: disps(2)
    integer(kind=8) :: i8, i8r
    real :: rv(2), rr(2)
    double precision :: dv, dr, d2(2), d2r(2)
    complex :: cv, cr
    logical :: lv, land, lor
    character(len=16) :: msg, got
    character(len=MPI_MAX_OBJECT_NAME) :: cname
    character(len=MPI_MAX_ERROR_STRING) :: estr

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
    next = mod(rank + 1, nprocs)
    prev = mod(rank + nprocs - 1, nprocs)

    ! Point-to-point: the optional ierror left out, MPI_STATUS_IGNORE,
    ! type(MPI_Status)'s components.
    isend = 100 + rank
    call MPI_Sendrecv(isend, 1, MPI_INTEGER, next, 1, irecv, 1, MPI_INTEGER, prev, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    print '(A,I0,A,I0)', 'rank ', rank, ': sendrecv ignore ', irecv
    rv = [rank + 0.5, -real(rank)]
    call MPI_Send(rv, 2, MPI_REAL, next, 2, MPI_COMM_WORLD, ierr)
    call MPI_Recv(rr, 2, MPI_REAL, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
    call MPI_Get_count(status, MPI_REAL, n)
    print '(A,I0,A,2F6.2,3(1X,I0))', 'rank ', rank, ': recv real', rr, status%MPI_SOURCE, &
        status%MPI_TAG, n
    msg = 'f08 from rank'
    write (msg(14:16), '(I3)') rank
    call MPI_Irecv(got, 16, MPI_CHARACTER, prev, 3, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(msg, 16, MPI_CHARACTER, next, 3, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    print '(A,I0,A,A,A)', 'rank ', rank, ': character [', got, ']'
    dv = rank * 2.25d0
    call MPI_Irecv(dr, 1, MPI_DOUBLE_PRECISION, prev, 4, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(dv, 1, MPI_DOUBLE_PRECISION, next, 4, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, stats)
    call MPI_Get_count(stats(1), MPI_DOUBLE_PRECISION, n)
    print '(A,I0,A,F8.3,3(1X,I0),L2)', 'rank ', rank, ': waitall dp', dr, stats(1)%MPI_SOURCE, &
        stats(1)%MPI_TAG, n, reqs(1) == MPI_REQUEST_NULL

    ! A column of a 2-D array is contiguous, a row is not: the module
    ! hands a descriptor, libmpichfort makes the strided row contiguous.
    grid = reshape([(i + 100 * rank, i = 1, 12)], [4, 3])
    call MPI_Sendrecv(grid(2, :), 3, MPI_INTEGER, next, 5, col, 3, MPI_INTEGER, prev, 5, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    print '(A,I0,A,3(1X,I0))', 'rank ', rank, ': row section', col
    grid = 0
    call MPI_Sendrecv(col, 3, MPI_INTEGER, prev, 6, grid(3, :), 3, MPI_INTEGER, next, 6, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    print '(A,I0,A,12(1X,I0))', 'rank ', rank, ': into row', grid

    ! Reductions.
    iv = [rank + 1, 7 - rank, 2**rank]
    call MPI_Allreduce(iv, ir, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    print '(A,I0,A,3(1X,I0))', 'rank ', rank, ': integer sum', ir
    call MPI_Allreduce(rv, rr, 2, MPI_REAL, MPI_MIN, MPI_COMM_WORLD)
    print '(A,I0,A,2F8.3)', 'rank ', rank, ': real min', rr
    cv = cmplx(rank + 1, 1)
    call MPI_Allreduce(cv, cr, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD)
    print '(A,I0,A,2F8.3)', 'rank ', rank, ': complex sum', cr
    i8 = 5000000000_8 - rank
    call MPI_Allreduce(i8, i8r, 1, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD)
    print '(A,I0,A,I0)', 'rank ', rank, ': integer8 max ', i8r
    lv = rank /= 1
    call MPI_Allreduce(lv, land, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
    call MPI_Allreduce(lv, lor, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD)
    print '(A,I0,A,2L2)', 'rank ', rank, ': logical and/or', land, lor
    i2 = [mod(rank * 5, 3), rank]
    call MPI_Allreduce(i2, i2r, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD)
    print '(A,I0,A,2(1X,I0))', 'rank ', rank, ': 2integer minloc', i2r
    d2 = [-0.5d0 * rank, dble(rank)]
    call MPI_Allreduce(d2, d2r, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD)
    print '(A,I0,A,2F8.3)', 'rank ', rank, ': 2dp minloc', d2r
    ir = [rank, 10 * rank, 1]
    call MPI_Allreduce(MPI_IN_PLACE, ir, 3, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
    print '(A,I0,A,3(1X,I0))', 'rank ', rank, ': in place max', ir

    ! MPI_BOTTOM with a struct type of absolute addresses.
    ibot = merge(4242, -1, rank == 0)
    dbot = merge(8.5d0, -1d0, rank == 0)
    call MPI_Get_address(ibot, disps(1))
    call MPI_Get_address(dbot, disps(2))
    blens = 1
    types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
    call MPI_Type_create_struct(2, blens, disps, types, pair)
    call MPI_Type_commit(pair)
    call MPI_Bcast(MPI_BOTTOM, 1, pair, 0, MPI_COMM_WORLD)
    print '(A,I0,A,F8.3,1X,I0)', 'rank ', rank, ': bottom bcast', dbot, ibot
    call MPI_Type_free(pair)

    ! Strings, handles compared, MPI_VAL of the predefined objects.
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    call MPI_Comm_set_name(dup, 'f08 duplicate  ')
    call MPI_Comm_get_name(dup, cname, ilen)
    print '(A,I0,A,I0,3A,L2)', 'rank ', rank, ': comm name ', ilen, ' [', cname(1:ilen), ']', &
        dup /= MPI_COMM_WORLD
    call MPI_Comm_free(dup)
    print '(A,I0,A,L2)', 'rank ', rank, ': freed is null', dup == MPI_COMM_NULL
    ! (mpcr words some classes otherwise than MPICH: only the length is
    ! compared for MPI_ERR_TAG)
    estr = repeat('x', len(estr))
    call MPI_Error_string(MPI_ERR_TAG, estr, ilen)
    print '(A,I0,A,2L2)', 'rank ', rank, ': error string length, padded', &
        ilen == len_trim(estr), estr(ilen + 1:) == ' '
    call MPI_Error_string(MPI_ERR_TRUNCATE, estr, ilen)
    print '(A,I0,A,I0,3A)', 'rank ', rank, ': error string ', ilen, ' [', estr(1:ilen), ']'
    print '(A,I0,A,4(1X,I0))', 'rank ', rank, ': handle values', MPI_COMM_WORLD%MPI_VAL, &
        MPI_DOUBLE_PRECISION%MPI_VAL, MPI_SUM%MPI_VAL, MPI_GROUP_EMPTY%MPI_VAL
    call MPI_Finalize()
end program
