# Launchers that start mpcr on every rank (`mpcr exec`, issue 15;
# docs/batch-systems.md). Each job is checkpointed with --exit and
# restarted, the output compared with the native run's.
# A Slurm test runs in a session of its own (setsid): tests/batch/slurm.sh
# raises its session's scheduling weight, which must not reach the rest of
# the suite (it starved the kernel's writeback workers there).
function(batch_test name timeout script)
    set(session)
    if(name MATCHES "slurm")
        set(session setsid --wait)
    endif()
    add_test(NAME batch.${name} COMMAND ${session} ${CMAKE_CURRENT_SOURCE_DIR}/batch/${script} ${ARGN})
    set_tests_properties(batch.${name} PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores
        TIMEOUT ${timeout})
endfunction()

# The job of most tests: a ring of 2000 laps of one unit of computing each (about 2 s
# natively, tests/ckpt/ckpt.h). Its length matters little: rank 0 waits half-way and at
# its end until the test's checkpoint is taken (tests/batch/common.sh hold_jobs), so the
# checkpoint cannot come after the ring's end however fast the machine. The periodic
# checkpoints of the --interval tests take more (2 units a lap): nobody asks for them.
set(BATCH_RING $<TARGET_FILE:t_ckpt_ring> 2000 1)
# mpiexec.mpich -n 2 mpcr exec --ckpt-dir D / --restart D
batch_test(exec_mpiexec 180 exec_restart.sh 2 ${BATCH_RING})
# sbatch of srun --mpi=pmi2 -n 2 mpcr exec, restarted by a second sbatch
batch_test(slurm_sbatch 300 slurm_restart.sh 2 ${BATCH_RING})
# mpirun.openmpi -n 2 mpcr exec: the proxy is picked by the launcher (Open MPI's
# environment: mpcr-proxy-openmpi); an MPICH proxy there would be two singletons
if(TARGET mpcr-proxy-openmpi)
    batch_test(exec_mpirun_openmpi 180 exec_restart.sh 2 ${BATCH_RING})
    set_property(TEST batch.exec_mpirun_openmpi APPEND PROPERTY ENVIRONMENT
        "LAUNCH=mpirun.openmpi --allow-run-as-root --oversubscribe -n 2")
endif()
# the same, pre-empted by Slurm's signal instead of mpcr checkpoint --exit (docs/batch-systems.md
# "Signals"): to every process of the job's steps, or to the batch shell (srun passes it on).
# Every batch job's rank 0 waits half-way until its checkpoint is complete (tests/batch/common.sh
# hold_jobs): through Slurm's daemons the checkpoint came after the ring's end in CI runs
batch_test(slurm_scancel_signal 300 slurm_restart.sh 2 ${BATCH_RING})
set_property(TEST batch.slurm_scancel_signal APPEND PROPERTY ENVIRONMENT "SCANCEL=--signal=USR1")
batch_test(slurm_batch_signal 300 slurm_restart.sh 2 ${BATCH_RING})
set_property(TEST batch.slurm_batch_signal APPEND PROPERTY ENVIRONMENT "SCANCEL=--batch --signal=USR1")
# srun's own options pass through untouched (issue 15, point 1): an environment variable
# and a binding to one core per rank, seen in every rank's proxy and program (PASSED),
# in the first job and in the restart (2000 laps: the midway hold keeps the job for the checks)
batch_test(slurm_options 300 slurm_restart.sh 2 ${BATCH_RING})
set_property(TEST batch.slurm_options APPEND PROPERTY ENVIRONMENT "PASSED=MPCR_TEST_FOO=bar"
    "SRUN_OPTS=--export=ALL,MPCR_TEST_FOO=bar --cpu-bind=cores")
# checkpoint-and-continue, then a plain scancel: nothing of the job is left (rank 0's
# coordinator, a session of its own, included); a second sbatch restarts it
batch_test(slurm_continue_scancel 300 slurm_restart.sh 2 ${BATCH_RING})
set_property(TEST batch.slurm_continue_scancel APPEND PROPERTY ENVIRONMENT "CONTINUE=1")
# --restart-if-any D both times: the first run finds no D and starts fresh, the
# second resumes from gen-1 (the line of a requeued job's script)
batch_test(exec_mpiexec_if_any 180 exec_restart.sh 2 ${BATCH_RING})
set_property(TEST batch.exec_mpiexec_if_any APPEND PROPERTY ENVIRONMENT "IF_ANY=1")
# Restarted by another launcher or command than the one checkpointed (issue 15,
# point 4, on one host; batch.exec_hosts* for two): each launcher's image under
# the other's (the restart's proxy follows its launcher), `mpcr run`'s image
# under `mpiexec.mpich mpcr exec --restart`, `mpcr exec`'s under `mpcr restart`
if(TARGET mpcr-proxy-openmpi)
    batch_test(exec_mpiexec_to_openmpi 180 exec_restart.sh 2 ${BATCH_RING})
    set_property(TEST batch.exec_mpiexec_to_openmpi APPEND PROPERTY ENVIRONMENT
        "LAUNCH2=mpirun.openmpi --allow-run-as-root --oversubscribe -n 2")
    batch_test(exec_openmpi_to_mpiexec 180 exec_restart.sh 2 ${BATCH_RING})
    set_property(TEST batch.exec_openmpi_to_mpiexec APPEND PROPERTY ENVIRONMENT
        "LAUNCH=mpirun.openmpi --allow-run-as-root --oversubscribe -n 2" "LAUNCH2=mpiexec.mpich -n 2")
endif()
# The launcher's own options pass through untouched (issue 15, point 1): a hostfile
# (tests/batch/hosts.*: this host, 2 slots), an environment variable and a binding to one
# core per rank, seen in every rank's proxy and program (PASSED), at the start and after
# the restart by the same command line
batch_test(exec_mpiexec_options 180 exec_restart.sh 2 ${BATCH_RING})
set_property(TEST batch.exec_mpiexec_options APPEND PROPERTY ENVIRONMENT "PASSED=MPCR_TEST_FOO=bar"
    "LAUNCH=mpiexec.mpich -f ${CMAKE_CURRENT_SOURCE_DIR}/batch/hosts.mpich -n 2 -genv MPCR_TEST_FOO bar -bind-to core")
if(TARGET mpcr-proxy-openmpi)
    batch_test(exec_openmpi_options 180 exec_restart.sh 2 ${BATCH_RING})
    set_property(TEST batch.exec_openmpi_options APPEND PROPERTY ENVIRONMENT "PASSED=MPCR_TEST_FOO=bar"
        "LAUNCH=mpirun.openmpi --allow-run-as-root --hostfile ${CMAKE_CURRENT_SOURCE_DIR}/batch/hosts.openmpi -n 2 -x MPCR_TEST_FOO=bar --bind-to core")
endif()
batch_test(run_to_exec 180 exec_restart.sh 2 ${BATCH_RING})
set_property(TEST batch.run_to_exec APPEND PROPERTY ENVIRONMENT "FIRST=run")
batch_test(exec_to_restart 180 exec_restart.sh 2 ${BATCH_RING})
set_property(TEST batch.exec_to_restart APPEND PROPERTY ENVIRONMENT "SECOND=restart")
# --restart-if-any D's cases (docs/batch-systems.md "Requeue"): an empty D and one with
# only a generation without its manifest start fresh; several generations resume
# from the newest complete one
batch_test(exec_if_any_cases 180 if_any.sh 2 $<TARGET_FILE:t_ckpt_ring> 600 2)
# The requeue script's line with its periodic checkpoint (--interval 1): a generation appears
# without any checkpoint asked for, the job is killed (SIGKILL to all its processes),
# the same line resumes from the newest complete generation
batch_test(exec_interval 180 interval.sh 2 $<TARGET_FILE:t_ckpt_ring> 2000 2)
# docs/batch-systems.md's requeue script under Slurm: pre-empted by SIGUSR1 to the
# batch shell, checkpointed, requeued by itself, resumed by --restart-if-any (the
# midway hold: SIGUSR1 through the batch shell and srun was seen to arrive after rings of
# 2000 and 4000 laps had ended)
batch_test(slurm_requeue 300 slurm_requeue.sh 2 ${BATCH_RING})
# the same script's periodic checkpoint (--interval 1 for the test): requeued by
# `scontrol requeue` (Slurm's pre-emption or a node failure: the job is killed,
# its script has no say), it resumes from the newest complete generation (the midway
# hold: at 4000 and at 10000 laps a periodic checkpoint fell at the ring's final hold before the
# requeue's kill in CI runs)
batch_test(slurm_requeue_interval 300 slurm_requeue.sh 2 $<TARGET_FILE:t_ckpt_ring> 2000 2)
set_property(TEST batch.slurm_requeue_interval APPEND PROPERTY ENVIRONMENT INTERVAL=1)
# two "hosts" (network namespaces; root only, skipped otherwise): mpiexec.mpich
# over h1,h2, rank 0's coordinator on h1's address; restarted by mpirun.openmpi
# over h2,h1. Then the same with a standalone coordinator given by --coordinator,
# mpirun.openmpi first, mpiexec.mpich for the restart.
if(TARGET mpcr-proxy-openmpi)
    batch_test(exec_hosts 300 exec_hosts.sh ${BATCH_RING})
    batch_test(exec_hosts_coordinator 300 exec_hosts.sh ${BATCH_RING})
    set_property(TEST batch.exec_hosts_coordinator APPEND PROPERTY ENVIRONMENT "MODE=coordinator")
    set_tests_properties(batch.exec_hosts batch.exec_hosts_coordinator PROPERTIES
        SKIP_RETURN_CODE 77)
    # (the restart under mpirun.openmpi is the script's own: no environment shows it)
    set_property(TEST batch.exec_hosts batch.exec_hosts_coordinator APPEND PROPERTY LABELS openmpi)
endif()
# Slurm over two nodes (network namespaces of this machine, scripts/slurm/setup.sh
# --hosts; root only, skipped otherwise): sbatch -N 2 -n 2 of srun mpcr exec, rank 0
# on mpcrh1, checkpointed with --exit mid-run; restarted by srun -m arbitrary -w
# mpcrh2,mpcrh1 (ranks swapped), then again by mpiexec.mpich over h2,h1.
batch_test(slurm_hosts 300 slurm_hosts.sh ${BATCH_RING})
set_tests_properties(batch.slurm_hosts PROPERTIES SKIP_RETURN_CODE 77)
# Threads' CPU affinity across a restart under another binding (issue 15, the launcher's
# binding; src/engine/threads.c): bound to CPU 0 by taskset, restarted bound to CPU 1, every
# thread of every rank runs on CPU 1; a thread that bound itself to CPU 0 keeps it through a
# restart on CPU 1 (launched unbound) and through an unbound one (launched on CPU 1), where
# the others get every CPU. Native reference under the restart's binding.
batch_test(affinity_launcher 180 affinity.sh 2 $<TARGET_FILE:t_ckpt_affinity> 100 2 3)
set_property(TEST batch.affinity_launcher APPEND PROPERTY ENVIRONMENT "FIRST_CPUS=0" "RESTART_CPUS=1")
# (800 laps: with 200 the job had ended its work before the checkpoint came, on an idle VM)
batch_test(affinity_own 180 affinity.sh 2 $<TARGET_FILE:t_ckpt_affinity> 800 2 3)
set_property(TEST batch.affinity_own APPEND PROPERTY ENVIRONMENT "PIN=0" "RESTART_CPUS=1")
batch_test(affinity_own_unbound 180 affinity.sh 2 $<TARGET_FILE:t_ckpt_affinity> 100 2 3)
set_property(TEST batch.affinity_own_unbound APPEND PROPERTY ENVIRONMENT "PIN=0" "FIRST_CPUS=1")
set_tests_properties(batch.affinity_launcher batch.affinity_own batch.affinity_own_unbound PROPERTIES
    SKIP_RETURN_CODE 77)
mpcr_label_family(batch ckpt)
# The bare form, without a checkpoint directory: `mpiexec.mpich -n 2 mpcr exec PROGRAM`
# runs the job as natively (same output and status)
add_test(NAME batch.exec_plain COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/compare.sh 2 $<TARGET_FILE:t_ckpt_ring> 600 2)
set_tests_properties(batch.exec_plain PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE};COMPARE_EXEC=1"
    RESOURCE_LOCK cores TIMEOUT 120)
mpcr_label_family(batch)
