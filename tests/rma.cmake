# Tests of one-sided communication (MPI 4.0 chapter 12; docs/one-sided.md; included by
# tests/CMakeLists.txt; mpi_test is defined there).

# tests/ckpt/ckpt_rma.c: a window made by MPI_Win_allocate and one by MPI_Win_create on the
# program's heap; every step a fence epoch of Put, Accumulate (predefined and derived target
# types), a computation inside the epoch, a fence epoch of Get; on the created window a Put
# through a derived target type, MAX and REPLACE accumulates and the program's own stores
# (a separate window's private copy); a mutex on rank 0's counter (lock exclusive, get, put,
# unlock: exact only if the lock excludes), lock_all with an accumulate to every rank,
# flush_all; the windows' attributes, group, name and error handler. Rank 0 prints every
# rank's checksums. Against native MPICH (2 and 3 ranks), under Open MPI's proxy, and
# checkpointed at random instants (inside epochs, while a rank waits for a lock): --exit and
# restart (the windows' memory handed to the new proxies and attached again; restarted once
# under Open MPI), and checkpoint-and-continue with a restart from the last generation.
add_executable(t_ckpt_rma ckpt/ckpt_rma.c)
target_link_libraries(t_ckpt_rma PRIVATE PkgConfig::MPICH)
target_compile_options(t_ckpt_rma PRIVATE -O2)
set_target_properties(t_ckpt_rma PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
mpi_test(mpi.rma 2 t_ckpt_rma 40 1)
mpi_test(mpi.rma3 3 t_ckpt_rma 20 1)
# 120 steps of 15 units (1.2 s natively): with 60, Open MPI's proxy once finished the job before
# either checkpoint of ckpt.ompi_rma_continue_openmpi (tests/ompiabi.cmake) came.
add_test(NAME ckpt.rma COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.sh exit-restart 2 2
    $<TARGET_FILE:t_ckpt_rma> 120 15)
add_test(NAME ckpt.rma_continue COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.sh continue 2 2
    $<TARGET_FILE:t_ckpt_rma> 120 15)
set_tests_properties(ckpt.rma ckpt.rma_continue PROPERTIES
    ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores TIMEOUT 300)
if(TARGET mpcr-proxy-openmpi)
    openmpi_test(rma 2 t_ckpt_rma 40 1)
    set_property(TEST ckpt.rma APPEND PROPERTY ENVIRONMENT "CKPT_RESTART_ARGS=--mpi openmpi")
endif()

# tests/ckpt/ckpt_rma_dynamic.c: a dynamic window (MPI_Win_create_dynamic) with a static array,
# a heap block and a block replaced every 8 steps attached (detach, free, attach at a new address);
# lock_all epochs of Put, Accumulate and Fetch_and_op at the addresses the targets told, shared
# locks and Get. Against native MPICH (2 and 3 ranks), under Open MPI's proxy, checkpointed at
# random instants and restarted under Open MPI (the attached pages handed to the new proxies at
# the same addresses). ckpt.rma_dynamic_attach: the block replaced at every step, no computation
# between: most checkpoints land in an MPI_Win_attach or _detach (a call left unanswered at the
# checkpoint is served again by the new proxy: docs/one-sided.md, "Across a restart"); 1000 steps
# (120, 0.23 s natively, ended before the cuts on an idle machine).
add_executable(t_ckpt_rma_dynamic ckpt/ckpt_rma_dynamic.c)
target_link_libraries(t_ckpt_rma_dynamic PRIVATE PkgConfig::MPICH)
target_compile_options(t_ckpt_rma_dynamic PRIVATE -O2)
set_target_properties(t_ckpt_rma_dynamic PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
mpi_test(mpi.rma_dynamic 2 t_ckpt_rma_dynamic 40 1)
mpi_test(mpi.rma_dynamic3 3 t_ckpt_rma_dynamic 20 1)
add_test(NAME ckpt.rma_dynamic COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.sh exit-restart 2 2
    $<TARGET_FILE:t_ckpt_rma_dynamic> 120 15)
add_test(NAME ckpt.rma_dynamic_attach COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.sh exit-restart 2 2
    $<TARGET_FILE:t_ckpt_rma_dynamic> 1000 1 1)
set_tests_properties(ckpt.rma_dynamic ckpt.rma_dynamic_attach PROPERTIES
    ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores TIMEOUT 300)
if(TARGET mpcr-proxy-openmpi)
    openmpi_test(rma_dynamic 2 t_ckpt_rma_dynamic 40 1)
    set_property(TEST ckpt.rma_dynamic ckpt.rma_dynamic_attach APPEND PROPERTY ENVIRONMENT
        "CKPT_RESTART_ARGS=--mpi openmpi")
endif()

# tests/ckpt/ckpt_rma_unified.c: MPI_Win_create over a heap block (replaced with its window every
# 10 steps), static data, main's stack (all three MPI_WIN_UNIFIED: a Put told by a message is read
# from the memory directly, a rank's own store is what another gets) and over a
# shared anonymous mapping (a public copy under mpcr, fence epochs). Against native MPICH (2 and 3 ranks),
# under Open MPI's proxy, checkpointed at random instants and restarted (under Open MPI), and
# checkpoint-and-continue with a restart from the last generation.
mpi_program(t_ckpt_rma_unified ckpt/ckpt_rma_unified.c)
target_compile_options(t_ckpt_rma_unified PRIVATE -O2)
mpi_test(mpi.rma_unified 2 t_ckpt_rma_unified 40 1)
mpi_test(mpi.rma_unified3 3 t_ckpt_rma_unified 20 1)
add_test(NAME ckpt.rma_unified COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.sh exit-restart 2 2
    $<TARGET_FILE:t_ckpt_rma_unified> 60 5)
add_test(NAME ckpt.rma_unified_continue COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.sh continue 2 2
    $<TARGET_FILE:t_ckpt_rma_unified> 60 5)
set_tests_properties(ckpt.rma_unified ckpt.rma_unified_continue PROPERTIES
    ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores TIMEOUT 300)
if(TARGET mpcr-proxy-openmpi)
    openmpi_test(rma_unified 2 t_ckpt_rma_unified 40 1)
    set_property(TEST ckpt.rma_unified APPEND PROPERTY ENVIRONMENT "CKPT_RESTART_ARGS=--mpi openmpi")
endif()

# tests/ckpt/ckpt_rma_shared.c: MPI_Win_allocate_shared and MPI_Win_shared_query (parts of other
# sizes, contiguous), direct stores into the next rank's part, Put, Accumulate and Fetch_and_op,
# an exclusive lock as a mutex. Against native MPICH (2 and 3 ranks) and under Open MPI's proxy;
# ckpt.rma_shared_refused: a checkpoint the job survives, its result equal to the native run's,
# then a restart from it must be refused with a message (not carried across a restart yet).
mpi_program(t_ckpt_rma_shared ckpt/ckpt_rma_shared.c)
target_compile_options(t_ckpt_rma_shared PRIVATE -O2)
mpi_test(mpi.rma_shared 2 t_ckpt_rma_shared 40 1)
mpi_test(mpi.rma_shared3 3 t_ckpt_rma_shared 20 1)
add_test(NAME ckpt.rma_shared_refused COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/restart_refused.sh 2
    "restart is refused: the program has a shared-memory window" $<TARGET_FILE:t_ckpt_rma_shared> 40 1)
set_tests_properties(ckpt.rma_shared_refused PROPERTIES
    ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores TIMEOUT 300)
if(TARGET mpcr-proxy-openmpi)
    openmpi_test(rma_shared 2 t_ckpt_rma_shared 40 1)
endif()

# tests/mpi/win_errhandler.c: a window's error handler (MPI_ERRORS_RETURN, a user handler called by
# a failing call and by MPI_Win_call_errhandler), MPI_COMM_WORLD's while the window has none (as
# MPICH). Against native MPICH and under Open MPI's proxy.
mpi_program(t_win_errhandler mpi/win_errhandler.c)
mpi_test(mpi.win_errhandler 2 t_win_errhandler)
if(TARGET mpcr-proxy-openmpi)
    openmpi_test(win_errhandler 2 t_win_errhandler)
endif()

# tests/mpi/win_over_window.c: MPI_Win_create over an MPI_Win_allocate_shared window's parts and over
# an MPI_Win_allocate window's memory, both MPI_WIN_UNIFIED: a Put is in the memory after a barrier,
# seen through the shared window's pointer too. Against native MPICH (3 ranks) and under Open MPI's
# proxy.
mpi_program(t_win_over_window mpi/win_over_window.c)
mpi_test(mpi.win_over_window 3 t_win_over_window)
if(TARGET mpcr-proxy-openmpi)
    openmpi_test(win_over_window 3 t_win_over_window)
endif()

# tests/mpi/many_windows.c: 100 windows at once (allocated and created), a Put in each; a shared
# window whose empty parts MPI_Win_shared_query answers NULL. Against native MPICH and under Open
# MPI's proxy (which must raise Open MPI's 64 attachments a dynamic window takes).
mpi_program(t_many_windows mpi/many_windows.c)
mpi_test(mpi.many_windows 2 t_many_windows)
if(TARGET mpcr-proxy-openmpi)
    openmpi_test(many_windows 2 t_many_windows)
endif()

# openmpi_refused(NAME PROGRAM ARG WHAT): `mpcr run --mpi openmpi -n 2 PROGRAM ARG` ends the job
# with the message "WHAT ... is not supported" (a case Open MPI's proxy refuses by name).
function(openmpi_refused name prog arg what)
    add_test(NAME openmpi.${name} COMMAND ${MPCR_EXE} run --mpi openmpi -n 2 $<TARGET_FILE:${prog}> ${arg})
    set_tests_properties(openmpi.${name} PROPERTIES RESOURCE_LOCK cores TIMEOUT 120
        PASS_REGULAR_EXPRESSION "${what}[^\n]* is not supported")
endfunction()

# tests/mpi/rma_pairs.c: Accumulate, Get_accumulate and Fetch_and_op on MPI_SHORT_INT and
# MPI_LONG_INT (pair types with a hole: the proxy lays their packed bytes out at their extent),
# then MPI_MAXLOC (`maxloc`). Against native MPICH; under Open MPI's proxy (Open MPI 4.1.4's
# osc/rdma garbles the pair types on created and dynamic windows, natively too) MPI_REPLACE and
# MPI_NO_OP go as the members' bytes, MPI_MAXLOC of MPI_LONG_INT as a derived type
# (`maxloc_long`), and MPI_MAXLOC of MPI_SHORT_INT is refused by name.
mpi_program(t_rma_pairs mpi/rma_pairs.c)
mpi_test(mpi.rma_pairs 2 t_rma_pairs maxloc)
if(TARGET mpcr-proxy-openmpi)
    openmpi_test(rma_pairs 2 t_rma_pairs maxloc_long)
    openmpi_refused(rma_pairs_maxloc_refused t_rma_pairs maxloc
        "mpcr: MPI_MAXLOC or MPI_MINLOC on MPI_SHORT_INT[^\n]* under Open MPI's proxy")
endif()

# tests/mpi/rma_gacc_types.c: MPI_Get_accumulate into derived target datatypes (contiguous ones,
# and with `vector` a strided one). Against native MPICH; under Open MPI's proxy the contiguous
# ones go as MPI_INT elements (Open MPI 4.1.4's osc/rdma answers garbage for a derived target type
# on created and dynamic windows, natively too) and the strided one is refused by name.
mpi_program(t_rma_gacc_types mpi/rma_gacc_types.c)
mpi_test(mpi.rma_gacc_types 2 t_rma_gacc_types vector)
if(TARGET mpcr-proxy-openmpi)
    openmpi_test(rma_gacc_types 2 t_rma_gacc_types)
    openmpi_refused(rma_gacc_types_vector_refused t_rma_gacc_types vector
        "mpcr: MPI_Get_accumulate into a derived target datatype with holes under Open MPI's proxy")
endif()

mpcr_label_family(onesided)
