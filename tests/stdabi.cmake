# Programs built for the MPI 5.0 standard ABI with mpcr's compiler wrapper
# (mpicc_abi: mpcr's mpi.h of that ABI, libmpi_abi.so.1; src/lib/abi,
# docs/abi-standard.md), run and checkpointed under mpcr. No MPI on Debian 12
# implements this ABI: the reference is the same source built with
# mpicc.mpich and run by mpiexec.mpich. Issue 38, point 7.
if(NOT TARGET mpcr_passive_abi)
    return()
endif()
set(abi_dir ${CMAKE_BINARY_DIR}/tests/stdabi)
set(mpicc_abi ${CMAKE_BINARY_DIR}/bin/mpicc_abi)
file(MAKE_DIRECTORY ${abi_dir})
# abi_program(NAME SOURCE): NAME built by mpicc_abi at -O2 (the ckpt programs'
# work is sized in ms at -O2), as a user would build it.
function(abi_program name source)
    add_custom_command(OUTPUT ${abi_dir}/${name}
        COMMAND ${mpicc_abi} -O2 -Wno-stringop-overread -o ${abi_dir}/${name} ${source}
        DEPENDS ${source} ${TESTS_DIR}/ckpt/ckpt.h ${mpicc_abi} mpcr_passive_abi
        COMMENT "Building ${name} with mpicc_abi")
    add_custom_target(abi_${name} ALL DEPENDS ${abi_dir}/${name})
endfunction()
abi_program(values ${TESTS_DIR}/stdabi/values.c)
abi_program(chapters ${TESTS_DIR}/ompiabi/chapters.c)
abi_program(ckpt_p2p_mixed ${TESTS_DIR}/ckpt/ckpt_p2p_mixed.c)
abi_program(ckpt_coll_nbc ${TESTS_DIR}/ckpt/ckpt_coll_nbc.c)
abi_program(ckpt_rma ${TESTS_DIR}/ckpt/ckpt_rma.c)
abi_program(ckpt_ring ${TESTS_DIR}/ckpt/ckpt_ring.c)
# C++ through mpicxx_abi
add_custom_command(OUTPUT ${abi_dir}/hello_cxx
    COMMAND ${CMAKE_BINARY_DIR}/bin/mpicxx_abi -O2 -o ${abi_dir}/hello_cxx ${TESTS_DIR}/stdabi/hello.cc
    DEPENDS ${TESTS_DIR}/stdabi/hello.cc ${mpicc_abi} mpcr_passive_abi
    COMMENT "Building hello_cxx with mpicxx_abi")
add_custom_target(abi_hello_cxx ALL DEPENDS ${abi_dir}/hello_cxx)
# the reference of chapters: its MPICH build (MPI 4.0's persistent collectives)
mpi_program(t_chapters_mpich ompiabi/chapters.c)
target_compile_options(t_chapters_mpich PRIVATE -O2 -Wno-deprecated-declarations
    -Wno-stringop-overread -Wno-stringop-overflow)

# Every function of the ABI exported, every one translated declared (no job).
add_test(NAME stdabi.exports COMMAND ${TESTS_DIR}/stdabi/exports.sh ${MPCR_PASSIVE_LIB_DIR}
    ${PROJECT_SOURCE_DIR}/src/lib/abi/functions.txt ${CMAKE_BINARY_DIR}/src/lib/abi/generated/abi_names.txt
    ${CMAKE_BINARY_DIR}/include/mpcr/abi/mpi.h ${PROJECT_SOURCE_DIR}/src/lib/abi/abi.slice)
# Every value the ABI numbers afresh, checked by the program against its mpi.h.
add_test(NAME stdabi.values COMMAND ${MPCR_EXE} run -n 2 ${abi_dir}/values)
set_tests_properties(stdabi.values PROPERTIES RESOURCE_LOCK cores TIMEOUT 120
    FAIL_REGULAR_EXPRESSION "FAIL|^mpcr:" PASS_REGULAR_EXPRESSION "values: 0 failed")
add_test(NAME stdabi.values_openmpi COMMAND ${MPCR_EXE} run --mpi openmpi -n 2 ${abi_dir}/values)
set_tests_properties(stdabi.values_openmpi PROPERTIES RESOURCE_LOCK cores TIMEOUT 120
    FAIL_REGULAR_EXPRESSION "FAIL|^mpcr:" PASS_REGULAR_EXPRESSION "values: 0 failed")
if(NOT TARGET mpcr-proxy-openmpi)
    set_tests_properties(stdabi.values_openmpi PROPERTIES DISABLED TRUE)
endif()
add_test(NAME stdabi.cxx COMMAND ${MPCR_EXE} run -n 3 ${abi_dir}/hello_cxx)
set_tests_properties(stdabi.cxx PROPERTIES RESOURCE_LOCK cores TIMEOUT 120
    PASS_REGULAR_EXPRESSION "C\\+\\+ under the standard ABI: 3 ranks, sum 3")
# Every chapter of tests/ompiabi/chapters.c: the same lines as the MPICH build's native run.
add_test(NAME stdabi.chapters COMMAND ${TESTS_DIR}/compare.sh 2 ${abi_dir}/chapters)
set_tests_properties(stdabi.chapters PROPERTIES RESOURCE_LOCK cores TIMEOUT 300 ENVIRONMENT
    "MPCR=${MPCR_EXE};NATIVE_PROGRAM=$<TARGET_FILE:t_chapters_mpich>")

# Checkpoints (tests/ckpt/ckpt.sh) at random instants, against the MPICH builds' native
# runs: point-to-point with wildcards and every mode, restarted on Open MPI's proxy;
# collectives, neighbourhood ones on topologies included, continued; one-sided epochs
# and locks, restarted.
function(abi_ckpt_test name native require)
    add_test(NAME ckpt.${name} COMMAND ${TESTS_DIR}/ckpt/ckpt.sh ${ARGN})
    set_tests_properties(ckpt.${name} PROPERTIES RESOURCE_LOCK cores TIMEOUT 300 ENVIRONMENT
        "MPCR=${MPCR_EXE};CKPT_REQUIRE=${require};NATIVE_PROGRAM=$<TARGET_FILE:${native}>")
endfunction()
abi_ckpt_test(stdabi_p2p_mixed_restart t_ckpt_p2p_mixed reposted exit-restart 2 2
    ${abi_dir}/ckpt_p2p_mixed 96 10)
if(TARGET mpcr-proxy-openmpi)
    set_property(TEST ckpt.stdabi_p2p_mixed_restart APPEND PROPERTY ENVIRONMENT
        "CKPT_RESTART_ARGS=--mpi openmpi")
endif()
abi_ckpt_test(stdabi_coll_nbc_continue t_ckpt_coll_nbc reposted continue 2 3
    ${abi_dir}/ckpt_coll_nbc 250 3 1 2)
# (the reference runs the persistent Allreduce as MPI_Iallreduce: tests/collective.cmake)
set_property(TEST ckpt.stdabi_coll_nbc_continue APPEND PROPERTY ENVIRONMENT "CKPT_NATIVE_ARGS=250 3 2 2")
abi_ckpt_test(stdabi_rma_restart t_ckpt_rma "" exit-restart 2 2 ${abi_dir}/ckpt_rma 120 15)
# Started by Slurm (srun --mpi=pmi2 mpcr exec), restarted by a second batch job (tests/batch).
add_test(NAME batch.slurm_stdabi_built COMMAND setsid --wait ${TESTS_DIR}/batch/slurm_restart.sh 2
    ${abi_dir}/ckpt_ring 2000 1)
set_tests_properties(batch.slurm_stdabi_built PROPERTIES RESOURCE_LOCK cores TIMEOUT 300
    ENVIRONMENT "MPCR=${MPCR_EXE};NATIVE_PROGRAM=$<TARGET_FILE:t_ckpt_ring>")
mpcr_label_family(stdabi)
