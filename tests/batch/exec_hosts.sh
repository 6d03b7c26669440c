#!/usr/bin/env bash
# `mpcr exec` over two "hosts" (network namespaces joined by a bridge,
# tests/ckpt/netns.sh; root only, skipped otherwise), checkpointed with
# --exit and restarted onto the other placement under the other launcher,
# against the native run over the same hosts:
#   exec_hosts.sh PROGRAM ARGS...      (env MPCR; 2 ranks)
# MODE=auto (default): mpiexec.mpich over h1,h2 starts `mpcr exec
#   --ckpt-dir D`; rank 0, on h1, starts the coordinator on h1's address
#   (its way to the launcher's host), which rank 1 on h2 reaches; `mpcr
#   checkpoint --exit D`; then mpirun.openmpi over h2,h1 runs `mpcr exec
#   --restart D`, whose rank 0 offers its coordinator on h2's address.
# MODE=coordinator: a standalone `mpcr coordinator` on the bridge, given
#   with --coordinator: mpirun.openmpi over h1,h2, then mpiexec.mpich over
#   h2,h1 with `mpcr exec --coordinator A --restart D`.
# The two pieces' output together must equal the native run's, the
# restart's status the native one's, and no process of the jobs be left.
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
[ "$(id -u)" = 0 ] || { echo "exec_hosts.sh: SKIP: network namespaces need root"; exit 77; }
mode=${MODE:-auto} n=2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mpcr-hosts-XXXXXX")
T=$scratch
job=
fail() {
    echo "FAIL: $*"
    for f in "$T"/*.err "$T/launches" "$T/ck/coord.launch"; do
        [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }
    done
    [ -n "$job" ] && kill "$job" 2>/dev/null
    # a standalone coordinator left waiting would hold ctest's pipe for its 200 s
    [ -n "${coord:-}" ] && kill "$coord" 2>/dev/null
    exit 1
}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../ckpt/netns.sh"
. "$here/../ckpt/standalone.sh" # start_coordinator; common.sh's checkpoint_exit below
. "$here/common.sh"
trap 'netns_down; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
netns_up || { echo "exec_hosts.sh: SKIP: cannot create network namespaces: $(head -1 "$T/netns.err")"; exit 77; }

HOSTS=$h1,$h2 timeout 120 "$T/mpiexec" -n $n "$@" >"$T/ref" 2>"$T/native.err"
ref_rc=$?
[ -s "$T/ref" ] || fail "the native run over two namespaces printed nothing (status $ref_rc)"
hold_jobs
ck=$T/ck

# on_host WHO HOST: the launches file says the rank 0 (hydra's proxy 0) went to HOST
on_host() { grep -q "^$2 proxy-id 0" "$T/launches" || fail "$1: rank 0 was not placed on $2"; }
# coordinator_on WHO HOST: the coordinator rank 0 started listens on HOST's address
coordinator_on() {
    grep -q "^addr $2:" "$ck/coord.launch" || fail "$1: the coordinator is not on $2 (rank 0's host)"
}

: >"$T/launches"
if [ "$mode" = auto ]; then
    HOSTS=$h1,$h2 timeout 120 "$T/mpiexec" -n $n "$MPCR" exec --ckpt-dir "$ck" "$@" \
        >"$T/first.out" 2>"$T/first.err" &
    job=$!
    checkpoint_exit "$job" $n "$ck" 60
    job=
    on_host "mpiexec.mpich" "$h1"
    coordinator_on "mpiexec.mpich" "$h1"
    HOSTS=$h2,$h1 timeout 120 "$T/mpirun" -n $n "$MPCR" exec --restart "$ck" \
        >"$T/second.out" 2>"$T/second.err"
    rc=$?
    coordinator_on "mpirun.openmpi" "$h2"
else
    addr=$coord_ip:$((40000 + RANDOM % 20000))
    start_coordinator
    HOSTS=$h1,$h2 timeout 120 "$T/mpirun" -n $n "$MPCR" exec --coordinator "$addr" --ckpt-dir "$ck" \
        "$@" >"$T/first.out" 2>"$T/first.err" &
    job=$!
    checkpoint_exit "$job" $n "$ck" 60
    job=
    wait "$coord" || fail "the standalone coordinator did not end with its job"
    start_coordinator
    HOSTS=$h2,$h1 timeout 120 "$T/mpiexec" -n $n "$MPCR" exec --coordinator "$addr" --restart "$ck" \
        >"$T/second.out" 2>"$T/second.err"
    rc=$?
    on_host "mpiexec.mpich" "$h2"
    wait "$coord" || fail "the second standalone coordinator did not end with its job"
fi
[ "$rc" = "$ref_rc" ] || fail "the restarted job ended with status $rc, the native run with $ref_rc"
same_output "$T/ref" "$T/first.out" "$T/second.out"
echo "PASS ($mode): $(wc -l <"$T/want") lines, checkpointed at $(wc -l <"$T/first.out"), restarted on the other placement and launcher"
