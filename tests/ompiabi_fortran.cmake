# Fortran programs built with Open MPI (mpif90.openmpi, mpif77.openmpi) on mpcr's
# libmpi_mpifh.so.40 (src/lib/ompi/gen_fortran.py, docs/abi-openmpi.md "Fortran"): the
# Fortran tests of tests/fortran.cmake, the same output as mpirun.openmpi's, and the
# Fortran ckpt programs checkpointed and restarted under either MPI. Included by
# ompiabi.cmake (its programs' directory, its label).
find_program(MPCR_MPIF90_OPENMPI mpif90.openmpi)
find_program(MPCR_MPIF77_OPENMPI mpif77.openmpi)
if(NOT TARGET mpcr_passive_ompi_fortran OR NOT MPCR_MPIF90_OPENMPI OR NOT MPCR_MPIF77_OPENMPI)
    return()
endif()

# ompi_fortran_program(NAME FLAGS SOURCES...): NAME in ompi_dir, built as a user of Open MPI
# would (mpif77.openmpi when every source is fixed form). Open MPI's mpif.h declares no
# interfaces: gfortran 12 refuses one routine called with buffers of different types
# unless told (-fallow-argument-mismatch), as it refuses the user's program.
function(ompi_fortran_program name flags)
    list(TRANSFORM ARGN PREPEND ${TESTS_DIR}/ OUTPUT_VARIABLE sources)
    set(compiler ${MPCR_MPIF77_OPENMPI})
    foreach(source IN LISTS sources)
        if(NOT source MATCHES "\\.f$")
            set(compiler ${MPCR_MPIF90_OPENMPI})
        endif()
    endforeach()
    set(moddir ${CMAKE_CURRENT_BINARY_DIR}/fortran_mod/ompi_${name})
    add_custom_command(OUTPUT ${ompi_dir}/${name}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${moddir}
        COMMAND ${compiler} ${flags} -g -J ${moddir} -o ${ompi_dir}/${name} ${sources}
        DEPENDS ${sources}
        COMMENT "Building ${name} with ${compiler}")
    add_custom_target(ompi_${name} ALL DEPENDS ${ompi_dir}/${name})
endfunction()

# What differs by design between mpirun.openmpi and mpcr for these programs: the error
# strings are the MPICH library's, MPI_TAG_UB is its (268435455), and a generalized request
# freed before it is complete has its free function called at MPI_REQUEST_FREE, as MPICH
# does (Open MPI calls it at MPI_GREQUEST_COMPLETE). compare.sh leaves such lines out but
# counts them.
set(fortran_differ "error string|TAG_UB|freed before complete")
set(native "NATIVE_MPIEXEC=mpirun.openmpi --allow-run-as-root --oversubscribe")
foreach(t f77:tf_f77:3:fortran/f77.f f08:tf_f08:3:fortran/f08.f90 attr:tf_attr:3:fortran/attr.f90
        grequest:tf_grequest:1:fortran/grequest.f90 io:tf_io:3:fortran/io.f90
        handles:tf_handles:3:fortran/handles.f90 tour:tf_tour:3:ompiabi/fortran_tour.f90)
    string(REPLACE ":" ";" t ${t})
    list(GET t 0 name)
    list(GET t 1 prog)
    list(GET t 2 nprocs)
    list(GET t 3 source)
    set(sources ${source})
    if(name STREQUAL attr OR name STREQUAL handles) # and their C parts
        list(APPEND sources fortran/${name}_c.c)
    endif()
    set(flags -O1)
    if(name STREQUAL f77)
        list(APPEND flags -fallow-argument-mismatch)
    endif()
    ompi_fortran_program(${prog} "${flags}" ${sources})
    foreach(mpi mpich openmpi)
        add_test(NAME ompiabi.fortran_${name}_${mpi} COMMAND ${TESTS_DIR}/compare.sh ${nprocs}
            ${ompi_dir}/${prog})
        set_tests_properties(ompiabi.fortran_${name}_${mpi} PROPERTIES RESOURCE_LOCK cores
            TIMEOUT 300 ENVIRONMENT
            "MPCR=${MPCR_EXE};${native};MPCR_RUN_ARGS=--mpi ${mpi};COMPARE_IGNORE=${fortran_differ}")
    endforeach()
endforeach()

# The Fortran ckpt programs (tests/fortran.cmake's), cut at random instants, against
# mpirun.openmpi's uninterrupted run of the same build (the MPICH build's checksums differ:
# the programs hash values of the ABI). The ring of point-to-point and collectives with a
# generalized request (MPI_WAITANY's index counts from 1), --exit on MPICH's proxy and
# restarted on Open MPI's; the conjugate-gradient solver run on Open MPI's proxy and
# continued; the hybrid OpenMP stencil cut and restarted on MPICH's.
ompi_fortran_program(ompi_tf_ckpt_p2p_coll -O2 ckpt/ckpt_common.f90 ckpt/ckpt_f_p2p_coll.f90)
ompi_fortran_program(ompi_tf_ckpt_cg -O2 ckpt/ckpt_common.f90 ckpt/ckpt_cg.f90)
ompi_fortran_program(ompi_tf_ckpt_stencil_omp "-O2;-fopenmp" ckpt/ckpt_common.f90
    ckpt/ckpt_stencil_omp.f90)
ompi_ckpt_test(ompi_fortran_p2p_coll_restart_openmpi drained exit-restart 3 2
    ${ompi_dir}/ompi_tf_ckpt_p2p_coll 250 6)
set_property(TEST ckpt.ompi_fortran_p2p_coll_restart_openmpi APPEND PROPERTY ENVIRONMENT
    "CKPT_RESTART_ARGS=--mpi openmpi")
ompi_ckpt_test(ompi_fortran_cg_continue_openmpi abandoned continue 3 2
    ${ompi_dir}/ompi_tf_ckpt_cg 800 2)
set_property(TEST ckpt.ompi_fortran_cg_continue_openmpi APPEND PROPERTY ENVIRONMENT
    "CKPT_RUN_ARGS=--mpi openmpi")
ompi_ckpt_test(ompi_fortran_stencil_omp_restart "" exit-restart 3 2
    ${ompi_dir}/ompi_tf_ckpt_stencil_omp 1500 2)
set_property(TEST ckpt.ompi_fortran_stencil_omp_restart APPEND PROPERTY ENVIRONMENT
    "OMP_NUM_THREADS=4" "OMP_WAIT_POLICY=passive")
