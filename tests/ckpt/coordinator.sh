#!/usr/bin/env bash
# A job with a standalone coordinator over TCP (`mpcr coordinator --listen`),
# as for several hosts, on 127.0.0.1: checkpoint --exit at a random instant;
# the checkpoint directory is moved; a new coordinator there, `mpcr restart
# --coordinator`, checkpoint --exit again (its images must land in the new
# directory); a third coordinator and restart to the end. The output must
# be the native run's. A connection without the job's secret is refused.
#   coordinator.sh NPROCS PROGRAM ARGS...       (env MPCR)
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
n=$1
shift
T=$(mktemp -d)
trap 'pkill -f "coordinator --listen 127.0.0.1:$port" 2>/dev/null; rm -rf "$T"' EXIT
fail() {
    echo "coordinator.sh: FAIL: $*"
    for f in "$T"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -5 "$f"; }; done
    exit 1
}
. "$(dirname "$0")/../free_port.sh"
port=$(free_port)
addr=127.0.0.1:$port
. "$(dirname "$0")/../native_run.sh"
native_run "$T/ref" "$T/native.stderr" "$n" "$@" || fail "the native run failed"

ck=$T/ck
. "$(dirname "$0")/standalone.sh"
hold_job_ends

start_coordinator
# Without the secret, the coordinator answers nothing and starts nothing.
exec 3<>"/dev/tcp/127.0.0.1/$port" || fail "cannot connect to $addr"
echo checkpoint >&3
reply=$(timeout 15 cat <&3)
exec 3<&-
[ -z "$reply" ] || fail "a connection without the secret got an answer: $reply"

timeout 120 "$MPCR" run -n "$n" --coordinator "$addr" --ckpt-dir "$ck" "$@" >"$T/first" 2>"$T/run.err" &
checkpoint_exit $! 1

mv "$ck" "$T/moved" # a restart need not use the directory's old path
ck=$T/moved
start_coordinator
timeout 120 "$MPCR" restart --coordinator "$addr" "$ck" >"$T/second" 2>"$T/restart.err" &
checkpoint_exit $! 2

start_coordinator
release_hold
timeout 120 "$MPCR" restart --coordinator "$addr" "$ck" >"$T/third" 2>"$T/restart.err" ||
    fail "the last restart failed"
wait "$coord" || fail "the last coordinator did not end with its job"
cat "$T/first" "$T/second" "$T/third" | sort | cmp -s - <(sort "$T/ref") ||
    fail "checkpointed after$delays s, restarted twice, the output differs from the native run's"
echo "coordinator.sh: PASS (checkpoints after$delays s over tcp:$addr, the directory moved, output equal)"
