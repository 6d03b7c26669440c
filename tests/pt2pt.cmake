# Tests of point-to-point (included by tests/CMakeLists.txt; mpi_test, mpi_program are defined there).

# The chapter beyond Send/Recv/Isend/Irecv, compared with native MPICH.
mpi_program(t_p2p_more mpi/p2p_more.c)
mpi_test(mpi.p2p_more 2 t_p2p_more)

# MPI_Startall over 100 persistent requests of every kind (mpcr posts the sends and receives in
# batches of up to 64, one call each: src/lib/pt2pt/persistent.c); mpcr only (MPICH 4.0.2 starts a request
# named twice): a request named twice and an active one refused before anything starts.
mpi_program(t_startall_batch mpi/startall_batch.c)
mpi_test(mpi.startall_batch 2 t_startall_batch)
add_test(NAME mpi.startall_errors COMMAND ${MPCR_EXE} run -n 2 $<TARGET_FILE:t_startall_batch> errors)
set_tests_properties(mpi.startall_errors PROPERTIES RESOURCE_LOCK cores
    PASS_REGULAR_EXPRESSION "rank 0: startall errors: PASS" FAIL_REGULAR_EXPRESSION "FAIL")

# Posts queued by the library (src/lib/runtime/post_queue.c) meet every other kind of call: order with
# blocking, buffered, synchronous and ready sends, more posts than one IBATCH, a queued send freed,
# a queued receive cancelled, Isendrecv, Iprobe, MPI_Start, Test loops; compared with native MPICH.
mpi_program(t_post_queue mpi/post_queue.c)
mpi_test(mpi.post_queue 2 t_post_queue)

# Polling loops that mix questions which never match with the one that will (MPI_Iprobe and
# MPI_Improbe; mpcr answers a repeated negative poll without its proxy for a while:
# src/lib/runtime/poll_pace.c), and a message to itself polled for right after a negative answer; with
# the pace at its longest (50 us) too; under MPI_THREAD_MULTIPLE, a thread polling while another of
# its rank makes calls. Compared with native MPICH.
mpi_program(t_poll_pace mpi/poll_pace.c)
target_link_libraries(t_poll_pace PRIVATE pthread)
mpi_test(mpi.poll_pace 2 t_poll_pace)
mpi_test(mpi.poll_pace_longest 2 t_poll_pace)
set_property(TEST mpi.poll_pace_longest APPEND PROPERTY ENVIRONMENT "MPCR_POLL_PACE_NS=50000")
mpi_test(mpi.poll_pace_threads 2 t_poll_pace threads)

# Large messages through shared buffers (src/lib/runtime/shared_buffers.c): offsets and lengths inside one
# buffer, short receives, memory freed, unmapped and replaced behind MPI's back, fork, synchronous
# and strided sends; against native (sharing asked for: MPCR_SHARE_MIN). The same with the threshold
# lowered to three pages.
mpi_program(t_shared_buffers mpi/shared_buffers.c)
mpi_test(mpi.shared_buffers 2 t_shared_buffers)
set_property(TEST mpi.shared_buffers APPEND PROPERTY ENVIRONMENT "MPCR_SHARE_MIN=262144")
mpi_test(mpi.shared_buffers_small 2 t_shared_buffers)
set_property(TEST mpi.shared_buffers_small APPEND PROPERTY ENVIRONMENT "MPCR_SHARE_MIN=12288")

# A send's status after completion: only the cancelled bit is set, the rest keeps what the program
# had there, as with MPICH (its f77 irsendf completes a send into a receive's status).
mpi_program(t_send_status mpi/send_status.c)
mpi_test(mpi.send_status 2 t_send_status)
# Requests freed while active complete before the job ends: MPI_Finalize waits for them.
mpi_program(t_free_finalize mpi/free_finalize.c)
mpi_test(mpi.request_free_finalize 2 t_free_finalize)
# A message above 2 GiB with a count above 2^31 through the `_c` forms (about 9 GiB of memory in all:
# each rank's buffer and staging area, natively and under mpcr one after the other).
mpi_program(t_big_count mpi/big_count.c)
mpi_test(mpi.message_above_2GiB 2 t_big_count)
# MPI_Alloc_mem and MPI_Free_mem (MPI 4.0 9.2).
mpi_program(t_alloc_mem mpi/alloc_mem.c)
mpi_test(mpi.alloc_mem 2 t_alloc_mem)
# mpcr only (the program checks itself): errors of MPI_Start(all), MPI_Mrecv and MPI_Imrecv go to
# the request's or message's communicator, as MPI says (MPICH 4.0.2 applies MPI_COMM_WORLD's
# handler); an error of MPI_Isendrecv's send half, injected (MPCR_FAULT=send-error), is the
# request's error.
mpi_program(t_request_errors mpi/request_errors.c)
add_test(NAME mpi.request_errors_handler
    COMMAND ${MPCR_EXE} run -n 2 $<TARGET_FILE:t_request_errors> handler)
add_test(NAME mpi.isendrecv_send_error
    COMMAND ${MPCR_EXE} run -n 2 $<TARGET_FILE:t_request_errors> send-error)
set_tests_properties(mpi.request_errors_handler mpi.isendrecv_send_error PROPERTIES RESOURCE_LOCK cores
    FAIL_REGULAR_EXPRESSION "FAILED|not supported")
set_property(TEST mpi.isendrecv_send_error APPEND PROPERTY ENVIRONMENT "MPCR_FAULT=send-error")

# mpcr only (natively MPICH moves a large message only inside MPI calls): a 16 MiB MPI_Isend, a
# 16 MiB MPI_Ibcast and an MPI_Iallreduce complete at the other ranks while one rank computes
# without MPI calls (its proxy drives the requests posted: src/proxy/main.c, wait_call; at 3 ranks
# the library's progress helper posts the later rounds: src/lib/runtime/progress.c); fails after 60 s
# rather than hanging.
mpi_program(t_progress_computing mpi/progress_computing.c)
# (_multiple: MPI_THREAD_MULTIPLE, and an MPI_Iallreduce with a user op, which the helper runs
# only under MULTIPLE)
function(progress_test name n)
    add_test(NAME ${name} COMMAND ${MPCR_EXE} run -n ${n} $<TARGET_FILE:t_progress_computing>
        ${CMAKE_CURRENT_BINARY_DIR}/${name}.flag ${ARGN})
    set_tests_properties(${name} PROPERTIES RESOURCE_LOCK cores TIMEOUT 180
        PASS_REGULAR_EXPRESSION "progress while computing: PASS")
endfunction()
progress_test(mpi.progress_computing 2)
progress_test(mpi.progress_computing3 3)
progress_test(mpi.progress_computing3_multiple 3 multiple)

# Checkpoints at random instants (tests/ckpt/ckpt.sh) with every kind of request pending at the
# cut: Irecv/Isend, persistent active and inactive, a buffered send, a receive freed while active,
# a message matched by MPI_Mprobe and not received yet. Compared with an uninterrupted native run.
function(p2p_ckpt_program name)
    mpi_program(t_ckpt_${name} ckpt/ckpt_${name}.c)
    target_compile_options(t_ckpt_${name} PRIVATE -O2) # computation sized in ms at -O2
endfunction()
function(p2p_ckpt_test name timeout require)
    add_test(NAME ckpt.${name} COMMAND ${TESTS_DIR}/ckpt/ckpt.sh ${ARGN})
    set_tests_properties(ckpt.${name} PROPERTIES RESOURCE_LOCK cores TIMEOUT ${timeout}
        ENVIRONMENT "MPCR=${MPCR_EXE};CKPT_REQUIRE=${require}")
endfunction()
p2p_ckpt_program(p2p_mixed)
p2p_ckpt_test(p2p_mixed 300 reposted exit-restart 3 2 $<TARGET_FILE:t_ckpt_p2p_mixed> 48 15)
p2p_ckpt_test(p2p_mixed3_continue 300 reposted continue 3 3 $<TARGET_FILE:t_ckpt_p2p_mixed> 30 15)
# A 2-D halo exchange (Jacobi on integers: exact), persistent requests and Isend/Irecv.
p2p_ckpt_program(p2p_halo)
p2p_ckpt_test(p2p_halo4_persistent 400 reposted exit-restart 4 4 $<TARGET_FILE:t_ckpt_p2p_halo> persistent 150 48 8)
p2p_ckpt_test(p2p_halo_isend_continue 300 reposted continue 3 2 $<TARGET_FILE:t_ckpt_p2p_halo> isend 400 48 10)
# Partitioned point-to-point (src/lib/pt2pt/partitioned.c, docs/partitioned.md): every partition
# count 1..16, several datatypes, Pready/_range/_list in any order, Parrived polling, Startall,
# reuse, MPI_PROC_NULL, ordinary messages beside; compared with native MPICH. Errors (mpcr only).
mpi_program(t_partitioned mpi/partitioned.c)
mpi_test(mpi.partitioned 2 t_partitioned)
add_test(NAME mpi.partitioned_errors COMMAND ${MPCR_EXE} run -n 2 $<TARGET_FILE:t_partitioned> errors)
set_tests_properties(mpi.partitioned_errors PROPERTIES RESOURCE_LOCK cores
    PASS_REGULAR_EXPRESSION "rank 0: partitioned errors: PASS" FAIL_REGULAR_EXPRESSION "FAIL")
# Partitioned requests cut between MPI_Pready calls: some partitions ready, others not, the receive
# pending (tests/ckpt/ckpt_partitioned.c).
p2p_ckpt_program(partitioned)
p2p_ckpt_test(partitioned 300 reposted exit-restart 3 2 $<TARGET_FILE:t_ckpt_partitioned> 100 8 64 4)
p2p_ckpt_test(partitioned4_continue 300 reposted continue 3 4 $<TARGET_FILE:t_ckpt_partitioned> 60 8 64 4)
# Under Open MPI's proxy (the same MPICH-built programs): the run, and a restart of an MPICH job.
if(TARGET mpcr-proxy-openmpi)
    p2p_ckpt_test(partitioned_restart_openmpi 300 reposted exit-restart 2 2
        $<TARGET_FILE:t_ckpt_partitioned> 100 8 64 4)
    set_property(TEST ckpt.partitioned_restart_openmpi APPEND PROPERTY ENVIRONMENT
        "CKPT_RESTART_ARGS=--mpi openmpi")
    openmpi_test(partitioned 2 t_partitioned)
    openmpi_test(p2p_more 2 t_p2p_more)
    # Open MPI 4.1 has no large-count calls: the proxy sends such a message as a derived type
    openmpi_test(message_above_2GiB 2 t_big_count)
    openmpi_test(request_free_finalize 2 t_free_finalize)
    p2p_ckpt_test(p2p_mixed_restart_openmpi 300 reposted exit-restart 2 2
        $<TARGET_FILE:t_ckpt_p2p_mixed> 48 15)
    set_property(TEST ckpt.p2p_mixed_restart_openmpi APPEND PROPERTY ENVIRONMENT
        "CKPT_RESTART_ARGS=--mpi openmpi")
endif()
mpcr_label_family(pt2pt)
