# Tests of point-to-point (included by tests/CMakeLists.txt; mpi_test, mpi_program are defined there).

# The chapter beyond Send/Recv/Isend/Irecv, compared with native MPICH.
mpi_program(t_p2p_more mpi/p2p_more.c)
mpi_test(mpi.p2p_more 2 t_p2p_more)

# Checkpoints at random instants (tests/ckpt/ckpt.sh) with every kind of request pending at the
# cut: Irecv/Isend, persistent active and inactive, a buffered send, a receive freed while active,
# a message matched by MPI_Mprobe and not received yet. Compared with an uninterrupted native run.
function(p2p_ckpt_program name)
    mpi_program(t_ckpt_${name} ckpt/ckpt_${name}.c)
    target_compile_options(t_ckpt_${name} PRIVATE -O2) # computation sized in ms at -O2
endfunction()
function(p2p_ckpt_test name timeout require)
    add_test(NAME ckpt.${name} COMMAND ${TESTS_DIR}/ckpt/ckpt.sh ${ARGN})
    set_tests_properties(ckpt.${name} PROPERTIES RUN_SERIAL TRUE TIMEOUT ${timeout}
        ENVIRONMENT "MPCR=${MPCR_EXE};CKPT_REQUIRE=${require}")
endfunction()
p2p_ckpt_program(p2p_mixed)
p2p_ckpt_test(p2p_mixed 300 reposted exit-restart 3 2 $<TARGET_FILE:t_ckpt_p2p_mixed> 48 15)
p2p_ckpt_test(p2p_mixed3_continue 300 reposted continue 3 3 $<TARGET_FILE:t_ckpt_p2p_mixed> 48 15)
# A 2-D halo exchange (Jacobi on integers: exact), persistent requests and Isend/Irecv.
p2p_ckpt_program(p2p_halo)
p2p_ckpt_test(p2p_halo4_persistent 400 reposted exit-restart 4 4 $<TARGET_FILE:t_ckpt_p2p_halo> persistent 150 48 8)
p2p_ckpt_test(p2p_halo_isend_continue 300 reposted continue 3 2 $<TARGET_FILE:t_ckpt_p2p_halo> isend 400 48 10)
# Under Open MPI's proxy (the same MPICH-built programs): the run, and a restart of an MPICH job.
if(TARGET mpcr-proxy-openmpi)
    mpi_test(openmpi.p2p_more 2 t_p2p_more)
    set_property(TEST openmpi.p2p_more APPEND PROPERTY ENVIRONMENT "MPCR_RUN_ARGS=--mpi openmpi")
    p2p_ckpt_test(p2p_mixed_restart_openmpi 300 reposted exit-restart 2 2
        $<TARGET_FILE:t_ckpt_p2p_mixed> 48 15)
    set_property(TEST ckpt.p2p_mixed_restart_openmpi APPEND PROPERTY ENVIRONMENT
        "CKPT_RESTART_ARGS=--mpi openmpi")
endif()
