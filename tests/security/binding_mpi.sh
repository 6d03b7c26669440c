#!/usr/bin/env bash
# An MPI job's files bound to their slots (issue 13, point 2): two jobs, A
# and B, of 2 ranks, each checkpointed with --exit. In copies of B's
# directory: rank 0's and rank 1's images swapped, A's rank-1 image in B's
# slot, A's rank-0 state file in B's slot. `mpcr restart` must refuse each
# with status 1 naming the file and whose it is (it used to run until the
# program's checks aborted, or hang), and the intact copy restarts to the
# native run's output.
#   binding_mpi.sh PROGRAM ARGS...     (env MPCR; 2 ranks)
set -u
name=binding_mpi
. "$(dirname "$0")/common.sh"
timeout 120 mpiexec.mpich -n 2 "$@" >"$T/ref" 2>/dev/null || fail "the native run failed"

# checkpointed TAG: job TAG in $T/TAG, checkpointed with --exit
checkpointed() {
    local tag=$1
    shift
    set -- "$tag" "$@"
    "$MPCR" run -n 2 --ckpt-dir "$T/$1" "${@:2}" >"$T/$1.out" 2>"$T/$1-run.err" &
    local run=$! try
    pids="$pids $run"
    sleep 0.2 # the loop below retries until the job has started
    for try in $(seq 120); do
        timeout -k 10 150 "$MPCR" checkpoint --exit "$T/$1" 2>"$T/$1-ck.err" && break
        kill -0 $run 2>/dev/null || fail "job $1 ended before its checkpoint"
        grep -qE "try again|nothing is running" "$T/$1-ck.err" || fail "job $1: checkpoint --exit failed"
        sleep 0.25
    done
    wait $run || fail "job $1 ended with status $? after checkpoint --exit"
}
checkpointed A "$@"
checkpointed B "$@"
ga=$(cd "$T/A" && ls -d gen-* | tail -1) gb=$(cd "$T/B" && ls -d gen-* | tail -1)

n=0
fresh() { rm -rf "$T/c" && cp -a "$T/B" "$T/c"; }
refused() {
    timeout -k 5 60 "$MPCR" restart "$T/c" >"$T/r.out" 2>"$T/r.err"
    local rc=$?
    [ $rc = 1 ] || fail "$1: mpcr restart ended with status $rc, not 1 ($(head -3 "$T/r.err"))"
    grep -q -- "$2" "$T/r.err" || fail "$1: the message does not say '$2': $(cat "$T/r.err")"
    echo "refused $1: $(grep -m1 restart "$T/r.err")"
    n=$((n + 1))
}
fresh && mv "$T/c/$gb/rank-0.img" "$T/c/x" && mv "$T/c/$gb/rank-1.img" "$T/c/$gb/rank-0.img" &&
    mv "$T/c/x" "$T/c/$gb/rank-1.img" && refused "rank images swapped" "rank-0.img belongs to .*rank 1, .*another rank's file"
fresh && cp "$T/A/$ga/rank-1.img" "$T/c/$gb/rank-1.img" && refused "job A's rank-1 image in B" "rank-1.img belongs to .*another job"
fresh && cp "$T/A/$ga/rank-0.state" "$T/c/$gb/rank-0.state" && refused "job A's rank-0 state in B" "rank-0.state belongs to .*another job"
fresh && timeout -k 10 120 "$MPCR" restart "$T/c" >"$T/r.out" 2>"$T/r.err" || fail "the intact copy did not restart: $(tail -3 "$T/r.err")"
# what B printed before its checkpoint, and what the restart printed after
cat "$T/B.out" "$T/r.out" | sort | cmp -s - <(sort "$T/ref") ||
    fail "the restarted job's output differs from the native run's: $(cat "$T/B.out" "$T/r.out")"
echo "$name: PASS ($n files of other slots refused; the intact copy restarted to the native output)"
