#!/usr/bin/env bash
# Restart state is outcomes, not recipes: a job that has made and freed
# thousands of communicators leaves a state file (rank-R.state) no bigger
# than one that made a handful, and its restart ends with the native run's
# output. Prints both jobs' state sizes and restart times (not asserted).
#   record_size.sh MPCR PROGRAM   (PROGRAM: ckpt_comms)
set -u
mpcr=$1 prog=$2
T=$(mktemp -d /tmp/mpcr-record-size.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "record_size: $*"; for f in "$T"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -5 "$f"; }; done; exit 1; }

# Each stage says when it ends, so that a run stopped by ctest's timeout shows
# where it was: slowness on a loaded machine, or a hang.
T0=$(date +%s.%N)
stage() { echo "record_size: $(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $T0}") s: $*"; }

# run NAME CHURN: round 0 makes and frees CHURN communicators; checkpoint
# --exit once it is done (while rank 0 computes in round 1), then restart.
run() {
    local name=$1 churn=$2 args="3 600 $2 1"
    mpiexec.mpich -n 2 "$prog" $args >"$T/$name.ref" 2>/dev/null || fail "$name: the native run failed"
    stage "$name: native run done"
    "$mpcr" run -n 2 --ckpt-dir "$T/$name" "$prog" $args >"$T/$name.out" 2>"$T/$name.run.err" &
    local job=$!
    # as long as the job lives (ctest's timeout catches a hang): on a loaded
    # machine round 0 of "many" took over a minute
    while kill -0 $job 2>/dev/null && ! grep -q "round 0 done" "$T/$name.out"; do sleep 0.05; done
    grep -q "round 0 done" "$T/$name.out" || fail "$name: the job ended before round 0 did"
    stage "$name: round 0 done under mpcr"
    "$mpcr" checkpoint --exit "$T/$name" 2>"$T/$name.ck.err" || fail "$name: the checkpoint failed"
    wait $job
    stage "$name: checkpointed"
    local bytes
    bytes=$(cat "$T/$name"/gen-1/rank-*.state | wc -c)
    local t0 t1
    t0=$(date +%s.%N)
    "$mpcr" restart "$T/$name" >>"$T/$name.out" 2>"$T/$name.restart.err" || fail "$name: the restart failed"
    t1=$(date +%s.%N)
    stage "$name: restarted job ended"
    sort "$T/$name.ref" >"$T/a"; sort -u "$T/$name.out" >"$T/b"
    cmp -s "$T/a" "$T/b" || fail "$name: output differs from the native run's: $(diff "$T/a" "$T/b" | head -5)"
    echo "$bytes $(awk "BEGIN {print $t1 - $t0}")" >"$T/$name.result"
}
run few 1
run many 3000
read -r few_bytes few_s <"$T/few.result"
read -r many_bytes many_s <"$T/many.result"
echo "state files: $few_bytes bytes after 1 communicator freed per round, $many_bytes after 3000; restart $few_s s vs $many_s s"
# The files also hold what is pending at the cut (a receive, a cached
# message: up to a few hundred bytes, depending on where the checkpoint
# lands); a record of recipes would add at least 8 bytes per communicator
# ever made, 24 KB for 3000.
[ "$many_bytes" -le $((few_bytes + 1024)) ] || fail "3000 freed communicators grew the state from $few_bytes to $many_bytes bytes"
echo "record_size: PASS"
