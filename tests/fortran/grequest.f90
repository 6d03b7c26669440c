! MPI_GREQUEST_START from Fortran: mpcr ends the job with a message naming
! what is not supported (docs/fortran.md), rather than call the Fortran
! callbacks as C functions. Under mpcr only.
module grequest_callbacks
    use mpi
    implicit none
contains
    subroutine query_fn(extra_state, status, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        integer :: status(MPI_STATUS_SIZE), ierr
        call MPI_STATUS_SET_ELEMENTS(status, MPI_INTEGER, 0, ierr)
        call MPI_STATUS_SET_CANCELLED(status, .false., ierr)
        status(MPI_SOURCE) = MPI_UNDEFINED
        status(MPI_TAG) = MPI_UNDEFINED
        ierr = MPI_SUCCESS
    end subroutine

    subroutine free_fn(extra_state, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        integer :: ierr
        ierr = MPI_SUCCESS
    end subroutine

    subroutine cancel_fn(extra_state, complete, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        logical :: complete
        integer :: ierr
        ierr = MPI_SUCCESS
    end subroutine
end module

program grequest
    use mpi
    use grequest_callbacks
    implicit none
    integer :: ierr, request, status(MPI_STATUS_SIZE)
    integer(kind=MPI_ADDRESS_KIND) :: extra

    call MPI_INIT(ierr)
    extra = 0
    call MPI_GREQUEST_START(query_fn, free_fn, cancel_fn, extra, request, ierr)
    call MPI_GREQUEST_COMPLETE(request, ierr)
    call MPI_WAIT(request, status, ierr)
    print '(A)', 'grequest: completed'
    call MPI_FINALIZE(ierr)
end program
