# Fortran programs (docs/fortran.md): built with Debian's mpif90.mpich
# (gfortran, MPICH's libmpichfort.so.12 over libmpich.so.12), run natively
# and under mpcr, outputs compared as for the C tests. The project does not
# enable Fortran as a language: the compiler wrapper is the only dependency.
# gfortran warns where one MPI routine gets buffers of different types
# (MPICH's `use mpi` declares no interfaces for choice buffers): expected.
find_program(MPCR_MPIF90 mpif90.mpich)
if(NOT MPCR_MPIF90)
    message(STATUS "mpif90.mpich not found: the Fortran tests are left out (apt install gfortran libmpich-dev)")
    return()
endif()

# fortran_program(NAME SOURCES...): tests/NAME, built by the target NAME
# (C sources may be among them: the wrapper compiles them too).
function(fortran_program name)
    list(TRANSFORM ARGN PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/ OUTPUT_VARIABLE sources)
    set(exe ${CMAKE_BINARY_DIR}/tests/${name})
    set(moddir ${CMAKE_CURRENT_BINARY_DIR}/fortran_mod/${name})
    add_custom_command(OUTPUT ${exe}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${moddir}
        COMMAND ${MPCR_MPIF90} -O1 -g -J ${moddir} -o ${exe} ${sources}
        DEPENDS ${sources}
        COMMENT "Building Fortran test ${name} with mpif90.mpich")
    add_custom_target(${name} ALL DEPENDS ${exe})
endfunction()

# fortran_test(NAME NPROCS PROGRAM): mpi_test for a fortran_program.
function(fortran_test name nprocs prog)
    add_test(NAME ${name} COMMAND ${TESTS_DIR}/compare.sh ${nprocs} ${CMAKE_BINARY_DIR}/tests/${prog})
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}" RUN_SERIAL TRUE)
endfunction()

# Attributes from Fortran (fortran_attr.c's MPII_* entry points), a ring of
# point-to-point and MPI_ALLREDUCE on MPI_INTEGER/MPI_DOUBLE_PRECISION;
# attributes crossing between C and Fortran through attr_c.c.
fortran_program(tf_attr fortran/attr.f90 fortran/attr_c.c)
fortran_test(fortran.attr 3 tf_attr)

# Generalized requests from Fortran are refused by name (fortran_attr.c).
fortran_program(tf_grequest fortran/grequest.f90)
add_test(NAME fortran.grequest_unsupported COMMAND ${MPCR_EXE} run -n 1 ${CMAKE_BINARY_DIR}/tests/tf_grequest)
set_tests_properties(fortran.grequest_unsupported PROPERTIES RUN_SERIAL TRUE
    PASS_REGULAR_EXPRESSION "mpcr: MPI_Grequest_start from Fortran is not supported")
