#!/usr/bin/env bash
# Starts a private Slurm cluster on this machine for mpcr's batch-system
# tests: munged, slurmctld and one slurmd (this host, all its CPUs), with
# their configuration, state and logs under one directory, so nothing of
# the machine's own /etc/slurm is touched.
#   scripts/slurm/setup.sh [DIR]     (default /var/tmp/mpcr-slurm; root)
# Then: export SLURM_CONF=DIR/slurm.conf; srun/sbatch/squeue work.
#   scripts/slurm/setup.sh --stop [DIR]   stops the daemons it started.
#   scripts/slurm/setup.sh --hosts [DIR]  (default /var/tmp/mpcr-slurm-hosts)
# a cluster of two nodes instead, mpcrh1 and mpcrh2: two network namespaces
# joined by a bridge (tests/ckpt/netns.sh's "hosts"), one slurmd in each,
# slurmctld and munged on this machine (the bridge's address); DIR/netns.env
# names the namespaces and addresses, DIR/mpiexec is netns.sh's mpiexec.mpich
# over them (HOSTS=A,B). `--stop --hosts [DIR]` stops it and removes them.
# Needs Debian's slurmd, slurmctld, slurm-client and munge (scripts/setup.sh
# installs them).
set -euo pipefail
stop=0 hosts=0
while :; do
    case ${1:-} in
    --stop) stop=1 && shift ;;
    --hosts) hosts=1 && shift ;;
    *) break ;;
    esac
done
if [ "$hosts" = 1 ]; then
    dir=${1:-/var/tmp/mpcr-slurm-hosts}
else
    dir=${1:-/var/tmp/mpcr-slurm}
fi
[ "$(id -u)" = 0 ] || { echo "slurm/setup.sh: the daemons need root (the jobs run as their user)"; exit 1; }

# stop_pid_files FILE...: SIGTERM to the daemons these pid files name, all at
# once, then waits until all are gone (5 s at most): each takes 1.5-2 s to
# end, and one after the other they cost a test 7 s. Gone before the next
# one starts: a slurmctld still ending kept its port, and the new one (a
# changed slurm.conf) did not start.
stop_pid_files() {
    local f p i pids=()
    for f; do
        p=$(cat "$f" 2>/dev/null) || continue
        kill "$p" 2>/dev/null && pids+=("$p")
        rm -f "$f"
    done
    for ((i = 0; i < 50 && ${#pids[@]} > 0; i++)); do
        for p in "${!pids[@]}"; do kill -0 "${pids[$p]}" 2>/dev/null || unset "pids[$p]"; done
        [ ${#pids[@]} = 0 ] || sleep 0.05
    done
}

# munged with a key of our own, its socket in our directory.
start_munge() {
    [ -s "$dir/munge/munge.key" ] || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 0400 "$dir/munge/munge.key"
    munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
        --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" \
        --force
    chmod 0755 "$dir/munge"
}

# The part of slurm.conf both clusters share.
conf_common() {
    cat <<CONF
AuthType=auth/munge
# cred_expire: a requeued job waits this long (+1 s) before it starts again
# (the default, 120 s, would make the requeue test last minutes; 30 s cost
# it 20 s more than 10, which launches steps well within it even at load).
AuthInfo=socket=$dir/munge/munge.socket,cred_expire=10
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmctldLogFile=$dir/log/slurmctld.log
ProctrackType=proctrack/linuxproc
# task/affinity: srun --cpu-bind binds each task (batch.slurm_options)
TaskPlugin=task/affinity
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
CONF
}

# --hosts: its own directory, ports, cluster name and munged, so that the
# one-node cluster below and this one may run side by side.
# shellcheck disable=SC2034,SC2154 # T is netns.sh's; br, net come from it
if [ "$hosts" = 1 ]; then
    T=$dir # netns.sh's scratch: its nsexec, mpiexec, mpirun, launches go there
    fail() { echo "slurm/setup.sh: $*"; exit 1; }
    . "$(cd "$(dirname "$0")" && pwd)/../../tests/ckpt/netns.sh"
    stop_hosts() {
        stop_pid_files "$dir"/slurmd-mpcrh1.pid "$dir"/slurmd-mpcrh2.pid "$dir"/slurmctld.pid "$dir"/munged.pid
        if [ -s "$dir/netns.env" ]; then
            . "$dir/netns.env"
            netns_down || true
            rm -f "$dir/netns.env"
        fi
    }
    if [ "$stop" = 1 ]; then stop_hosts; echo "slurm: stopped, namespaces removed (state kept in $dir)"; exit 0; fi
    for p in slurmd slurmctld srun munged ip; do
        command -v "$p" >/dev/null || { echo "slurm/setup.sh: $p not found (apt-get install slurmd slurmctld slurm-client munge iproute2)"; exit 1; }
    done
    stop_hosts
    mkdir -p "$dir"/{state,spool,log,munge}
    chmod 0755 "$dir" "$dir"/spool
    chmod 0700 "$dir"/munge
    # The namespaces; a subnet that another bridge of this machine has (a
    # test's own netns.sh hosts) is drawn again.
    for try in 1 2 3 4 5 6; do
        netns_up || { echo "slurm/setup.sh: cannot create network namespaces: $(head -1 "$dir/netns.err")"; exit 1; }
        ip -o -4 addr show | grep -v " $br " | grep -q " inet $net\." || break
        netns_down
        [ "$try" = 6 ] && { echo "slurm/setup.sh: no free subnet 10.77.X.0/24"; exit 1; }
    done
    printf 'ns1=%s ns2=%s br=%s net=%s h1=%s h2=%s coord_ip=%s\n' \
        "$ns1" "$ns2" "$br" "$net" "$h1" "$h2" "$coord_ip" >"$dir/netns.env"
    : >"$dir/launches"
    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.45)}' /proc/meminfo)
    start_munge # one munged for both nodes (its socket is a file, which the
    # namespaces share: they separate the network only)
    # slurmctld listens on every address of this machine; the slurmds reach
    # it on the bridge's ($coord_ip), it reaches them on theirs (NodeAddr).
    cat >"$dir/slurm.conf" <<CONF
# Written by mpcr's scripts/slurm/setup.sh --hosts: two nodes, each a
# network namespace of this machine (tests/ckpt/netns.sh), for tests.
ClusterName=mpcrhosts
SlurmctldHost=$host($coord_ip)
SlurmUser=root
SlurmdUser=root
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldPort=16827
SlurmdPort=16828
$(conf_common)
NodeName=mpcrh1 NodeAddr=$h1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
NodeName=mpcrh2 NodeAddr=$h2 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=hosts Nodes=mpcrh1,mpcrh2 Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
    export SLURM_CONF=$dir/slurm.conf
    slurmctld -f "$SLURM_CONF"
    # nsenter --net, not `ip netns exec`: that one mounts a /sys of its own,
    # without the cgroup file system slurmd needs.
    mkdir -p "$dir"/spool/mpcrh1 "$dir"/spool/mpcrh2
    nsenter --net=/run/netns/"$ns1" slurmd -f "$SLURM_CONF" -N mpcrh1
    nsenter --net=/run/netns/"$ns2" slurmd -f "$SLURM_CONF" -N mpcrh2
    for _ in $(seq 300); do # 60 s
        if [ "$(sinfo -h -N -o %T 2>/dev/null | grep -cE '^(idle|mixed|allocated)')" = 2 ]; then
            echo "slurm: up, nodes mpcrh1 ($h1, $ns1) and mpcrh2 ($h2, $ns2) (export SLURM_CONF=$SLURM_CONF)"
            exit 0
        fi
        sleep 0.2
    done
    echo "slurm/setup.sh: the nodes did not both become idle within 60 s; logs in $dir/log:"
    tail -5 "$dir"/log/*.log
    exit 1
fi

stop_daemons() {
    stop_pid_files "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid
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

start_munge

cat >"$dir/slurm.conf" <<CONF
# Written by mpcr's scripts/slurm/setup.sh: a one-node cluster for tests.
ClusterName=mpcr
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmdPidFile=$dir/slurmd.pid
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
$(conf_common)
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 300); do # 60 s
    if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
        echo "slurm: up (export SLURM_CONF=$SLURM_CONF)"
        exit 0
    fi
    sleep 0.2
done
echo "slurm/setup.sh: the node did not become idle within 60 s; logs in $dir/log:"
tail -5 "$dir"/log/*.log
exit 1
