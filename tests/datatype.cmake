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
# on Open MPI's proxy: MPI_TAG_UB is MPICH's, what a restart on MPICH's proxy accepts
openmpi_test(attr_errhan 1 t_attr_errhan)

# Derived types, info, keyvals with attributes and callbacks, a user error
# handler and error code made before the first checkpoint and used every
# round after it, with the same handles: checkpointed at random instants,
# --exit and restarted (under Open MPI), and checkpoint-and-continue.
ckpt_pair(objects objects 3 2 90 40)
mpcr_label_family(attr)

# Real datatypes in the proxy (docs/datatypes.md, "Real datatypes in the proxy"): types of
# every constructor (tests/mpi/real_types.h) compared with native MPICH, then with
# MPCR_CHECK_REAL_TYPES=1, where every commit has the proxy build the real datatype and
# pack 1..3 elements through it, compared with the library's pack: on either proxy
# (Open MPI's refuses the two types whose counts exceed int, saying so), with a proxy
# that keeps 4 types (the others are defined again), and across restarts (the new
# proxy is sent the definitions again; under Open MPI too).
mpi_program(t_real_types mpi/real_types.c)
mpi_test(mpi.real_types 2 t_real_types)
add_test(NAME real_types.mpich COMMAND ${TESTS_DIR}/real_types.sh mpich 2 90 $<TARGET_FILE:t_real_types>)
add_test(NAME real_types.evict COMMAND ${TESTS_DIR}/real_types.sh mpich 2 90 $<TARGET_FILE:t_real_types>)
set_tests_properties(real_types.mpich real_types.evict PROPERTIES
    ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores TIMEOUT 300)
set_property(TEST real_types.evict APPEND PROPERTY ENVIRONMENT "MPCR_REAL_TYPES_MAX=4;REAL_TYPES_AGAIN=1")
add_executable(t_ckpt_real_types ckpt/ckpt_real_types.c)
target_link_libraries(t_ckpt_real_types PRIVATE PkgConfig::MPICH)
target_compile_options(t_ckpt_real_types PRIVATE -O2)
set_target_properties(t_ckpt_real_types PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_test(NAME ckpt.real_types COMMAND ${TESTS_DIR}/real_types.sh mpich 2 45
    $<TARGET_FILE:t_ckpt_real_types> 40 50)
set_tests_properties(ckpt.real_types PROPERTIES
    ENVIRONMENT "MPCR=${MPCR_EXE};REAL_TYPES_CKPT=exit-restart 2" RESOURCE_LOCK cores TIMEOUT 300)
if(TARGET mpcr-proxy-openmpi)
    add_test(NAME real_types.openmpi COMMAND ${TESTS_DIR}/real_types.sh openmpi 2 90 $<TARGET_FILE:t_real_types>)
    add_test(NAME ckpt.real_types_openmpi COMMAND ${TESTS_DIR}/real_types.sh openmpi 2 45
        $<TARGET_FILE:t_ckpt_real_types> 40 50)
    set_tests_properties(real_types.openmpi ckpt.real_types_openmpi PROPERTIES
        ENVIRONMENT "MPCR=${MPCR_EXE};REAL_TYPES_REFUSED=2" RESOURCE_LOCK cores TIMEOUT 300)
    set_property(TEST ckpt.real_types_openmpi APPEND PROPERTY ENVIRONMENT "REAL_TYPES_CKPT=exit-restart 2")
endif()
# MPICH's test/mpi/datatype programs with MPCR_CHECK_REAL_TYPES=1 on either proxy
# (scripts/check_real_types.sh: no difference, and no test failing that passes under plain
# mpcr). The suite is fetched and built the first time, as for conformance.guard.
add_test(NAME real_types.mpich_suite COMMAND ${PROJECT_SOURCE_DIR}/scripts/check_real_types.sh datatype)
set_tests_properties(real_types.mpich_suite PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores
    TIMEOUT 1800)
if(TARGET mpcr-proxy-openmpi)
    add_test(NAME real_types.mpich_suite_openmpi
        COMMAND ${PROJECT_SOURCE_DIR}/scripts/check_real_types.sh --mpi openmpi datatype)
    set_tests_properties(real_types.mpich_suite_openmpi PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}"
        RESOURCE_LOCK cores TIMEOUT 1800)
endif()
mpcr_label_family(datatype)
