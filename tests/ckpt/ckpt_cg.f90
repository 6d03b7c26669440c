! Checkpoint scenario in Fortran (`use mpi`, built with mpif90.mpich): a
! conjugate-gradient solver of the 1-D Laplacian (tridiagonal 2, -1),
! LOCAL rows per rank. Each iteration: the halo exchange (MPI_SENDRECV
! with MPI_PROC_NULL at the ends, MPI_STATUS_IGNORE), two dot products
! (MPI_ALLREDUCE of MPI_DOUBLE_PRECISION), the largest residual entry
! and where it is (MPI_2DOUBLE_PRECISION with MPI_MAXLOC), a LOGICAL
! MPI_LOR, and unequal computation, so that checkpoints find ranks
! computing, inside a collective and past it. A fixed order of operations:
! the result is bit-identical however often the job is cut and
! restarted. Only rank 0 prints: the residual every ITERS/10 iterations
! (flushed at once), and at the end every rank's checksum of the solution
! as hexadecimal bits (ckpt.h's conventions for the C scenarios).
!   ckpt_cg [ITERS [UNITS]]   (default 300 2; UNITS: about half a millisecond
!                              of computation each, rank r doing
!                              UNITS * (r + 1) per iteration)
module cg_parts
    use mpi
    implicit none
    integer, parameter :: LOCAL = 2048
    integer :: rank, nprocs, left, right
contains
    ! The halo of p (p(0), p(LOCAL + 1)) from the neighbours, then q = A p.
    subroutine apply(p, q)
        double precision :: p(0:LOCAL + 1), q(LOCAL)
        integer :: i, ierr
        call MPI_SENDRECV(p(1), 1, MPI_DOUBLE_PRECISION, left, 1, p(LOCAL + 1), 1, &
                          MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_SENDRECV(p(LOCAL), 1, MPI_DOUBLE_PRECISION, right, 2, p(0), 1, &
                          MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        do i = 1, LOCAL
            q(i) = 2 * p(i) - p(i - 1) - p(i + 1)
        end do
    end subroutine

    double precision function dot(a, b)
        double precision :: a(LOCAL), b(LOCAL), mine
        integer :: ierr
        mine = sum(a * b)
        call MPI_ALLREDUCE(mine, dot, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    end function
end module

program ckpt_cg
    use mpi
    use ckpt_common
    use cg_parts
    implicit none
    integer :: iters, units, it, i, ierr, every
    double precision :: x(LOCAL), b(LOCAL), r_(LOCAL), q(LOCAL), p(0:LOCAL + 1)
    double precision :: rr, rrnew, alpha, beta, spin, big(2), bigall(2)
    logical :: small, anysmall

    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
    iters = int_arg(1, 300)
    units = int_arg(2, 2)
    every = max(iters / 10, 1)
    left = merge(MPI_PROC_NULL, rank - 1, rank == 0)
    right = merge(MPI_PROC_NULL, rank + 1, rank == nprocs - 1)

    do i = 1, LOCAL
        b(i) = 1 + mod(rank * LOCAL + i, 7) * 0.125d0
    end do
    x = 0
    r_ = b
    p = 0
    p(1:LOCAL) = r_
    rr = dot(r_, r_)
    spin = 0
    do it = 1, iters
        call apply(p, q)
        alpha = rr / dot(p(1:LOCAL), q)
        x = x + alpha * p(1:LOCAL)
        r_ = r_ - alpha * q
        rrnew = dot(r_, r_)
        beta = rrnew / rr
        rr = rrnew
        p(1:LOCAL) = r_ + beta * p(1:LOCAL)
        ! the largest residual entry and its global index
        i = maxloc(abs(r_), 1)
        big = [abs(r_(i)), dble(rank * LOCAL + i)]
        call MPI_ALLREDUCE(big, bigall, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
        small = bigall(1) < 1d-3
        call MPI_ALLREDUCE(small, anysmall, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
        spin = spin + work(rr + it, units * (rank + 1), 400000) ! about 0.5 ms a unit
        if (rank == 0 .and. mod(it, every) == 0) then
            print '(A,I0,A,ES24.16,A,ES24.16,A,I0,L2)', 'iteration ', it, ': residual ', sqrt(rr), &
                ' largest ', bigall(1), ' at ', int(bigall(2)), anysmall
            flush (6)
        end if
    end do

    ! every rank's checksums, gathered to rank 0, printed as bits
    call report_bits('cg', 'x', 'work', [sum(x), spin], MPI_COMM_WORLD)
    call MPI_FINALIZE(ierr)
end program
