! The Fortran layer's cost per call (issue 16, point 6): the same program
! runs natively (MPICH's libmpifort over libmpich) and under mpcr (MPICH's
! libmpifort over mpcr's library), so the ratio shows what forwarding
! costs a Fortran program, next to bench/callcost and bench/pingpong in C.
!
!   fortran_calls [SECONDS]      (default 0.5 per measurement)
!
! Results, each the median of 5 batches (rank 0 prints):
!   f_iprobe_ns        MPI_IPROBE with nothing pending (every rank probes)
!   f_pingpong_8B_us   half a round trip of 8 bytes, ranks 0 and 1
!   f_allreduce_8B_us  MPI_ALLREDUCE of one DOUBLE PRECISION, all ranks
! With one rank, only f_iprobe_ns.
program fortran_calls
    use mpi
    implicit none
    integer, parameter :: BATCHES = 5, IPROBE = 1, PINGPONG = 2, ALLREDUCE = 3
    integer :: rank, nprocs, ierr, kind
    double precision :: seconds
    character(len=32) :: arg

    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
    seconds = 0.5d0
    if (command_argument_count() >= 1) then
        call get_command_argument(1, arg)
        read (arg, *) seconds
    end if
    do kind = IPROBE, ALLREDUCE
        if (kind /= IPROBE .and. nprocs < 2) exit
        call measure(kind)
    end do
    call MPI_FINALIZE(ierr)
contains
    ! n iterations of measurement `kind`; the seconds they took.
    double precision function run(kind, n)
        integer :: kind, i, ierr
        integer(kind=8) :: n
        logical :: flag
        double precision :: x(1), y(1), t0
        x = 1
        call MPI_BARRIER(MPI_COMM_WORLD, ierr)
        t0 = MPI_WTIME()
        do i = 1, int(n)
            select case (kind)
            case (IPROBE)
                call MPI_IPROBE(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, flag, &
                                MPI_STATUS_IGNORE, ierr)
            case (PINGPONG)
                if (rank == 0) then
                    call MPI_SEND(x, 1, MPI_DOUBLE_PRECISION, 1, 5, MPI_COMM_WORLD, ierr)
                    call MPI_RECV(y, 1, MPI_DOUBLE_PRECISION, 1, 5, MPI_COMM_WORLD, &
                                  MPI_STATUS_IGNORE, ierr)
                else if (rank == 1) then
                    call MPI_RECV(y, 1, MPI_DOUBLE_PRECISION, 0, 5, MPI_COMM_WORLD, &
                                  MPI_STATUS_IGNORE, ierr)
                    call MPI_SEND(x, 1, MPI_DOUBLE_PRECISION, 0, 5, MPI_COMM_WORLD, ierr)
                end if
            case (ALLREDUCE)
                call MPI_ALLREDUCE(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
            end select
        end do
        run = MPI_WTIME() - t0
    end function

    ! Warms up, sizes the batches on rank 0 (every rank loops as often),
    ! and prints the median per-iteration time.
    subroutine measure(kind)
        integer :: kind, b, ierr
        integer(kind=8) :: n
        double precision :: t(BATCHES), warm, per
        n = 200
        warm = run(kind, n)
        n = max(int(seconds / BATCHES / (warm / n), 8), 200_8)
        call MPI_BCAST(n, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
        do b = 1, BATCHES
            t(b) = run(kind, n) / n
        end do
        per = median(t)
        if (rank /= 0) return
        select case (kind)
        case (IPROBE)
            print '(A,ES12.5)', 'RESULT f_iprobe_ns ', per * 1d9
        case (PINGPONG)
            print '(A,ES12.5)', 'RESULT f_pingpong_8B_us ', per * 1d6 / 2
        case (ALLREDUCE)
            print '(A,ES12.5)', 'RESULT f_allreduce_8B_us ', per * 1d6
        end select
        flush (6)
    end subroutine

    double precision function median(t)
        double precision :: t(BATCHES), s(BATCHES), v
        integer :: i, j
        s = t
        do i = 2, BATCHES ! insertion sort: five values
            v = s(i)
            j = i - 1
            do while (j >= 1)
                if (s(j) <= v) exit
                s(j + 1) = s(j)
                j = j - 1
            end do
            s(j + 1) = v
        end do
        median = s((BATCHES + 1) / 2)
    end function
end program
