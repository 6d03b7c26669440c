! What the Fortran checkpoint scenarios share (ckpt.h's conventions for the
! C ones): integer arguments, computation that touches no memory, and the
! final report of every rank's checksums as bits.
module ckpt_common
    use mpi
    implicit none
contains
    ! Command-line argument i as an integer, or dflt when there is none.
    integer function int_arg(i, dflt)
        integer :: i, dflt
        character(len=32) :: arg
        int_arg = dflt
        if (command_argument_count() < i) return
        call get_command_argument(i, arg)
        read (arg, *) int_arg
    end function

    ! steps * units of the logistic map from seed, folded into a checksum:
    ! computation that touches no memory, so that checkpoints find ranks
    ! busy outside MPI.
    double precision function work(seed, units, steps)
        double precision :: seed
        integer :: units, steps, i
        work = 0.25d0 + modulo(seed, 0.5d0)
        do i = 1, units * steps
            work = 3.99d0 * work * (1 - work)
        end do
    end function

    ! Creates PATH.reached, then waits until the file PATH, or the file
    ! OR_PATH when it is not blank, exists (tests/ckpt/ckpt.h's wait_for_file).
    subroutine wait_for_file(path, or_path)
        use iso_c_binding, only: c_int
        interface
            integer(c_int) function usleep(us) bind(c, name='usleep')
                import :: c_int
                integer(c_int), value :: us
            end function
        end interface
        character(len=*) :: path, or_path
        integer :: u, st
        logical :: there
        open (newunit=u, file=trim(path)//'.reached', status='replace', action='write')
        close (u)
        do
            inquire (file=trim(path), exist=there)
            if (there) exit
            if (len_trim(or_path) > 0) then
                inquire (file=trim(or_path), exist=there)
                if (there) exit
            end if
            st = usleep(20000_c_int)
        end do
    end subroutine

    ! The test harness's hold (tests/ckpt/ckpt.h's hold): with CKPT_HOLD=PATH
    ! in the environment, rank 0 creates PATH.reached and waits until PATH
    ! exists; the others wait for it in MPI_BARRIER. Collective.
    subroutine hold_for_harness(comm)
        integer :: comm, length, st, rank, ierr
        character(len=4096) :: path
        call get_environment_variable('CKPT_HOLD', path, length, st)
        if (st /= 0 .or. length == 0) return
        call MPI_COMM_RANK(comm, rank, ierr)
        if (rank == 0) call wait_for_file(path, ' ')
        call MPI_BARRIER(comm, ierr)
    end subroutine

    ! The harness's midway hold (ckpt.h's midway_for_harness): with
    ! CKPT_MIDWAY=PATH, rank 0 of comm waits here (not in MPI) until PATH, or
    ! CKPT_HOLD's file, exists; the others go on until they need its messages.
    subroutine midway_for_harness(comm)
        integer :: comm, length, st, rank, ierr
        character(len=4096) :: path, hold
        call get_environment_variable('CKPT_MIDWAY', path, length, st)
        if (st /= 0 .or. length == 0) return
        call get_environment_variable('CKPT_HOLD', hold, length, st)
        if (st /= 0) hold = ' '
        call MPI_COMM_RANK(comm, rank, ierr)
        if (rank == 0) call wait_for_file(path, hold)
    end subroutine

    ! Every rank's two checksums, gathered to rank 0 of comm and printed
    ! there as hexadecimal bits: "NAME rank R: A=... B=...", after the
    ! harness's hold (collective).
    subroutine report_bits(name, a, b, sums, comm)
        character(len=*) :: name, a, b
        double precision :: sums(2)
        integer :: comm, rank, nprocs, r, ierr
        double precision, allocatable :: all(:)
        integer(kind=8) :: bits
        call hold_for_harness(comm)
        call MPI_COMM_RANK(comm, rank, ierr)
        call MPI_COMM_SIZE(comm, nprocs, ierr)
        allocate (all(merge(2 * nprocs, 1, rank == 0)))
        call MPI_GATHER(sums, 2, MPI_DOUBLE_PRECISION, all, 2, MPI_DOUBLE_PRECISION, 0, comm, ierr)
        if (rank /= 0) return
        do r = 0, nprocs - 1
            bits = transfer(all(2 * r + 1), bits)
            write (*, '(A,A,I0,A,A,A,Z16.16)', advance='no') name, ' rank ', r, ': ', a, '=', bits
            bits = transfer(all(2 * r + 2), bits)
            print '(A,A,A,Z16.16)', ' ', b, '=', bits
        end do
        flush (6)
    end subroutine
end module
