# Tests of collectives (included by tests/CMakeLists.txt; mpi_test, mpi_program are defined there).
