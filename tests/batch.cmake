# Launchers that start mpcr on every rank (`mpcr exec`, issue 15;
# docs/batch-systems.md). Each job is checkpointed with --exit and
# restarted, the output compared with the native run's.
function(batch_test name timeout script)
    add_test(NAME batch.${name} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/batch/${script} ${ARGN})
    set_tests_properties(batch.${name} PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}" RUN_SERIAL TRUE
        TIMEOUT ${timeout})
endfunction()

# mpiexec.mpich -n 2 mpcr exec --ckpt-dir D / --restart D
batch_test(exec_mpiexec 180 exec_restart.sh 2 $<TARGET_FILE:t_ckpt_ring> 2000 2)
# sbatch of srun --mpi=pmi2 -n 2 mpcr exec, restarted by a second sbatch
batch_test(slurm_sbatch 300 slurm_restart.sh 2 $<TARGET_FILE:t_ckpt_ring> 2000 2)
# mpirun.openmpi -n 2 mpcr exec: the proxy is picked by the launcher (Open MPI's
# environment: mpcr-proxy-openmpi); an MPICH proxy there would be two singletons
if(TARGET mpcr-proxy-openmpi)
    batch_test(exec_mpirun_openmpi 180 exec_restart.sh 2 $<TARGET_FILE:t_ckpt_ring> 2000 2)
    set_property(TEST batch.exec_mpirun_openmpi APPEND PROPERTY ENVIRONMENT
        "LAUNCH=mpirun.openmpi --allow-run-as-root --oversubscribe -n 2")
endif()
# the same, pre-empted by Slurm's signal instead of mpcr checkpoint --exit (docs/batch-systems.md
# "Signals"): to every process of the job's steps, or to the batch shell (srun passes it on)
batch_test(slurm_scancel_signal 300 slurm_restart.sh 2 $<TARGET_FILE:t_ckpt_ring> 2000 2)
set_property(TEST batch.slurm_scancel_signal APPEND PROPERTY ENVIRONMENT "SCANCEL=--signal=USR1")
batch_test(slurm_batch_signal 300 slurm_restart.sh 2 $<TARGET_FILE:t_ckpt_ring> 2000 2)
set_property(TEST batch.slurm_batch_signal APPEND PROPERTY ENVIRONMENT "SCANCEL=--batch --signal=USR1")
# --restart-if-any D both times: the first run finds no D and starts fresh, the
# second resumes from gen-1 (the line of a requeued job's script)
batch_test(exec_mpiexec_if_any 180 exec_restart.sh 2 $<TARGET_FILE:t_ckpt_ring> 2000 2)
set_property(TEST batch.exec_mpiexec_if_any APPEND PROPERTY ENVIRONMENT "IF_ANY=1")
# docs/batch-systems.md's requeue script under Slurm: pre-empted by SIGUSR1 to the
# batch shell, checkpointed, requeued by itself, resumed by --restart-if-any
batch_test(slurm_requeue 300 slurm_requeue.sh 2 $<TARGET_FILE:t_ckpt_ring> 2000 2)
# two "hosts" (network namespaces; root only, skipped otherwise): mpiexec.mpich
# over h1,h2, rank 0's coordinator on h1's address; restarted by mpirun.openmpi
# over h2,h1. Then the same with a standalone coordinator given by --coordinator,
# mpirun.openmpi first, mpiexec.mpich for the restart.
if(TARGET mpcr-proxy-openmpi)
    batch_test(exec_hosts 300 exec_hosts.sh $<TARGET_FILE:t_ckpt_ring> 2000 2)
    batch_test(exec_hosts_coordinator 300 exec_hosts.sh $<TARGET_FILE:t_ckpt_ring> 2000 2)
    set_property(TEST batch.exec_hosts_coordinator APPEND PROPERTY ENVIRONMENT "MODE=coordinator")
    set_tests_properties(batch.exec_hosts batch.exec_hosts_coordinator PROPERTIES
        SKIP_RETURN_CODE 77)
endif()
