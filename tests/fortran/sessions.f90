! The sessions model from Fortran (`use mpi`, MPICH's libmpifort calling
! mpcr's C library; docs/sessions.md): a session before MPI_INIT, its
! process sets and their sizes, a communicator from its WORLD set, a sum
! over it; the handle finalized to MPI_SESSION_NULL (its value: MPICH 4.0.2's
! mpif.h has no such name). MPICH 4.0.2's Fortran binding of
! MPI_Session_get_nth_pset passes n - 1 to C: its sets are numbered from 1
! there. Compared with MPICH's native run.
program sessions
    use mpi
    implicit none
    integer :: session, ierr, n, i, length, group, comm, rank, total
    character(len=64) :: pset, value
    integer :: info
    logical :: flag

    call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session, ierr)
    call MPI_Group_from_session_pset(session, 'mpi://WORLD', group, ierr)
    call MPI_Comm_create_from_group(group, 'fortran.sessions', MPI_INFO_NULL, &
                                    MPI_ERRORS_RETURN, comm, ierr)
    call MPI_Group_free(group, ierr)
    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Session_get_num_psets(session, MPI_INFO_NULL, n, ierr)
    if (rank == 0) print '(a,i0)', 'psets: ', n
    do i = 1, n
        length = len(pset)
        call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, length, pset, ierr)
        call MPI_Session_get_pset_info(session, trim(pset), info, ierr)
        call MPI_Info_get(info, 'mpi_size', len(value), value, flag, ierr)
        if (rank == 0) print '(a,i0,4a)', 'pset ', i, ': ', trim(pset), ' mpi_size ', trim(value)
        call MPI_Info_free(info, ierr)
    end do
    call MPI_Allreduce(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
    if (rank == 0) print '(a,i0)', 'sum over the WORLD set: ', total
    call MPI_Comm_free(comm, ierr)
    call MPI_Session_finalize(session, ierr)
    if (rank == 0) print '(a,z8)', 'after MPI_Session_finalize: ', session
end program sessions
