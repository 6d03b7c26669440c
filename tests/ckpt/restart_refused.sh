#!/usr/bin/env bash
# A job that can be checkpointed but not restarted (yet): a checkpoint the
# job survives (taken half-way, where the program calls midway_for_harness),
# the job's output equal to an uninterrupted native run's (mpiexec.mpich),
# then `mpcr restart` from that checkpoint must fail within 60 s, print a
# line matching MESSAGE (an extended regular expression), and leave no
# process of the program.
#   restart_refused.sh NPROCS MESSAGE PROGRAM ARGS...
# Environment: MPCR (the mpcr binary).
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
n=$1 message=$2
shift 2
dir=$(mktemp -d)
job=
trap '[ -n "$job" ] && kill $job 2>/dev/null; rm -rf "$dir"' EXIT
fail() {
    echo "restart_refused.sh: FAIL: $*"
    [ -n "$job" ] && touch "$dir/midway" "$dir/hold" && sleep 2 # a job still held ends
    exit 1
}
mpiexec.mpich -n "$n" "$@" >"$dir/native.out" 2>&1 || fail "the native run failed: $(tail -3 "$dir/native.out")"
CKPT_MIDWAY=$dir/midway CKPT_HOLD=$dir/hold "$MPCR" run -n "$n" --ckpt-dir "$dir/ck" "$@" >"$dir/run.out" 2>&1 &
job=$!
for ((i = 0; i < 1200; i++)); do
    [ -e "$dir/midway.reached" ] && break
    kill -0 $job 2>/dev/null || fail "the job ended before half-way: $(tail -3 "$dir/run.out")"
    sleep 0.1
done
[ -e "$dir/midway.reached" ] || fail "the job did not get half-way in 120 s"
"$MPCR" checkpoint "$dir/ck" >"$dir/ck.out" 2>&1 || fail "the checkpoint failed: $(tail -3 "$dir/ck.out")"
touch "$dir/midway" "$dir/hold"
wait $job || { job= && fail "the job failed after the checkpoint: $(tail -3 "$dir/run.out")"; }
job=
grep -v '^mpcr:' "$dir/run.out" | diff "$dir/native.out" - >/dev/null ||
    fail "the output differs from the native run's: $(diff "$dir/native.out" "$dir/run.out" | head -5)"
timeout 60 "$MPCR" restart "$dir/ck" >"$dir/restart.out" 2>&1
rc=$?
[ $rc = 124 ] && fail "the restart did not end within 60 s"
[ $rc != 0 ] || fail "the restart succeeded: $(tail -3 "$dir/restart.out")"
grep -Eq "$message" "$dir/restart.out" || fail "no line matches '$message': $(tail -3 "$dir/restart.out")"
left="^$1|-- $1" # the program, its proxies (not this script, which names it too)
for ((i = 0; i < 300; i++)); do # the restored processes and proxies end on their own
    pgrep -f "$left" >/dev/null || break
    sleep 0.1
done
pgrep -f "$left" >/dev/null && fail "a process of $1 is left 30 s after the restart ended: $(pgrep -af "$left" | head -3)"
echo "restart_refused.sh: PASS (checkpointed, output equal to the native run's; restart refused: $(grep -Em1 "$message" "$dir/restart.out"))"
