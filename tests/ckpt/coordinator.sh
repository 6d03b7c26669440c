#!/usr/bin/env bash
# A job with a standalone coordinator over TCP (`mpcr coordinator --listen`),
# as for several hosts, on 127.0.0.1: checkpoint --exit at a random instant,
# then a new coordinator and `mpcr restart --coordinator`; the output must be
# the native run's. A connection without the job's secret is refused.
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
port=$((40000 + RANDOM % 20000))
addr=127.0.0.1:$port
timeout 120 mpiexec.mpich -n "$n" "$@" >"$T/ref" 2>/dev/null || fail "the native run failed"

start_coordinator() {
    timeout 200 "$MPCR" coordinator --listen "$addr" -n "$n" --ckpt-dir "$T/ck" 2>>"$T/coord.err" &
    coord=$!
    for _ in $(seq 100); do [ -S "$T/ck/coord.sock" ] && [ -s "$T/ck/coord.secret" ] && return; sleep 0.05; done
    fail "the coordinator did not start"
}

start_coordinator
# Without the secret, the coordinator answers nothing and starts nothing.
exec 3<>"/dev/tcp/127.0.0.1/$port" || fail "cannot connect to $addr"
echo checkpoint >&3
reply=$(timeout 15 cat <&3)
exec 3<&-
[ -z "$reply" ] || fail "a connection without the secret got an answer: $reply"

timeout 120 "$MPCR" run -n "$n" --coordinator "$addr" --ckpt-dir "$T/ck" "$@" >"$T/first" 2>"$T/run.err" &
job=$!
delay=$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.5 + r % 1500 / 1000 }')
sleep "$delay"
timeout 100 "$MPCR" checkpoint --exit "$T/ck" 2>"$T/ckpt.err" || fail "checkpoint after $delay s: $(cat "$T/ckpt.err")"
wait "$job" || fail "the job did not end with status 0 after checkpoint --exit"
wait "$coord" || fail "the coordinator did not end with its job"
[ -s "$T/ck/gen-1/manifest" ] || fail "no complete generation"
[ "$(ls "$T/ck/gen-1" | grep -c '^rank-.*\.img$')" = "$n" ] || fail "not $n images in gen-1"

start_coordinator
timeout 120 "$MPCR" restart --coordinator "$addr" "$T/ck" >"$T/second" 2>"$T/restart.err" ||
    fail "the restart failed"
wait "$coord" || fail "the second coordinator did not end with its job"
cat "$T/first" "$T/second" | sort | cmp -s - <(sort "$T/ref") ||
    fail "checkpointed at $delay s and restarted, the output differs from the native run's"
echo "coordinator.sh: PASS (checkpoint at $delay s over tcp:$addr, restarted, output equal)"
