#!/usr/bin/env bash
# Starts a private Slurm cluster on this machine for mpcr's batch-system
# tests: munged, slurmctld and one slurmd (this host, all its CPUs), with
# their configuration, state and logs under one directory, so nothing of
# the machine's own /etc/slurm is touched.
#   scripts/slurm/setup.sh [DIR]     (default /var/tmp/mpcr-slurm; root)
# Then: export SLURM_CONF=DIR/slurm.conf; srun/sbatch/squeue work.
#   scripts/slurm/setup.sh --stop [DIR]   stops the daemons it started.
# Needs Debian's slurmd, slurmctld, slurm-client and munge (scripts/setup.sh
# installs them).
set -euo pipefail
stop=0
if [ "${1:-}" = --stop ]; then stop=1; shift; fi
dir=${1:-/var/tmp/mpcr-slurm}
[ "$(id -u)" = 0 ] || { echo "slurm/setup.sh: the daemons need root (the jobs run as their user)"; exit 1; }

stop_daemons() {
    local f
    for f in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
        [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
        rm -f "$f"
    done
}
if [ "$stop" = 1 ]; then stop_daemons; echo "slurm: stopped (state kept in $dir)"; exit 0; fi
for p in slurmd slurmctld srun munged; do
    command -v "$p" >/dev/null || { echo "slurm/setup.sh: $p not found (apt-get install slurmd slurmctld slurm-client munge)"; exit 1; }
done
stop_daemons
mkdir -p "$dir"/{state,spool,log,munge}
chmod 0755 "$dir" "$dir"/spool
chmod 0700 "$dir"/munge
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)

# munge: a key of our own, its socket in our directory.
[ -s "$dir/munge/munge.key" ] || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$dir/munge/munge.key"
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" \
    --force
chmod 0755 "$dir/munge"

cat >"$dir/slurm.conf" <<CONF
# Written by mpcr's scripts/slurm/setup.sh: a one-node cluster for tests.
ClusterName=mpcr
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# cred_expire: a requeued job waits this long (+1 s) before it starts again
# (the default, 120 s, would make the requeue test last minutes).
AuthInfo=socket=$dir/munge/munge.socket,cred_expire=30
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmi2
ReturnToService=2
SchedulerType=sched/builtin
# A requeued job becomes eligible once cred_expire has passed and then waits
# for the main scheduling loop: every 60 s by default, every second here.
SchedulerParameters=sched_interval=1
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
InactiveLimit=0
KillWait=10
MinJobAge=30
# Pre-emption and requeue are what the tests exercise.
JobRequeue=1
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
    if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
        echo "slurm: up (export SLURM_CONF=$SLURM_CONF)"
        exit 0
    fi
    sleep 1
done
echo "slurm/setup.sh: the node did not become idle within 60 s; logs in $dir/log:"
tail -5 "$dir"/log/*.log
exit 1
