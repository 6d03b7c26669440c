# Tests of point-to-point (included by tests/CMakeLists.txt; mpi_test, mpi_program are defined there).
