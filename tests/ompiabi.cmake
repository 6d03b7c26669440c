# Programs built with Open MPI (mpicc.openmpi, Debian's mpi4py) on mpcr's
# libmpi.so.40 (src/lib/ompi, docs/abi-openmpi.md): the same output as
# mpirun.openmpi's, on either proxy, checkpointed and restarted under either
# MPI. Where Open MPI's compiler and headers are installed.
if(NOT TARGET mpcr_passive_ompi OR NOT MPCR_MPICC_OPENMPI)
    return()
endif()
set(ompi_dir ${CMAKE_BINARY_DIR}/tests/ompiabi)
file(MAKE_DIRECTORY ${ompi_dir})
# ompi_program(NAME SOURCE): NAME built by mpicc.openmpi (at -O2: the ckpt
# programs' work is sized in ms), as a program of the distribution is.
# The MPI-1 functions MPI 3.0 removed are declared (Open MPI 4.1 exports them).
function(ompi_program name source)
    add_custom_command(OUTPUT ${ompi_dir}/${name}
        COMMAND ${MPCR_MPICC_OPENMPI} -O2 -DOMPI_OMIT_MPI1_COMPAT_DECLS=0 -o ${ompi_dir}/${name} ${source}
        DEPENDS ${source} ${TESTS_DIR}/ckpt/ckpt.h
        COMMENT "Building ${name} with mpicc.openmpi")
    add_custom_target(ompi_${name} ALL DEPENDS ${ompi_dir}/${name})
endfunction()
ompi_program(tour ${TESTS_DIR}/ompiabi/tour.c)
ompi_program(chapters ${TESTS_DIR}/ompiabi/chapters.c)
ompi_program(ckpt_coll_nbc ${TESTS_DIR}/ckpt/ckpt_coll_nbc.c)
ompi_program(ckpt_p2p_halo ${TESTS_DIR}/ckpt/ckpt_p2p_halo.c)
ompi_program(unsupported ${TESTS_DIR}/ompiabi/unsupported.c)
ompi_program(ckpt_p2p_mixed ${TESTS_DIR}/ckpt/ckpt_p2p_mixed.c)
ompi_program(ckpt_rma ${TESTS_DIR}/ckpt/ckpt_rma.c)
ompi_program(ckpt_rma_dynamic ${TESTS_DIR}/ckpt/ckpt_rma_dynamic.c)
ompi_program(ckpt_ring ${TESTS_DIR}/ckpt/ckpt_ring.c)

set(ompiabi_sh ${TESTS_DIR}/ompiabi/ompiabi.sh)
add_test(NAME ompiabi.tour COMMAND ${ompiabi_sh} same ${ompi_dir}/tour)
add_test(NAME ompiabi.tour_openmpi COMMAND ${ompiabi_sh} same ${ompi_dir}/tour)
add_test(NAME ompiabi.chapters COMMAND ${ompiabi_sh} same ${ompi_dir}/chapters)
add_test(NAME ompiabi.chapters_openmpi COMMAND ${ompiabi_sh} same ${ompi_dir}/chapters)
add_test(NAME ompiabi.unsupported COMMAND ${ompiabi_sh} unsupported ${ompi_dir}/unsupported)
set(ompi_jobs ompiabi.tour ompiabi.tour_openmpi ompiabi.chapters ompiabi.chapters_openmpi
    ompiabi.unsupported)
if(no_mpi4py EQUAL 0) # Debian's python3-mpi4py (scripts/setup.sh)
    add_test(NAME ompiabi.mpi4py COMMAND ${ompiabi_sh} same /usr/bin/python3
        ${TESTS_DIR}/ompiabi/mpi4py_tour.py)
    add_test(NAME ompiabi.mpi4py_openmpi COMMAND ${ompiabi_sh} same /usr/bin/python3
        ${TESTS_DIR}/ompiabi/mpi4py_tour.py)
    list(APPEND ompi_jobs ompiabi.mpi4py ompiabi.mpi4py_openmpi)
endif()
set_tests_properties(${ompi_jobs} PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores
    TIMEOUT 120)
foreach(t ompiabi.tour_openmpi ompiabi.chapters_openmpi ompiabi.mpi4py_openmpi)
    if(TEST ${t})
        set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "MPCR_RUN_ARGS=--mpi openmpi")
    endif()
endforeach()
# One-sided (tests/rma.cmake's programs built with mpicc.openmpi): the same output as the
# MPICH build's native run (mpiexec.mpich; native_run.sh's NATIVE_PROGRAM), on either proxy.
foreach(p rma rma_dynamic)
    foreach(mpi mpich openmpi)
        set(t ompiabi.${p})
        if(mpi STREQUAL openmpi)
            set(t ompiabi.${p}_openmpi)
        endif()
        add_test(NAME ${t} COMMAND ${TESTS_DIR}/compare.sh 2 ${ompi_dir}/ckpt_${p} 40 1)
        set_tests_properties(${t} PROPERTIES RESOURCE_LOCK cores TIMEOUT 300 ENVIRONMENT
            "MPCR=${MPCR_EXE};NATIVE_PROGRAM=$<TARGET_FILE:t_ckpt_${p}>;MPCR_RUN_ARGS=--mpi ${mpi}")
    endforeach()
endforeach()
# no job: the library's symbols against Open MPI's
add_test(NAME ompiabi.objects COMMAND ${ompiabi_sh} objects ${MPCR_PASSIVE_LIB_DIR})

# Checkpoints (tests/ckpt/ckpt.sh) of Open MPI builds of two ckpt programs, against
# mpirun.openmpi's native run: run on MPICH's proxy and restarted on Open MPI's, and
# the other way.
# With ompi_native set (to an MPICH-built program of the same source), the reference is that
# program's native run by mpiexec.mpich instead.
function(ompi_ckpt_test name require)
    set(native "NATIVE_MPIEXEC=mpirun.openmpi --allow-run-as-root --oversubscribe")
    if(ompi_native)
        set(native "NATIVE_PROGRAM=${ompi_native}")
    endif()
    add_test(NAME ckpt.${name} COMMAND ${TESTS_DIR}/ckpt/ckpt.sh ${ARGN})
    set_tests_properties(ckpt.${name} PROPERTIES RESOURCE_LOCK cores TIMEOUT 300 ENVIRONMENT
        "MPCR=${MPCR_EXE};CKPT_REQUIRE=${require};${native}")
endfunction()
ompi_ckpt_test(ompi_p2p_mixed_restart_openmpi reposted exit-restart 2 2
    ${ompi_dir}/ckpt_p2p_mixed 96 10)
set_property(TEST ckpt.ompi_p2p_mixed_restart_openmpi APPEND PROPERTY ENVIRONMENT
    "CKPT_RESTART_ARGS=--mpi openmpi")
# Run on Open MPI's proxy, checkpointed twice as it goes on, restarted on MPICH's (the
# native run is the one above's, kept: native_run.sh). An Open MPI build of ckpt_comms was
# tried: its native run (mpirun.openmpi, 2 ranks oversubscribed on a loaded 2-core VM)
# took 64-92 s.
ompi_ckpt_test(ompi_p2p_mixed_continue_openmpi reposted continue 2 2 ${ompi_dir}/ckpt_p2p_mixed 96 10)
set_property(TEST ckpt.ompi_p2p_mixed_continue_openmpi APPEND PROPERTY ENVIRONMENT
    "CKPT_RUN_ARGS=--mpi openmpi")
# Topologies, collectives and datatypes: ckpt_coll_nbc with its neighbourhood collectives
# on a Cartesian ring and a distributed graph (H 2; an MPI 3.1 build runs P 2), 3 ranks
# (about 4.6 s natively under load), cut and restarted on MPICH's proxy, and continued on
# Open MPI's; the halo exchange's columns as an MPI_Type_vector on an MPI_Dims_create grid.
ompi_ckpt_test(ompi_coll_nbc_hood_restart reposted exit-restart 2 3
    ${ompi_dir}/ckpt_coll_nbc 250 3 2 2)
ompi_ckpt_test(ompi_coll_nbc_hood_continue_openmpi reposted continue 2 3
    ${ompi_dir}/ckpt_coll_nbc 250 3 2 2)
set_property(TEST ckpt.ompi_coll_nbc_hood_continue_openmpi APPEND PROPERTY ENVIRONMENT
    "CKPT_RUN_ARGS=--mpi openmpi")
# Open MPI's MPIX_Allreduce_init (mpi-ext.h) by that name, a persistent collective started at
# every iteration, on MPICH's proxy and restarted on Open MPI's; the reference is the MPICH
# build's native run with MPI_Iallreduce instead (P 2: MPICH 4.0.2 natively hangs in a
# persistent collective started again, tests/collective.cmake).
set(ompi_native $<TARGET_FILE:t_ckpt_coll_nbc>)
ompi_ckpt_test(ompi_coll_nbc_mpix_restart_openmpi reposted exit-restart 2 3
    ${ompi_dir}/ckpt_coll_nbc 250 3 1 2)
unset(ompi_native)
set_property(TEST ckpt.ompi_coll_nbc_mpix_restart_openmpi APPEND PROPERTY ENVIRONMENT
    "CKPT_RESTART_ARGS=--mpi openmpi" "CKPT_NATIVE_ARGS=250 3 2 2")
ompi_ckpt_test(ompi_p2p_halo_restart_openmpi reposted exit-restart 2 4
    ${ompi_dir}/ckpt_p2p_halo isend 150 48 8)
set_property(TEST ckpt.ompi_p2p_halo_restart_openmpi APPEND PROPERTY ENVIRONMENT
    "CKPT_RESTART_ARGS=--mpi openmpi")
# One-sided: tests/rma.cmake's ckpt.rma and ckpt.rma_dynamic with the Open MPI builds, against
# the MPICH builds' native runs: checkpoints at random instants (inside fence epochs, while a
# rank waits for a lock); the fence/lock program run on MPICH's proxy and restarted on Open
# MPI's, and run on Open MPI's and continued; the dynamic window on MPICH's proxy (its restart
# on Open MPI's proxy is open: tests/rma.cmake).
set(ompi_native $<TARGET_FILE:t_ckpt_rma>)
ompi_ckpt_test(ompi_rma_restart_openmpi "" exit-restart 2 2 ${ompi_dir}/ckpt_rma 120 15)
set_property(TEST ckpt.ompi_rma_restart_openmpi APPEND PROPERTY ENVIRONMENT
    "CKPT_RESTART_ARGS=--mpi openmpi")
ompi_ckpt_test(ompi_rma_continue_openmpi "" continue 2 2 ${ompi_dir}/ckpt_rma 120 15)
set_property(TEST ckpt.ompi_rma_continue_openmpi APPEND PROPERTY ENVIRONMENT
    "CKPT_RUN_ARGS=--mpi openmpi")
set(ompi_native $<TARGET_FILE:t_ckpt_rma_dynamic>)
ompi_ckpt_test(ompi_rma_dynamic_restart "" exit-restart 2 2 ${ompi_dir}/ckpt_rma_dynamic 120 15)
unset(ompi_native)
# The distribution's applications (Open MPI builds; scripts/setup.sh installs them), each
# checkpointed while it works and restarted across MPIs, against mpirun.openmpi's
# uninterrupted run: ompi_app_test(NAME PROGRAM INPUT) runs tests/ompiabi/NAME.sh INPUT as
# ckpt.NAME_openmpi where PROGRAM is installed.
function(ompi_app_test name program input)
    find_program(MPCR_APP_${name} ${program})
    if(MPCR_APP_${name})
        add_test(NAME ckpt.${name}_openmpi COMMAND ${TESTS_DIR}/ompiabi/${name}.sh ${TESTS_DIR}/ompiabi/${input})
        set_tests_properties(ckpt.${name}_openmpi PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}"
            RESOURCE_LOCK cores TIMEOUT 600 SKIP_RETURN_CODE 77) # 77: the application cannot run here natively
    endif()
endfunction()
# LAMMPS (lmp): an LJ melt, its thermo lines bit for bit.
ompi_app_test(lammps lmp melt.lmp)
# HPC Challenge: every section; its results but timings and rates, and its output's outline.
ompi_app_test(hpcc hpcc hpccinf.txt)
# GROMACS (gmx_mpi): MD of 424 waters on a 2 x 1 x 1 domain decomposition, every energy bit for bit.
ompi_app_test(gromacs gmx_mpi water.mdp)
# PETSc: its KSP tutorial ex2 (CG on a 2-D Laplacian) built with mpicc.openmpi, every residual.
set(petsc_ex2 /usr/share/petsc/3.18/share/petsc/examples/src/ksp/ksp/tutorials/ex2.c)
pkg_check_modules(PETSC petsc)
if(PETSC_FOUND AND EXISTS ${petsc_ex2})
    add_test(NAME ckpt.petsc_openmpi COMMAND ${TESTS_DIR}/ompiabi/petsc.sh ${petsc_ex2})
    set_tests_properties(ckpt.petsc_openmpi PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}"
        RESOURCE_LOCK cores TIMEOUT 600)
endif()
# Issue 38, point 3: an Open MPI-built program started by mpirun.openmpi with `mpcr exec`
# (on Open MPI's proxy), checkpointed with --exit and restarted by mpiexec.mpich (on
# MPICH's), and the other way, against the MPICH build's native run (tests/batch).
foreach(way openmpi_to_mpiexec mpiexec_to_openmpi)
    add_test(NAME batch.ompi_built_${way} COMMAND ${TESTS_DIR}/batch/exec_restart.sh 2
        ${ompi_dir}/ckpt_ring 2000 1)
    set_tests_properties(batch.ompi_built_${way} PROPERTIES RESOURCE_LOCK cores TIMEOUT 180
        ENVIRONMENT "MPCR=${MPCR_EXE};NATIVE_PROGRAM=$<TARGET_FILE:t_ckpt_ring>")
endforeach()
set(ompirun "mpirun.openmpi --allow-run-as-root --oversubscribe -n 2")
set_property(TEST batch.ompi_built_openmpi_to_mpiexec APPEND PROPERTY ENVIRONMENT
    "LAUNCH=${ompirun}" "LAUNCH2=mpiexec.mpich -n 2")
set_property(TEST batch.ompi_built_mpiexec_to_openmpi APPEND PROPERTY ENVIRONMENT
    "LAUNCH=mpiexec.mpich -n 2" "LAUNCH2=${ompirun}")
# ...and started by Slurm (srun --mpi=pmi2 mpcr exec), restarted by a second batch job.
add_test(NAME batch.slurm_ompi_built COMMAND setsid --wait ${TESTS_DIR}/batch/slurm_restart.sh 2
    ${ompi_dir}/ckpt_ring 2000 1)
set_tests_properties(batch.slurm_ompi_built PROPERTIES RESOURCE_LOCK cores TIMEOUT 300
    ENVIRONMENT "MPCR=${MPCR_EXE};NATIVE_PROGRAM=$<TARGET_FILE:t_ckpt_ring>")
# Fortran programs built with Open MPI.
include(${TESTS_DIR}/ompiabi_fortran.cmake)
mpcr_label_family(ompiabi)

# The profile's test (cli.cmake) also runs its program's Open MPI build.
ompi_program(profile_counts ${TESTS_DIR}/profile/profile_counts.c)
set_property(TEST cli.profile APPEND PROPERTY ENVIRONMENT PROFILE_OMPI=${ompi_dir}/profile_counts)
