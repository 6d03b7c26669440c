! Generalized requests from Fortran (MPI_GREQUEST_START through MPICH's
! libmpifort, whose callbacks mpcr calls with Fortran's conventions:
! grequest.c). Run natively and under mpcr, outputs compared: each line
! prints what a callback saw or did, so a callback called as a C function
! (extra_state by value, a C status, a returned error) shows as a difference.
module grequest_callbacks
    use mpi
    implicit none
    integer :: query_calls = 0, free_calls = 0, cancel_calls = 0
    logical :: cancel_saw_complete
contains
    ! Fills the status with values the program then checks, and takes the
    ! extra state by reference (it reads what the program stored there).
    subroutine query_fn(extra_state, status, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        integer :: status(MPI_STATUS_SIZE), ierr
        query_calls = query_calls + 1
        call MPI_STATUS_SET_ELEMENTS(status, MPI_INTEGER, int(extra_state), ierr)
        call MPI_STATUS_SET_CANCELLED(status, .false., ierr)
        status(MPI_SOURCE) = 3
        status(MPI_TAG) = 7 + int(extra_state)
        ierr = MPI_SUCCESS
    end subroutine

    ! Changes the program's variable through the reference.
    subroutine free_fn(extra_state, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        integer :: ierr
        free_calls = free_calls + 1
        extra_state = extra_state - 1
        ierr = MPI_SUCCESS
    end subroutine

    subroutine cancel_fn(extra_state, complete, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        logical :: complete
        integer :: ierr
        cancel_calls = cancel_calls + 1
        cancel_saw_complete = complete
        extra_state = extra_state + 100
        ierr = MPI_SUCCESS
    end subroutine

    ! A query that fails: its ierror must reach the program (MPI_WAIT's
    ! status MPI_ERROR and its error code, with MPI_ERRORS_RETURN).
    subroutine failing_query_fn(extra_state, status, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        integer :: status(MPI_STATUS_SIZE), ierr
        query_calls = query_calls + 1
        status(MPI_SOURCE) = MPI_UNDEFINED
        status(MPI_TAG) = MPI_UNDEFINED
        ierr = MPI_ERR_OTHER
    end subroutine
end module

program grequest
    use mpi
    use grequest_callbacks
    implicit none
    integer :: ierr, request, status(MPI_STATUS_SIZE), count, errclass
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: flag

    call MPI_INIT(ierr)

    ! Not complete: MPI_TEST says so and calls no callback.
    extra = 5
    call MPI_GREQUEST_START(query_fn, free_fn, cancel_fn, extra, request, ierr)
    call MPI_TEST(request, flag, status, ierr)
    print '(A,L2,3I3)', 'test before complete:', flag, query_calls, free_calls, cancel_calls
    call MPI_GREQUEST_COMPLETE(request, ierr)
    call MPI_WAIT(request, status, ierr)
    call MPI_GET_COUNT(status, MPI_INTEGER, count, ierr)
    print '(A,4I4)', 'wait: source tag count extra', status(MPI_SOURCE), status(MPI_TAG), count, extra
    print '(A,3I3,L2)', 'calls query free cancel, request null', query_calls, free_calls, cancel_calls, &
        request == MPI_REQUEST_NULL

    ! MPI_CANCEL before completion: cancel_fn sees .false.; after: .true.
    extra = 2
    call MPI_GREQUEST_START(query_fn, free_fn, cancel_fn, extra, request, ierr)
    call MPI_CANCEL(request, ierr)
    print '(A,L2,I5)', 'cancel before complete: saw complete, extra', cancel_saw_complete, extra
    call MPI_GREQUEST_COMPLETE(request, ierr)
    call MPI_CANCEL(request, ierr)
    print '(A,L2,I5)', 'cancel after complete: saw complete, extra', cancel_saw_complete, extra
    call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
    print '(A,I5,3I3)', 'after wait: extra, calls', extra, query_calls, free_calls, cancel_calls

    ! MPI_REQUEST_FREE before completion: free_fn at once, the request lives
    ! on until MPI_GREQUEST_COMPLETE.
    extra = 40
    call MPI_GREQUEST_START(query_fn, free_fn, cancel_fn, extra, request, ierr)
    count = request
    call MPI_REQUEST_FREE(request, ierr)
    print '(A,I5,L2)', 'freed before complete: extra, request null', extra, request == MPI_REQUEST_NULL
    call MPI_GREQUEST_COMPLETE(count, ierr)

    ! A failing query: the error reaches MPI_WAIT.
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    extra = 0
    call MPI_GREQUEST_START(failing_query_fn, free_fn, cancel_fn, extra, request, ierr)
    call MPI_GREQUEST_COMPLETE(request, ierr)
    call MPI_WAIT(request, status, ierr)
    call MPI_ERROR_CLASS(ierr, errclass, count)
    print '(A,L2,I3)', 'failing query: error other, extra', errclass == MPI_ERR_OTHER, extra
    print '(A,3I3)', 'calls at the end', query_calls, free_calls, cancel_calls
    call MPI_FINALIZE(ierr)
end program
