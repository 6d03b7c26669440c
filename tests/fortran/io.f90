! MPI-IO from Fortran (docs/mpi-io.md), through MPICH's own libmpifort over
! mpcr's library (the file handles cross as MPI_File_c2f/f2c): a file opened
! collectively with DELETE_ON_CLOSE, a view of every rank's block of 4
! integers among the others', write_all, write_at_all, sync, get_size,
! read_at_all, get_view, close; rank 0 prints what it read, against native.
program fio
  use mpi
  implicit none
  integer :: fh, ierr, rank, nranks, buf(8), back(8), st(MPI_STATUS_SIZE), cnt, amode
  integer :: filetype, etype, viewtype
  integer(kind=MPI_OFFSET_KIND) :: sz, zero, disp
  character(len=MPI_MAX_DATAREP_STRING) :: rep
  character(len=256) :: path
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  write (path, '(a,i0,a)') '/tmp/mpcr_fortran_io.', getpid_of_rank0(), '.dat'
  amode = MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE
  call MPI_File_open(MPI_COMM_WORLD, trim(path), amode, MPI_INFO_NULL, fh, ierr)
  call MPI_Type_vector(2, 4, 4 * nranks, MPI_INTEGER, filetype, ierr)
  call MPI_Type_commit(filetype, ierr)
  zero = 0
  disp = rank * 16
  call MPI_File_set_view(fh, disp, MPI_INTEGER, filetype, 'native', MPI_INFO_NULL, ierr)
  buf = [(rank * 100 + cnt, cnt = 1, 8)]
  call MPI_File_write_all(fh, buf, 4, MPI_INTEGER, st, ierr)
  call MPI_File_write_at_all(fh, 4_MPI_OFFSET_KIND, buf(5), 4, MPI_INTEGER, st, ierr)
  call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  call MPI_File_get_size(fh, sz, ierr)
  back = 0
  call MPI_File_read_at_all(fh, zero, back, 8, MPI_INTEGER, st, ierr)
  call MPI_File_get_view(fh, disp, etype, viewtype, rep, ierr)
  if (rank == nranks - 1) print '(a,i0,a,i0,a,i0,a,8i5,a,a)', 'rank ', rank, ': count ', cnt, &
      ' size ', sz, ' read', back, ' datarep ', trim(rep)
  call MPI_Type_free(filetype, ierr)
  call MPI_Type_free(viewtype, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Finalize(ierr)
contains
  integer function getpid_of_rank0()
    integer :: pid, e
    interface
      integer(c_int) function getpid() bind(c, name='getpid')
        use iso_c_binding
      end function
    end interface
    pid = getpid()
    call MPI_Bcast(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, e)
    getpid_of_rank0 = pid
  end function
end program
