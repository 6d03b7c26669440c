# The command line's conventions (issue 15, point 5) and checkpoints asked
# for by signals (point 3): docs/mpcr.1, docs/batch-systems.md "Signals".
set(CLI ${CMAKE_CURRENT_SOURCE_DIR}/cli)

add_test(NAME cli.version COMMAND ${MPCR_EXE} --version)
set_tests_properties(cli.version PROPERTIES PASS_REGULAR_EXPRESSION
    "^mpcr ${PROJECT_VERSION}( \\(git [0-9a-f]+(-dirty)?\\))?\n$")
add_test(NAME cli.help COMMAND ${CLI}/help.sh ${MPCR_EXE} ${PROJECT_SOURCE_DIR}/docs/mpcr.1)
add_test(NAME cli.exit_codes COMMAND ${CLI}/exit_codes.sh ${MPCR_EXE})

mpcr_label_family(cli)

# cli_job_test(NAME TIMEOUT SCRIPT ARGS...): a test that runs MPI jobs (one at a time).
function(cli_job_test name timeout script)
    add_test(NAME cli.${name} COMMAND ${CLI}/${script} ${ARGN})
    set_tests_properties(cli.${name} PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores
        TIMEOUT ${timeout})
endfunction()

# A launcher that crashes, or says a process crashed, is named (src/cli/job_end.c)
cli_job_test(launcher_crash 120 launcher_crash.sh)

# t_ckpt_ring 3000 1, 2 ranks (with 3 units a lap it took 3 s natively on an idle machine): the
# jobs hold their end (tests/batch/common.sh hold_jobs) until the tests' checkpoints are taken
set(CLI_RING $<TARGET_FILE:t_ckpt_ring> 3000 1)
cli_job_test(status_json 240 status_json.sh ${CLI_RING})
cli_job_test(install_relocated 300 install.sh ${CMAKE_BINARY_DIR} ${CLI_RING})
# t_ckpt_ring 1000 3: about 1 s natively; the signal tests hold the job's end until its
# checkpoint is taken (tests/ckpt/ckpt.h, CKPT_HOLD), so a fast machine cannot outrun them
set(CLI_RING_SHORT $<TARGET_FILE:t_ckpt_ring> 1000 3)
# Signals: to mpcr run, to mpiexec (passed on), to every process of the job (as Slurm does)
cli_job_test(signal_run_exit 240 signal.sh run exit 2 ${CLI_RING_SHORT})
cli_job_test(signal_run_continue 240 signal.sh run continue 2 ${CLI_RING_SHORT})
cli_job_test(signal_exec_exit 240 signal.sh exec exit 2 ${CLI_RING_SHORT})
cli_job_test(signal_exec_continue 240 signal.sh exec continue 2 ${CLI_RING_SHORT})
cli_job_test(signal_launcher_exit 240 signal.sh launcher exit 2 ${CLI_RING_SHORT})
# Other signals than the defaults: SIGTERM ends the job after a checkpoint
cli_job_test(signal_run_term 240 signal.sh run exit 2 ${CLI_RING_SHORT})
set_property(TEST cli.signal_run_term APPEND PROPERTY ENVIRONMENT
    "SIGNAL=TERM" "SIGNAL_OPTS=--exit-signal TERM --checkpoint-signal none")
# A restart takes its own signals, not the first start's: started with --exit-signal
# TERM, restarted with the defaults (SIGUSR2, then SIGUSR1 to every process), then with
# --exit-signal TERM --checkpoint-signal none; the programs' ignored signals checked each time
cli_job_test(signal_restart 240 signal_restart.sh 2 ${CLI_RING_SHORT})
# A client connected to the coordinator when the job ends is told why no
# checkpoint was taken (it heard nothing before: "the coordinator closed
# the connection").
cli_job_test(request_at_end 120 request_at_end.sh $<TARGET_FILE:t_ckpt_ring> 2000 1)
mpcr_label_family(cli ckpt)

# The job's profile (docs/profile.md): exact counts of a known program, its sites, its
# Open MPI build (ompiabi.cmake adds PROFILE_OMPI), refusals, and counts across 3
# checkpoints equal to an uninterrupted run's (t_ckpt_ring 3000 3: about 3 s natively; with
# 1000 laps, three delays of up to 0.7 s each outlasted the job: gen-3 came at its final
# hold on a fast machine, 2026-12-07).
mpi_program(t_profile_counts ${TESTS_DIR}/profile/profile_counts.c)
cli_job_test(profile 300 ../profile/profile.sh $<TARGET_FILE:t_profile_counts> $<TARGET_FILE:t_ckpt_ring> 3000 3)
mpcr_label_family(cli ckpt)
