! Checkpoint scenario in Fortran (`use mpi`, built with mpif90.mpich):
! point-to-point and collectives of Fortran types, mixed in every
! iteration, with unequal computation between ranks, so that checkpoints
! find ranks computing, blocked in a receive or a synchronous send, inside
! a collective, with a nonblocking collective outstanding, and messages in
! flight. Each iteration IT:
!  - computation, UNITS * (1 + 3 ((rank + IT) mod nprocs)): who is
!    slowest changes from one iteration to the next, and the others wait
!    for the token below (on 2 ranks, one waits 3 UNITS in MPI_RECV);
!  - a token around the ring (INTEGER): rank 0 sends first, the others
!    receive first, so all but one wait in MPI_RECV; MPI_SEND, or MPI_SSEND
!    on even IT; the status read for MPI_SOURCE and MPI_TAG;
!  - MPI_IRECV/MPI_ISEND with both neighbours, DOUBLE PRECISION to the
!    right, COMPLEX to the left, completed by MPI_WAITALL, MPI_WAITANY (one
!    at a time, the receives' statuses kept by index) or an MPI_TESTALL
!    loop, by IT mod 3;
!  - MPI_SENDRECV of a CHARACTER string around the ring;
!  - a LOGICAL array of a length that varies, found by MPI_PROBE with
!    MPI_ANY_SOURCE and received at the size MPI_GET_COUNT gives, from the
!    source the status names (its send an MPI_ISEND, waited for after);
!  - MPI_BCAST of INTEGER from a root that moves; MPI_REDUCE of DOUBLE
!    PRECISION with MPI_SUM and of MPI_2DOUBLE_PRECISION with MPI_MAXLOC;
!    MPI_ALLGATHER, MPI_ALLTOALL, MPI_SCAN (INTEGER); MPI_GATHERV on odd
!    IT, MPI_SCATTERV on even; MPI_ALLREDUCE with MPI_IN_PLACE;
!  - MPI_IALLREDUCE (DOUBLE PRECISION) on odd IT, MPI_IBCAST (INTEGER) on
!    even, left outstanding while the rank computes UNITS * (rank + 1),
!    then MPI_WAIT;
!  - an INTEGER sent to the right (MPI_ISEND, tag 50) as the iteration
!    begins and received (MPI_RECV) only as it ends: through nearly the
!    whole iteration a message is in flight, unexpected at its receiver, so
!    a cut almost anywhere has one to drain (with the token alone, 6 cuts of
!    a CI run found none);
!  - a generalized request (MPI_GREQUEST_START, callbacks in Fortran)
!    outstanding through the whole iteration, completed at its end and
!    waited for: its status comes from the query callback, which reads the
!    extra state by reference, and the free callback counts into it.
! Everything a rank receives or reduces is folded into two integer hashes
! (point-to-point, collectives; doubles by their bits). The doubles hold
! integers, whose sums are exact in any order: the results are
! bit-identical under MPICH and Open MPI, however often the job is cut and
! restarted. Only rank 0 prints: its hashes every ITERS/10 iterations
! (flushed at once), and at the end every rank's hashes as hexadecimal
! bits, "ptp_coll rank R: p2p=... coll=..." (report_bits; ckpt.h's
! conventions for the C scenarios; ckpt.sh takes a name without digits).
!   ckpt_f_p2p_coll [ITERS [UNITS]]   (default 20 2; UNITS: about half a
!                                      millisecond of computation each)
module p2p_coll_parts
    use mpi
    implicit none
    integer(kind=8), parameter :: HMOD = 2147483647_8 ! the hashes stay below: no overflow
    integer, parameter :: NDBL = 200, NCPX = 60, NLOG = 9, NSTR = 32
contains
    subroutine mix8(h, v)
        integer(kind=8) :: h, v
        h = mod(h * 131_8 + modulo(v, HMOD), HMOD)
    end subroutine

    subroutine mixi(h, v)
        integer(kind=8) :: h
        integer :: v
        call mix8(h, int(v, 8))
    end subroutine

    subroutine mixd(h, d)
        integer(kind=8) :: h, bits
        double precision :: d
        bits = transfer(d, bits)
        call mix8(h, ibits(bits, 0, 32))
        call mix8(h, ibits(bits, 32, 32))
    end subroutine

    subroutine mixc(h, c)
        integer(kind=8) :: h
        complex :: c
        integer :: bits
        call mixi(h, transfer(real(c), bits))
        call mixi(h, transfer(aimag(c), bits))
    end subroutine

    subroutine mixs(h, s)
        integer(kind=8) :: h
        character(len=*) :: s
        integer :: i
        do i = 1, len(s)
            call mixi(h, ichar(s(i:i)))
        end do
    end subroutine

    ! The generalized request's callbacks: the query reports the extra state
    ! (taken by reference) as the tag and half of it as the element count;
    ! free adds 1000 to it, so the next query sees that it ran.
    subroutine greq_query(extra_state, status, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        integer :: status(MPI_STATUS_SIZE), ierr
        call MPI_STATUS_SET_ELEMENTS(status, MPI_INTEGER, int(mod(extra_state, 1000_MPI_ADDRESS_KIND)) / 2, ierr)
        call MPI_STATUS_SET_CANCELLED(status, .false., ierr)
        status(MPI_SOURCE) = MPI_UNDEFINED
        status(MPI_TAG) = int(extra_state)
        ierr = MPI_SUCCESS
    end subroutine

    subroutine greq_free(extra_state, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        integer :: ierr
        extra_state = extra_state + 1000
        ierr = MPI_SUCCESS
    end subroutine

    subroutine greq_cancel(extra_state, complete, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        logical :: complete
        integer :: ierr
        ierr = MPI_SUCCESS
    end subroutine

    ! A value of iteration it, rank r, element i: small integers.
    integer function val(it, r, i)
        integer :: it, r, i
        val = mod(it * 7919 + r * 104729 + i * 31, 100003)
    end function

end module

program ckpt_f_p2p_coll
    use mpi
    use ckpt_common
    use p2p_coll_parts
    implicit none
    integer, parameter :: W = MPI_COMM_WORLD
    integer :: iters, units, it, i, r, ierr, every, rank, nprocs, left, right, root, idx, cnt, total
    integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 4), reqs(4), req, greq, early_req
    integer :: early_in(1)
    integer, asynchronous :: early_out(1)
    integer(kind=MPI_ADDRESS_KIND) :: greq_state
    integer :: token(4), srcs(2), tags(2), ivec2(8), scanv(2), scanr(2)
    integer, asynchronous :: ivec(8)
    integer, allocatable :: gath(:), a2as(:, :), a2ar(:, :), counts(:), displs(:), vsend(:), vrecv(:)
    integer(kind=8) :: hp, hc
    double precision :: dsum(4), dsumr(4), pair(2), pairr(2), spin
    ! buffers of nonblocking calls: touched by MPI between the call and its completion
    double precision, asynchronous :: dsend(NDBL), drecv(NDBL), nbc(8)
    complex, asynchronous :: csend(NCPX), crecv(NCPX)
    logical, asynchronous :: lsend(NLOG)
    logical :: lrecv(NLOG), done
    character(len=NSTR) :: ssend, srecv

    call MPI_INIT(ierr)
    call MPI_COMM_RANK(W, rank, ierr)
    call MPI_COMM_SIZE(W, nprocs, ierr)
    if (nprocs < 2) then
        print '(A)', 'ckpt_f_p2p_coll needs 2 ranks or more'
        call MPI_ABORT(W, 2, ierr)
    end if
    iters = int_arg(1, 20)
    units = int_arg(2, 2)
    every = max(iters / 10, 1)
    right = mod(rank + 1, nprocs)
    left = mod(rank + nprocs - 1, nprocs)
    allocate (gath(2 * nprocs), a2as(3, 0:nprocs - 1), a2ar(3, 0:nprocs - 1), counts(0:nprocs - 1), &
              displs(0:nprocs - 1), vsend(nprocs * (nprocs + 3) / 2), vrecv(nprocs * (nprocs + 3) / 2))
    hp = 1
    hc = 1
    spin = 0
    greq_state = 0

    do it = 1, iters
        if (it == iters / 2 + 1) call midway_for_harness(W) ! the harness's first cut lands mid-job
        greq_state = greq_state + mod(val(it, rank, 1300), 500)
        call MPI_GREQUEST_START(greq_query, greq_free, greq_cancel, greq_state, greq, ierr)
        early_out(1) = val(it, rank, 1400)
        call MPI_ISEND(early_out, 1, MPI_INTEGER, right, 50, W, early_req, ierr)
        spin = spin + work(dble(hp + it), units * (1 + 3 * mod(rank + it, nprocs)), 400000) ! ~0.5 ms a unit

        ! ---- point-to-point
        ! the token around the ring: all but rank 0 wait in MPI_RECV
        if (rank == 0) token = [it, 0, val(it, 0, 1), 1]
        if (rank /= 0) call MPI_RECV(token, 4, MPI_INTEGER, left, 10, W, status, ierr)
        if (rank /= 0) then
            call mixi(hp, status(MPI_SOURCE))
            call mixi(hp, status(MPI_TAG))
            token(2) = token(2) + rank
            token(3) = mod(token(3) * 3 + val(it, rank, 2), 100003)
            token(4) = token(4) + 1
        end if
        if (mod(it, 2) == 0) then
            call MPI_SSEND(token, 4, MPI_INTEGER, right, 10, W, ierr)
        else
            call MPI_SEND(token, 4, MPI_INTEGER, right, 10, W, ierr)
        end if
        if (rank == 0) then
            call MPI_RECV(token, 4, MPI_INTEGER, left, 10, W, status, ierr)
            call mixi(hp, status(MPI_SOURCE))
            call mixi(hp, status(MPI_TAG))
        end if
        do i = 1, 4
            call mixi(hp, token(i))
        end do

        ! nonblocking with both neighbours: doubles to the right, complex to the left
        do i = 1, NDBL
            dsend(i) = val(it, rank, i) * 0.5d0
        end do
        do i = 1, NCPX
            csend(i) = cmplx(val(it, rank, i + NDBL), -val(it, rank, i), kind(csend))
        end do
        call MPI_IRECV(drecv, NDBL, MPI_DOUBLE_PRECISION, left, 20, W, reqs(1), ierr)
        call MPI_IRECV(crecv, NCPX, MPI_COMPLEX, right, 21, W, reqs(2), ierr)
        call MPI_ISEND(dsend, NDBL, MPI_DOUBLE_PRECISION, right, 20, W, reqs(3), ierr)
        call MPI_ISEND(csend, NCPX, MPI_COMPLEX, left, 21, W, reqs(4), ierr)
        select case (mod(it, 3))
        case (0)
            call MPI_WAITALL(4, reqs, statuses, ierr)
            srcs = statuses(MPI_SOURCE, 1:2)
            tags = statuses(MPI_TAG, 1:2)
        case (1)
            do i = 1, 4
                call MPI_WAITANY(4, reqs, idx, status, ierr)
                if (idx <= 2) then
                    srcs(idx) = status(MPI_SOURCE)
                    tags(idx) = status(MPI_TAG)
                end if
            end do
        case default
            done = .false.
            do while (.not. done)
                call MPI_TESTALL(4, reqs, done, statuses, ierr)
            end do
            srcs = statuses(MPI_SOURCE, 1:2)
            tags = statuses(MPI_TAG, 1:2)
        end select
        do i = 1, 2
            call mixi(hp, srcs(i))
            call mixi(hp, tags(i))
        end do
        do i = 1, NDBL
            call mixd(hp, drecv(i))
        end do
        do i = 1, NCPX
            call mixc(hp, crecv(i))
        end do

        ! a CHARACTER string around the ring
        write (ssend, '(A,I0,A,I0)') 'iteration ', it, ' from ', rank
        call MPI_SENDRECV(ssend, NSTR, MPI_CHARACTER, right, 30, srecv, NSTR, MPI_CHARACTER, left, 30, &
                          W, status, ierr)
        call mixs(hp, srecv)
        call mixi(hp, status(MPI_SOURCE))

        ! LOGICAL of a varying length: probed from any source, received at its size
        cnt = 1 + mod(it + rank, NLOG)
        do i = 1, cnt
            lsend(i) = mod(it + rank + i, 3) == 0
        end do
        call MPI_ISEND(lsend, cnt, MPI_LOGICAL, right, 40, W, req, ierr)
        call MPI_PROBE(MPI_ANY_SOURCE, 40, W, status, ierr)
        call MPI_GET_COUNT(status, MPI_LOGICAL, cnt, ierr)
        call MPI_RECV(lrecv, cnt, MPI_LOGICAL, status(MPI_SOURCE), 40, W, status, ierr)
        call mixi(hp, cnt)
        call mixi(hp, status(MPI_SOURCE))
        do i = 1, cnt
            call mixi(hp, merge(1, 0, lrecv(i)))
        end do
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)

        ! ---- collectives
        root = mod(it, nprocs)
        if (rank == root) then
            do i = 1, 8
                ivec(i) = val(it, root, i + 300)
            end do
        end if
        call MPI_BCAST(ivec, 8, MPI_INTEGER, root, W, ierr)
        do i = 1, 8
            call mixi(hc, ivec(i))
        end do

        do i = 1, 4
            dsum(i) = val(it, rank, i + 400) * 0.25d0
        end do
        call MPI_REDUCE(dsum, dsumr, 4, MPI_DOUBLE_PRECISION, MPI_SUM, root, W, ierr)
        pair = [dble(mod(it * 37 + rank * 11, 17)), dble(rank)]
        call MPI_REDUCE(pair, pairr, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, mod(root + 1, nprocs), W, ierr)
        if (rank == root) then
            do i = 1, 4
                call mixd(hc, dsumr(i))
            end do
        end if
        if (rank == mod(root + 1, nprocs)) then
            call mixd(hc, pairr(1))
            call mixd(hc, pairr(2))
        end if

        call MPI_ALLGATHER([val(it, rank, 500), rank], 2, MPI_INTEGER, gath, 2, MPI_INTEGER, W, ierr)
        do i = 1, 2 * nprocs
            call mixi(hc, gath(i))
        end do

        do r = 0, nprocs - 1
            do i = 1, 3
                a2as(i, r) = val(it, rank, 600 + 3 * r + i)
            end do
        end do
        call MPI_ALLTOALL(a2as, 3, MPI_INTEGER, a2ar, 3, MPI_INTEGER, W, ierr)
        do r = 0, nprocs - 1
            do i = 1, 3
                call mixi(hc, a2ar(i, r))
            end do
        end do

        scanv = [val(it, rank, 700), 1]
        call MPI_SCAN(scanv, scanr, 2, MPI_INTEGER, MPI_SUM, W, ierr)
        call mixi(hc, scanr(1))
        call mixi(hc, scanr(2))

        ! MPI_GATHERV on odd iterations, MPI_SCATTERV on even ones
        total = 0
        do r = 0, nprocs - 1
            counts(r) = r + 1 + mod(it, 2)
            displs(r) = total
            total = total + counts(r)
        end do
        root = mod(it + 1, nprocs)
        if (mod(it, 2) == 1) then
            do i = 1, counts(rank)
                vsend(i) = val(it, rank, 800 + i)
            end do
            call MPI_GATHERV(vsend, counts(rank), MPI_INTEGER, vrecv, counts, displs, MPI_INTEGER, root, W, ierr)
            if (rank == root) then
                do i = 1, total
                    call mixi(hc, vrecv(i))
                end do
            end if
        else
            if (rank == root) then
                do i = 1, total
                    vsend(i) = val(it, root, 900 + i)
                end do
            end if
            call MPI_SCATTERV(vsend, counts, displs, MPI_INTEGER, vrecv, counts(rank), MPI_INTEGER, root, W, ierr)
            do i = 1, counts(rank)
                call mixi(hc, vrecv(i))
            end do
        end if

        do i = 1, 8
            ivec2(i) = val(it, rank, 1000 + i)
        end do
        call MPI_ALLREDUCE(MPI_IN_PLACE, ivec2, 8, MPI_INTEGER, MPI_SUM, W, ierr)
        do i = 1, 8
            call mixi(hc, ivec2(i))
        end do

        ! a nonblocking collective outstanding while the rank computes
        if (mod(it, 2) == 1) then
            do i = 1, 8
                nbc(i) = val(it, rank, 1100 + i) * 0.125d0
            end do
            call MPI_IALLREDUCE(MPI_IN_PLACE, nbc, 8, MPI_DOUBLE_PRECISION, MPI_SUM, W, req, ierr)
        else
            root = mod(it + 2, nprocs)
            if (rank == root) then
                do i = 1, 8
                    ivec(i) = val(it, root, 1200 + i)
                end do
            end if
            call MPI_IBCAST(ivec, 8, MPI_INTEGER, root, W, req, ierr)
        end if
        spin = spin + work(dble(hc + it), units * (rank + 1), 400000)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
        do i = 1, 8
            if (mod(it, 2) == 1) then
                call mixd(hc, nbc(i))
            else
                call mixi(hc, ivec(i))
            end if
        end do

        call MPI_RECV(early_in, 1, MPI_INTEGER, left, 50, W, status, ierr)
        call mixi(hp, early_in(1))
        call mixi(hp, status(MPI_SOURCE))
        call MPI_WAIT(early_req, MPI_STATUS_IGNORE, ierr)

        call MPI_GREQUEST_COMPLETE(greq, ierr)
        call MPI_WAIT(greq, status, ierr)
        call MPI_GET_COUNT(status, MPI_INTEGER, cnt, ierr)
        call mixi(hp, status(MPI_TAG))
        call mixi(hp, cnt)
        call mix8(hp, greq_state)

        if (rank == 0 .and. mod(it, every) == 0) then
            print '(A,I0,A,I0,A,I0)', 'iteration ', it, ': rank 0 p2p ', hp, ' coll ', hc
            flush (6)
        end if
    end do

    call mixd(hc, spin)
    ! every rank's hashes (below 2^31: exact as doubles), gathered to rank 0, printed as bits
    call report_bits('ptp_coll', 'p2p', 'coll', [dble(hp), dble(hc)], W)
    call MPI_FINALIZE(ierr)
end program
