# Tests of communicators, groups, topologies (included by tests/CMakeLists.txt; mpi_test, mpi_program are defined there).

mpi_program(t_group_ops mpi/group_ops.c)
mpi_program(t_comm_create mpi/comm_create.c)
mpi_program(t_topo_all mpi/topo_all.c)
# Each compared with MPICH's own run: groups (incl. MPI_GROUP_EMPTY and the
# error classes), communicators made every way, topologies of every kind.
mpi_test(mpi.group_ops 4 t_group_ops)
mpi_test(mpi.comm_create 3 t_comm_create)
mpi_test(mpi.topo_all 4 t_topo_all)
if(TARGET mpcr-proxy-openmpi)
    mpi_test(openmpi.comm_create 4 t_comm_create)
    set_property(TEST openmpi.comm_create APPEND PROPERTY ENVIRONMENT "MPCR_RUN_ARGS=--mpi openmpi")
endif()
