# Tests of datatypes, info, attributes, error handlers (included by tests/CMakeLists.txt; mpi_test, mpi_program are defined there).
