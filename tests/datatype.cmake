# Tests of datatypes, info, attributes, error handlers (included by tests/CMakeLists.txt; mpi_test, mpi_program are defined there).

# Derived datatypes: constructors, queries, packing, and their use in
# point-to-point and collectives, against the native run.
mpi_program(t_type_derived mpi/type_derived.c)
mpi_test(mpi.type_derived 2 t_type_derived)

# Info objects against the native run.
mpi_program(t_info_ops mpi/info_ops.c)
mpi_test(mpi.info_ops 1 t_info_ops)

# Attributes with their callbacks, user error handlers and error codes,
# against the native run.
mpi_program(t_attr_errhan mpi/attr_errhan.c)
mpi_test(mpi.attr_errhan 1 t_attr_errhan)
