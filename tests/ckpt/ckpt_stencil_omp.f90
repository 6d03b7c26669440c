! A hybrid MPI + OpenMP stencil in Fortran (issue 16, points 3 and 4), for
! checkpoints at random instants: `use mpi`, MPI_INIT_THREAD with
! MPI_THREAD_MULTIPLE, a 2-D Cartesian grid of ranks (MPI_DIMS_CREATE,
! MPI_CART_CREATE, MPI_CART_SHIFT, MPI_PROC_NULL at the edges), a Jacobi
! sweep over an N x N block per rank. Each iteration the four halo sides
! are exchanged by four OpenMP threads at once, each in its own
! MPI_SENDRECV (rows as an MPI_TYPE_VECTOR, columns contiguous); then the
! sweep runs as an OpenMP loop, and the threads compute a little (the
! logistic map) so that checkpoints find them inside and outside MPI.
! Every ITERS/10 iterations: the largest change (MPI_ALLREDUCE, MPI_MAX of
! MPI_DOUBLE_PRECISION, order-free) printed by rank 0; at the end every
! rank's checksum as bits. Every value is computed in a fixed order, so the
! output is the same however often the job is cut and restarted.
!   ckpt_stencil_omp [ITERS [UNITS]]   (default 200 1)
module stencil_parts
    use mpi
    implicit none
    integer, parameter :: N = 96
    integer :: cart, rank, nprocs, row_type
    integer :: nbr(4) ! north, south, west, east
contains
    ! Side k of the halo of u from neighbour nbr(k), the opposite inner
    ! side of u to the opposite neighbour; tag k (the receiver's side).
    subroutine exchange(u, k)
        double precision :: u(0:N + 1, 0:N + 1)
        integer :: k, ierr, opp
        integer, parameter :: opposite(4) = [2, 1, 4, 3]
        opp = nbr(opposite(k))
        select case (k)
        case (1) ! north halo (row 0) from the north, my row N goes south
            call MPI_SENDRECV(u(N, 1), 1, row_type, opp, 1, u(0, 1), 1, row_type, nbr(1), 1, &
                              cart, MPI_STATUS_IGNORE, ierr)
        case (2)
            call MPI_SENDRECV(u(1, 1), 1, row_type, opp, 2, u(N + 1, 1), 1, row_type, nbr(2), 2, &
                              cart, MPI_STATUS_IGNORE, ierr)
        case (3) ! west halo (column 0) from the west, my column N goes east
            call MPI_SENDRECV(u(1, N), N, MPI_DOUBLE_PRECISION, opp, 3, u(1, 0), N, &
                              MPI_DOUBLE_PRECISION, nbr(3), 3, cart, MPI_STATUS_IGNORE, ierr)
        case (4)
            call MPI_SENDRECV(u(1, 1), N, MPI_DOUBLE_PRECISION, opp, 4, u(1, N + 1), N, &
                              MPI_DOUBLE_PRECISION, nbr(4), 4, cart, MPI_STATUS_IGNORE, ierr)
        end select
    end subroutine
end module

program ckpt_stencil_omp
    use mpi
    use ckpt_common
    use stencil_parts
    implicit none
    integer :: iters, units, it, i, j, ierr, every, provided, k, dims(2), coords(2)
    logical :: periods(2)
    double precision, allocatable :: u(:, :), v(:, :)
    double precision :: change, gchange, spin(4)

    call MPI_INIT_THREAD(MPI_THREAD_MULTIPLE, provided, ierr)
    if (provided /= MPI_THREAD_MULTIPLE) then
        print *, 'MPI_INIT_THREAD gave level', provided
        call MPI_ABORT(MPI_COMM_WORLD, 3, ierr)
    end if
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
    iters = int_arg(1, 200)
    units = int_arg(2, 1)
    every = max(iters / 10, 1)
    dims = 0
    periods = .false.
    call MPI_DIMS_CREATE(nprocs, 2, dims, ierr)
    call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .true., cart, ierr)
    call MPI_COMM_RANK(cart, rank, ierr)
    call MPI_CART_COORDS(cart, rank, 2, coords, ierr)
    call MPI_CART_SHIFT(cart, 0, 1, nbr(1), nbr(2), ierr)
    call MPI_CART_SHIFT(cart, 1, 1, nbr(3), nbr(4), ierr)
    call MPI_TYPE_VECTOR(N, 1, N + 2, MPI_DOUBLE_PRECISION, row_type, ierr)
    call MPI_TYPE_COMMIT(row_type, ierr)

    allocate (u(0:N + 1, 0:N + 1), v(0:N + 1, 0:N + 1))
    u = 0
    do j = 1, N
        do i = 1, N
            u(i, j) = mod((coords(1) * N + i) * 7 + (coords(2) * N + j) * 13, 17) * 0.0625d0
        end do
    end do
    v = u
    spin = 0

    do it = 1, iters
        if (it == iters / 2 + 1) call midway_for_harness(MPI_COMM_WORLD) ! outside the threads' region
        ! one halo side a thread, the four in MPI at once
        !$omp parallel do num_threads(4) schedule(static, 1)
        do k = 1, 4
            call exchange(u, k)
            spin(k) = spin(k) + work(spin(k) + it, units, 100000)
        end do
        !$omp end parallel do
        !$omp parallel do private(i)
        do j = 1, N
            do i = 1, N
                v(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
            end do
        end do
        !$omp end parallel do
        change = maxval(abs(v(1:N, 1:N) - u(1:N, 1:N)))
        u(1:N, 1:N) = v(1:N, 1:N)
        if (mod(it, every) == 0) then
            call MPI_ALLREDUCE(change, gchange, 1, MPI_DOUBLE_PRECISION, MPI_MAX, cart, ierr)
            if (rank == 0) then
                print '(A,I0,A,ES24.16)', 'iteration ', it, ': largest change ', gchange
                flush (6)
            end if
        end if
    end do

    call report_bits('stencil', 'u', 'work', [sum(u(1:N, 1:N)), sum(spin)], cart)
    call MPI_TYPE_FREE(row_type, ierr)
    call MPI_COMM_FREE(cart, ierr)
    call MPI_FINALIZE(ierr)
end program
