# Tests of datatypes, info, attributes, error handlers (included by tests/CMakeLists.txt; mpi_test, mpi_program are defined there).

# Derived datatypes: constructors, queries, packing, and their use in
# point-to-point and collectives, against the native run.
mpi_program(t_type_derived mpi/type_derived.c)
mpi_test(mpi.type_derived 2 t_type_derived)
mpcr_label_family(datatype)

# Info objects against the native run.
mpi_program(t_info_ops mpi/info_ops.c)
mpi_test(mpi.info_ops 1 t_info_ops)

# Attributes with their callbacks, user error handlers and error codes,
# against the native run.
mpi_program(t_attr_errhan mpi/attr_errhan.c)
mpi_test(mpi.attr_errhan 1 t_attr_errhan)

# Derived types, info, keyvals with attributes and callbacks, a user error
# handler and error code made before the first checkpoint and used every
# round after it, with the same handles: checkpointed at random instants,
# --exit and restarted (under Open MPI), and checkpoint-and-continue.
add_executable(t_ckpt_objects ckpt/ckpt_objects.c)
target_link_libraries(t_ckpt_objects PRIVATE PkgConfig::MPICH)
target_compile_options(t_ckpt_objects PRIVATE -O2)
set_target_properties(t_ckpt_objects PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_test(NAME ckpt.objects COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.sh exit-restart 3 2
    $<TARGET_FILE:t_ckpt_objects> 90 40)
add_test(NAME ckpt.objects_continue COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.sh continue 3 2
    $<TARGET_FILE:t_ckpt_objects> 90 40)
set_tests_properties(ckpt.objects ckpt.objects_continue PROPERTIES
    ENVIRONMENT "MPCR=${MPCR_EXE}" RUN_SERIAL TRUE TIMEOUT 300)
if(TARGET mpcr-proxy-openmpi)
    set_property(TEST ckpt.objects APPEND PROPERTY ENVIRONMENT "CKPT_RESTART_ARGS=--mpi openmpi")
endif()
mpcr_label_family(attr)
