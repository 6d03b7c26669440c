# The sessions model (MPI 4.0 section 11.3; docs/sessions.md; included by
# tests/CMakeLists.txt). MPI_Comm_create_from_group in the world model:
# tests/communicator.cmake (comm_from_group).

# Sessions before, beside and after the world model, several at once, their
# process sets, info, groups, communicators, error handlers: compared with
# MPICH's native run (3 ranks), under MPICH's proxy and Open MPI's.
mpi_program(t_sessions mpi/sessions.c)
mpi_test(mpi.sessions 3 t_sessions)
if(TARGET mpcr-proxy-openmpi)
    openmpi_test(sessions 3 t_sessions)
endif()
# Where MPICH 4.0.2 departs from the standard (a session call's errors go to
# the session's handler, the one MPI_Session_init was given included; a
# handler made before any session), mpcr follows the standard; a session
# left open at the exit after MPI_Finalize ends silently, as natively; and a
# program using sessions only may open new ones after closing all of them
# (MPICH 4.0.2 crashes there), and exit with one open.
add_test(NAME mpi.sessions_strict COMMAND ${MPCR_EXE} run -n 2 $<TARGET_FILE:t_sessions> strict)
set_tests_properties(mpi.sessions_strict PROPERTIES RESOURCE_LOCK cores
    PASS_REGULAR_EXPRESSION "the handler given to MPI_Session_init: 1\nunknown set, group: ok \\(class 12\\)\nthe session's handler saw it: 1 \\(class 12\\), group null 1\nunknown set, info: ok \\(class 12\\)\nset 2 of 2: ok \\(class 12\\)\nhandler calls: 3\nNULL set name: ok \\(class 12\\)\nfinalized session: ok \\(class 75\\)\nMPI_SESSION_NULL: ok \\(class 75\\)\n"
    FAIL_REGULAR_EXPRESSION "WRONG|not supported|without calling MPI_Finalize")
add_test(NAME mpi.sessions_reopen COMMAND ${MPCR_EXE} run -n 2 $<TARGET_FILE:t_sessions> reopen)
set_tests_properties(mpi.sessions_reopen PROPERTIES RESOURCE_LOCK cores
    PASS_REGULAR_EXPRESSION "reopened 3 times\n"
    FAIL_REGULAR_EXPRESSION "not supported|without calling MPI_Finalize")

# A session opened before MPI_Init (a handler of the program's, groups and
# communicators from its WORLD and SELF sets, the WORLD set's info), the
# world model and a second session from an eighth to half of the way, the
# first going on alone after MPI_Finalize, a third opened and
# finalized every 4th step (tests/ckpt/ckpt_sessions.c), checkpointed at
# random instants: --exit and restarted (under Open MPI), and continue.
ckpt_pair(sessions sessions 3 4 32 40)
# The same program cut after a chosen step of each phase (2: session A
# alone; 8: A, B and the world model; 20: A alone after MPI_Finalize), each
# restarted under Open MPI, against the native run.
add_test(NAME ckpt.sessions_phases_openmpi COMMAND ${TESTS_DIR}/ckpt/sessions_phases.sh
    $<TARGET_FILE:t_ckpt_sessions> 32 40 2 8 20)
set_tests_properties(ckpt.sessions_phases_openmpi PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}"
    RESOURCE_LOCK cores TIMEOUT 600)
mpcr_label_family(comm)

# MPICH's own session tests (init/session*, threads/init/mult_session;
# scripts/conformance/sessions.txt) under mpcr.
add_test(NAME conformance.sessions
    COMMAND ${PROJECT_SOURCE_DIR}/scripts/conformance.sh --check
        ${PROJECT_SOURCE_DIR}/scripts/conformance/sessions.txt)
set_tests_properties(conformance.sessions PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores
    TIMEOUT 600)
mpcr_label_family(conformance)
