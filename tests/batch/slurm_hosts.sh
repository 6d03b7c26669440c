#!/usr/bin/env bash
# A Slurm job over two nodes (network namespaces of this machine,
# scripts/slurm/setup.sh --hosts; root only, skipped otherwise),
# checkpointed and restarted with its ranks swapped between the nodes:
#   slurm_hosts.sh PROGRAM ARGS...      (env MPCR; 2 ranks, one a node)
# The reference: `sbatch -N 2 -n 2` of `srun --mpi=pmi2 -N 2 -n 2 PROGRAM
# ARGS`. Then the same of `mpcr exec --ckpt-dir D PROGRAM ARGS`: rank 0 on
# mpcrh1, rank 1 on mpcrh2 (their proxies' namespaces), rank 0's
# coordinator on mpcrh1's address; `mpcr checkpoint --exit D` while it
# works (gen-1 complete, not taken at the program's final hold). Then:
# the same gen-1 restarted once for each of MODES (default "srun mpiexec"):
# srun: `sbatch` of `srun -m arbitrary -w mpcrh2,mpcrh1 mpcr exec --restart
#   D`: rank 0 on mpcrh2, rank 1 on mpcrh1;
# mpiexec: mpiexec.mpich over h2,h1 (netns.sh's, DIR/mpiexec), outside
#   Slurm: another launcher, rank 0 on h2.
# The restarted job waits at the hold until its placement has been seen.
# Both pieces' output must equal the reference's, the restart's status its
# status, and no process of the jobs be left. The cluster is started when
# it does not answer, and then stopped at the end.
# Environment: MPCR, SLURM_HOSTS_DIR (/var/tmp/mpcr-slurm-hosts), MODES.
# shellcheck disable=SC2154 # ns1 ns2 h1 h2 come from DIR/netns.env
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
[ "$(id -u)" = 0 ] || { echo "slurm_hosts.sh: SKIP: the nodes' network namespaces need root"; exit 77; }
modes=${MODES:-srun mpiexec} n=2
here=$(cd "$(dirname "$0")" && pwd)
setup=$here/../../scripts/slurm/setup.sh
sdir=${SLURM_HOSTS_DIR:-/var/tmp/mpcr-slurm-hosts}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mpcr-slurmh-XXXXXX")
chmod 0755 "$scratch"
started="" job=""
fail() {
    echo "FAIL: $*"
    for f in "$scratch"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
    [ -n "$job" ] && kill "$job" 2>/dev/null
    for f in "$scratch"/*.id; do [ -s "$f" ] && scancel "$(cat "$f")" 2>/dev/null; done
    exit 1
}
cleanup() {
    [ -n "$started" ] && "$setup" --stop --hosts "$sdir" >/dev/null 2>&1
    [ -n "${KEEP:-}" ] || rm -rf "$scratch"
}
trap cleanup EXIT
export SLURM_CONF=$sdir/slurm.conf
two_idle() { [ "$(sinfo -h -N -o %T 2>/dev/null | grep -cE '^(idle|mixed|allocated)')" = 2 ]; }
if ! two_idle || [ ! -s "$sdir/netns.env" ]; then
    command -v slurmd >/dev/null || fail "slurmd not found: install slurmd slurmctld slurm-client munge"
    started=1
    if ! "$setup" --hosts "$sdir" >"$scratch/setup.err" 2>&1; then
        grep -q "cannot create network namespaces" "$scratch/setup.err" &&
            { echo "slurm_hosts.sh: SKIP: $(tail -1 "$scratch/setup.err")"; exit 77; }
        fail "scripts/slurm/setup.sh --hosts could not start the cluster: $(tail -5 "$scratch/setup.err")"
    fi
fi
# shellcheck disable=SC1091 # written by setup.sh --hosts
. "$sdir/netns.env" # ns1 ns2 h1 h2 (mpcrh1's and mpcrh2's namespace and address)
SLURM_DIR=$sdir # slurm.sh: this cluster, not the one-node one
. "$here/common.sh"
. "$here/slurm.sh" # job_end; the cluster answers, so it starts nothing

# submit_hosts NAME SRUN-OPTIONS... -- COMMAND...: `sbatch -N 2 -n 2` of
# `srun --mpi=pmi2 -N 2 -n 2 SRUN-OPTIONS COMMAND`; returns its status.
submit_hosts() {
    local name=$1 opts=()
    shift
    while [ "$1" != -- ]; do opts+=("$1") && shift; done
    shift
    {
        echo "#!/bin/bash"
        printf 'exec srun --mpi=pmi2 -N 2 -n %d' "$n"
        printf ' %q' "${opts[@]}" "$@"
        echo
    } >"$scratch/$name.sh"
    sbatch --parsable -N 2 -n "$n" -J "mpcr-$name" -D "$scratch" -o "$scratch/$name.out" \
        -e "$scratch/$name.err" -t 10 "$scratch/$name.sh" >"$scratch/$name.id" || return 125
    job_end "$(cat "$scratch/$name.id")"
}

# placement: "RANK NAMESPACE" of each proxy of this test's running job
# (its environment names the hold), sorted by rank.
placement() {
    local p e r
    for p in $(pgrep -f 'mpcr-proxy-'); do
        e=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null) || continue
        grep -qxF "CKPT_HOLD=$scratch/release" <<<"$e" || continue
        r=$(grep -m1 -E '^PMI_RANK=' <<<"$e" || grep -m1 -E '^SLURM_PROCID=' <<<"$e")
        echo "${r#*=} $(ip netns identify "$p")"
    done | sort -u | xargs
}
# placed WHO NS0 NS1: rank 0's proxy runs in NS0, rank 1's in NS1
placed() {
    local got
    got=$(placement)
    [ "$got" = "0 $2 1 $3" ] || fail "$1: ranks placed as '$got' (rank namespace...), not '0 $2 1 $3'"
}
# coordinator_on WHO HOST: the coordinator rank 0 started listens on HOST's address
coordinator_on() {
    grep -q "^addr $2:" "$ck/coord.launch" ||
        fail "$1: the coordinator is not on $2 (rank 0's node): $(head -1 "$ck/coord.launch")"
}

submit_hosts ref -- "$@"
ref_rc=$?
[ -s "$scratch/ref.out" ] || fail "the native batch job over two nodes printed nothing (status $ref_rc)"
hold_jobs
ck=$scratch/ck

submit_hosts first -- "$MPCR" exec --ckpt-dir "$ck" "$@" &
job=$!
wait_connected "$job" "$n" "$ck" 120
placed "the first job" "$ns1" "$ns2"
coordinator_on "the first job" "$h1"
# a checkpoint after its first line of output: the output spans both pieces
for ((i = 0; i < 600; i++)); do
    [ -s "$scratch/first.out" ] && break
    kill -0 "$job" 2>/dev/null || fail "the first job ended before it printed anything"
    sleep 0.1
done
[ -s "$scratch/first.out" ] || fail "the first job printed nothing in 60 s"
checkpoint_exit "$job" "$n" "$ck" 120
job=
[ -e "$scratch/release.reached" ] &&
    fail "the checkpoint was taken at the program's final hold, not while it worked: give it more work"
[ -e "$ck/gen-2" ] && fail "more than one generation after one checkpoint --exit"
[ "$(wc -l <"$scratch/first.out")" -lt "$(wc -l <"$scratch/ref.out")" ] ||
    fail "the first job printed all of the native job's lines before its checkpoint"

# restart_with MODE: the restart, with a re-armed hold, so that it waits at
# the end until its placement is seen; both pieces' output as the native job's.
restart_with() {
    local mode=$1 rc where
    rm -f "$scratch/release" "$scratch/release.reached"
    if [ "$mode" = srun ]; then
        submit_hosts second -m arbitrary -w mpcrh2,mpcrh1 -- "$MPCR" exec --restart "$ck" &
        where="by srun on mpcrh2,mpcrh1"
    else
        : >"$sdir/launches"
        HOSTS=$h2,$h1 timeout 120 "$sdir/mpiexec" -n $n "$MPCR" exec --restart "$ck" \
            >"$scratch/second.out" 2>"$scratch/second.err" &
        where="by mpiexec.mpich on h2,h1"
    fi
    job=$!
    reach_hold "$job" "the restarted job"
    placed "the restart ($mode)" "$ns2" "$ns1"
    coordinator_on "the restart ($mode)" "$h2"
    if [ "$mode" != srun ]; then
        grep -q "^$h2 proxy-id 0" "$sdir/launches" || fail "mpiexec.mpich did not start rank 0 on $h2"
    fi
    touch "$scratch/release"
    wait "$job"
    rc=$?
    job=
    [ "$rc" = "$ref_rc" ] || fail "the restarted job ($mode) ended with status $rc, the native one with $ref_rc"
    same_output "$scratch/ref.out" "$scratch/first.out" "$scratch/second.out"
    echo "PASS ($mode): $(wc -l <"$scratch/want") lines, checkpointed at $(wc -l <"$scratch/first.out") under srun on mpcrh1,mpcrh2, restarted $where"
}
# The same image restarted once per mode (a generation stays restartable).
for m in $modes; do
    restart_with "$m"
done
