# Tests of point-to-point (included by tests/CMakeLists.txt; mpi_test, mpi_program are defined there).

# The chapter beyond Send/Recv/Isend/Irecv, compared with native MPICH.
mpi_program(t_p2p_more mpi/p2p_more.c)
mpi_test(mpi.p2p_more 2 t_p2p_more)
