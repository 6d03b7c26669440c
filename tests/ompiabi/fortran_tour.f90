! The parts of mpcr's Open MPI Fortran library that are not C's binding by
! reference (src/lib/ompi/fortran_custom.c) and the conversions the generated
! ones make, built with mpif90.openmpi and compared with mpirun.openmpi's
! run (tests/ompiabi_fortran.cmake): MPI_SIZEOF, indices counted from 1
! (WAITANY, TESTANY, WAITSOME), a user reduction, a user error handler,
! MPI-1's INTEGER addresses (ADDRESS, TYPE_STRUCT, TYPE_HINDEXED,
! TYPE_HVECTOR, TYPE_EXTENT), TYPE_GET_CONTENTS, Open MPI's
! persistent collectives (MPIX_ALLREDUCE_INIT), GROUP_RANGE_INCL,
! DIST_GRAPH_CREATE_ADJACENT with MPI_UNWEIGHTED, ALLTOALLW, strings both
! ways (names, info), MPI_AINT_ADD/DIFF, MPI_BUFFER_DETACH. Rank 0 prints
! what every rank agrees on; 3 ranks.
module tour_callbacks
    implicit none
    integer :: handler_calls = 0, handler_code = 0
contains
    ! elementwise maximum of absolute values, for INTEGER
    subroutine absmax(invec, inoutvec, len, datatype)
        use mpi
        integer :: len, datatype, i
        integer :: invec(len), inoutvec(len)
        if (datatype /= MPI_INTEGER) stop 'absmax: not MPI_INTEGER'
        do i = 1, len
            inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
        end do
    end subroutine

    subroutine on_error(comm, code)
        integer :: comm, code
        handler_calls = handler_calls + 1
        handler_code = code
        if (comm < -huge(comm)) stop 'on_error: no communicator'
    end subroutine
end module

program fortran_tour
    use mpi
    use tour_callbacks
    implicit none
    integer :: ierr, rank, nprocs, i, n, idx, flag_count, outcount
    integer :: reqs(3), statuses(MPI_STATUS_SIZE, 3), status(MPI_STATUS_SIZE), indices(3)
    integer :: vals(3), got(3), op, errh, sz, pers, sum, group, wgroup, ranges(3, 1), gsize
    integer :: addr1, addr2, blocks(2), disps(2), types(2), stype, htype, vtype, ext
    integer :: ni, na, nd, combiner, ints(8), dtypes(4), graph, indeg, outdeg, wgt
    integer(kind=MPI_ADDRESS_KIND) :: aints(4), a, b
    integer :: pair(2), srcs(1), dsts(1), counts(3), wdispls(3), wtypes(3), sendw(3), recvw(3)
    integer :: info, buffer(64), bsize, rlen
    logical :: flag, weighted
    double precision :: d
    complex :: c
    character(len=20) :: cname
    character(len=MPI_MAX_INFO_VAL) :: value

    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)

    ! MPI_SIZEOF (the module's specific procedures)
    call MPI_SIZEOF(n, sz, ierr)
    i = sz
    call MPI_SIZEOF(d, sz, ierr)
    i = i * 100 + sz
    call MPI_SIZEOF(c, sz, ierr)
    if (rank == 0) print '(A,I0,1X,I0)', 'sizeof integer*100+double, complex: ', i, sz

    ! indices from 1: a receive from each neighbour and one from nobody
    do i = 1, 2
        call MPI_IRECV(got(i), 1, MPI_INTEGER, mod(rank + i, nprocs), 5, MPI_COMM_WORLD, reqs(i), ierr)
    end do
    call MPI_IRECV(got(3), 1, MPI_INTEGER, MPI_PROC_NULL, 5, MPI_COMM_WORLD, reqs(3), ierr)
    do i = 1, 2
        call MPI_SEND(rank * 10 + i, 1, MPI_INTEGER, mod(rank - i + nprocs, nprocs), 5, MPI_COMM_WORLD, ierr)
    end do
    call MPI_WAITANY(3, reqs, idx, status, ierr)
    n = 1
    if (idx < 1 .or. idx > 3 .or. reqs(idx) /= MPI_REQUEST_NULL) n = 0
    call MPI_WAITSOME(3, reqs, outcount, indices, statuses, ierr)
    do i = 1, outcount
        if (indices(i) < 1 .or. indices(i) > 3 .or. indices(i) == idx) n = 0
    end do
    flag = .false.
    flag_count = 0
    do while (.not. flag)
        call MPI_TESTANY(3, reqs, idx, flag, status, ierr)
        flag_count = flag_count + 1
    end do
    if (idx /= MPI_UNDEFINED .and. (idx < 1 .or. idx > 3)) n = 0
    call MPI_ALLREDUCE(MPI_IN_PLACE, n, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
    if (rank == 0) print '(A,L1,1X,I0,1X,I0)', 'indices from 1: ', n == 1, got(1) / 10, got(2) / 10

    ! a user reduction
    vals = [rank - 5, 2 * rank, -rank * rank]
    call MPI_OP_CREATE(absmax, .true., op, ierr)
    call MPI_ALLREDUCE(vals, got, 3, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
    call MPI_OP_FREE(op, ierr)
    if (rank == 0) print '(A,3(1X,I0),L2)', 'user op:', got, op == MPI_OP_NULL

    ! a user error handler, called by MPI_COMM_CALL_ERRHANDLER and by an error
    call MPI_COMM_CREATE_ERRHANDLER(on_error, errh, ierr)
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, errh, ierr)
    call MPI_COMM_CALL_ERRHANDLER(MPI_COMM_WORLD, MPI_ERR_OTHER, ierr)
    call MPI_SEND(n, 1, MPI_INTEGER, nprocs + 5, 0, MPI_COMM_WORLD, ierr)
    call MPI_ERROR_CLASS(handler_code, i, ierr)
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
    call MPI_ERRHANDLER_FREE(errh, ierr)
    if (rank == 0) print '(A,I0,L2)', 'error handler calls ', handler_calls, i == MPI_ERR_RANK

    ! MPI-1's INTEGER addresses: a struct of two INTEGERs by their addresses'
    ! difference (an address is cut to an INTEGER, as Open MPI does: only
    ! differences mean something)
    call MPI_ADDRESS(pair(1), addr1, ierr)
    call MPI_ADDRESS(pair(2), addr2, ierr)
    blocks = [1, 1]
    disps = [0, addr2 - addr1]
    types = [MPI_INTEGER, MPI_INTEGER]
    call MPI_TYPE_STRUCT(2, blocks, disps, types, stype, ierr)
    call MPI_TYPE_COMMIT(stype, ierr)
    call MPI_TYPE_EXTENT(stype, ext, ierr)
    pair = [rank, rank + 100]
    call MPI_SENDRECV(pair, 1, stype, mod(rank + 1, nprocs), 6, vals, 2, MPI_INTEGER, &
                      mod(rank - 1 + nprocs, nprocs), 6, MPI_COMM_WORLD, status, ierr)
    call MPI_TYPE_HINDEXED(2, blocks, disps, MPI_INTEGER, htype, ierr)
    call MPI_TYPE_HVECTOR(2, 1, disps(2), MPI_INTEGER, vtype, ierr)
    call MPI_TYPE_GET_ENVELOPE(vtype, ni, na, nd, combiner, ierr)
    call MPI_TYPE_GET_CONTENTS(vtype, ni, na, nd, ints, aints, dtypes, ierr) ! just the sizes: Open
    ! MPI 4.1.4 converts max_datatypes handles, also those the call did not write
    if (rank == 0) print '(A,I0,1X,I0,1X,I0,3(1X,I0),L2,3(1X,I0))', 'MPI-1 addresses: extent ', ext, &
        vals(1:2), ni, na, nd, dtypes(1) == MPI_INTEGER, ints(1:2), aints(1)
    call MPI_TYPE_FREE(stype, ierr)
    call MPI_TYPE_FREE(htype, ierr)
    call MPI_TYPE_FREE(vtype, ierr)

    ! Open MPI's persistent collective, started twice
    call MPIX_ALLREDUCE_INIT(n, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, pers, ierr)
    do i = 1, 2
        n = i * (rank + 1)
        call MPI_START(pers, ierr)
        call MPI_WAIT(pers, status, ierr)
        if (rank == 0) print '(A,I0,A,I0)', 'MPIX_ALLREDUCE_INIT round ', i, ': ', sum
    end do
    call MPI_REQUEST_FREE(pers, ierr)

    ! groups by ranges, a distributed graph without weights, alltoallw
    call MPI_COMM_GROUP(MPI_COMM_WORLD, wgroup, ierr)
    ranges(:, 1) = [0, nprocs - 1, 2]
    call MPI_GROUP_RANGE_INCL(wgroup, 1, ranges, group, ierr)
    call MPI_GROUP_SIZE(group, gsize, ierr)
    call MPI_GROUP_FREE(group, ierr)
    call MPI_GROUP_FREE(wgroup, ierr)
    srcs(1) = mod(rank - 1 + nprocs, nprocs)
    dsts(1) = mod(rank + 1, nprocs)
    call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, &
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, .false., graph, ierr)
    call MPI_DIST_GRAPH_NEIGHBORS_COUNT(graph, indeg, outdeg, weighted, ierr)
    call MPI_NEIGHBOR_ALLGATHER(rank, 1, MPI_INTEGER, wgt, 1, MPI_INTEGER, graph, ierr)
    call MPI_COMM_FREE(graph, ierr)
    counts = 1
    wtypes = MPI_INTEGER
    do i = 1, nprocs
        wdispls(i) = (i - 1) * 4
        sendw(i) = rank * 10 + i
    end do
    call MPI_ALLTOALLW(sendw, counts, wdispls, wtypes, recvw, counts, wdispls, wtypes, MPI_COMM_WORLD, ierr)
    if (rank == 0) print '(A,I0,1X,I0,1X,I0,L2,1X,I0,3(1X,I0))', 'range group, graph: ', gsize, indeg, &
        outdeg, weighted, wgt, recvw

    ! strings both ways: names and info
    call MPI_COMM_SET_NAME(MPI_COMM_WORLD, '  the world  ', ierr)
    call MPI_COMM_GET_NAME(MPI_COMM_WORLD, cname, rlen, ierr)
    call MPI_INFO_CREATE(info, ierr)
    call MPI_INFO_SET(info, 'colour', 'blue and green', ierr)
    call MPI_INFO_GET(info, 'colour', MPI_MAX_INFO_VAL, value, flag, ierr)
    call MPI_INFO_GET_VALUELEN(info, 'colour', n, flag, ierr)
    call MPI_INFO_FREE(info, ierr)
    if (rank == 0) print '(5A,I0,L2,I3)', 'names: [', cname, '] [', trim(value), '] ', rlen, flag, n

    ! address arithmetic, a buffer attached and detached
    call MPI_GET_ADDRESS(buffer(1), a, ierr)
    b = MPI_AINT_ADD(a, 40_MPI_ADDRESS_KIND)
    call MPI_BUFFER_ATTACH(buffer, 256, ierr)
    call MPI_BSEND(rank, 1, MPI_INTEGER, rank, 7, MPI_COMM_WORLD, ierr)
    call MPI_RECV(n, 1, MPI_INTEGER, rank, 7, MPI_COMM_WORLD, status, ierr)
    call MPI_BUFFER_DETACH(buffer, bsize, ierr)
    if (rank == 0) print '(A,I0,1X,I0,1X,I0)', 'aint diff, detached size, bsend: ', MPI_AINT_DIFF(b, a), bsize, n

    call MPI_FINALIZE(ierr)
end program
