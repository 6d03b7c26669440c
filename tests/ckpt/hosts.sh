#!/usr/bin/env bash
# A job over two "hosts" — two network namespaces joined by a bridge, each
# rank reachable only by its own address — with a standalone coordinator
# on the bridge: checkpoint --exit at a random instant, then a restart with
# the ranks placed the other way round. The output must be the native
# run's. Setting up namespaces needs root (mpcr itself does not); without
# it the test is skipped (status 77).
#   hosts.sh PROGRAM ARGS...       (env MPCR; 2 ranks)
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
[ "$(id -u)" = 0 ] || { echo "hosts.sh: SKIP: network namespaces need root"; exit 77; }
T=$(mktemp -d)
. "$(dirname "$0")/../free_port.sh"
port=$(free_port)
cleanup() {
    pkill -f "coordinator --listen $coord_ip:$port" 2>/dev/null
    netns_down
    rm -rf "$T"
}
trap cleanup EXIT
fail() {
    echo "hosts.sh: FAIL: $*"
    for f in "$T"/*.err "$T/launches"; do [ -s "$f" ] && { echo "--- $f"; tail -5 "$f"; }; done
    exit 1
}
. "$(dirname "$0")/netns.sh"
netns_up || { echo "hosts.sh: SKIP: cannot create network namespaces: $(head -1 "$T/netns.err")"; exit 77; }

# mpiexec's launcher "ssh" (T/nsexec) runs the command in the namespace of
# the host named, and notes which hydra proxy went where, to check the placement.
export MPCR_MPIEXEC=$T/mpiexec

HOSTS=$h1,$h2 timeout 120 "$T/mpiexec" -n 2 "$@" >"$T/ref" 2>"$T/native.err" || fail "the native run over two namespaces failed"
grep -q "^$h1 proxy-id 0" "$T/launches" || fail "the native run's rank 0 did not go to $h1"

n=2 ck=$T/ck addr=$coord_ip:$port
. "$(dirname "$0")/standalone.sh"
hold_job_ends
start_coordinator
: >"$T/launches"
HOSTS=$h1,$h2 timeout 120 "$MPCR" run -n 2 --coordinator "$coord_ip:$port" --ckpt-dir "$T/ck" "$@" \
    >"$T/first" 2>"$T/run.err" &
checkpoint_exit $! 1
grep -q "^$h1 proxy-id 0" "$T/launches" || fail "the first run's rank 0 was not on $h1"

start_coordinator
release_hold
: >"$T/launches"
HOSTS=$h2,$h1 timeout 120 "$MPCR" restart --coordinator "$coord_ip:$port" "$T/ck" >"$T/second" 2>"$T/restart.err" ||
    fail "the restart failed"
wait "$coord"
grep -q "^$h2 proxy-id 0" "$T/launches" || fail "the restarted rank 0 was not moved to $h2"
cat "$T/first" "$T/second" | sort | cmp -s - <(sort "$T/ref") ||
    fail "checkpointed after$delays s and restarted with the ranks swapped, the output differs"
echo "hosts.sh: PASS (checkpoint after$delays s; rank 0 on $h1, restarted on $h2; output equal)"
