#!/usr/bin/env bash
# The MPI job's coordinator notices its place taken away (issue 43, point 2;
# place_lost.sh does it for one process). A 2-rank ring runs with
# --interval 0.5 and rank 0 holds the job's end until told (CKPT_HOLD,
# tests/ckpt/ckpt.h). Then:
#  - its checkpoint directory is deleted: the job's stderr says so and that
#    interval checkpoints stop; `mpcr status` cannot reach it;
#  - a new directory of the same path is made: the coordinator listens there
#    again, interval checkpoints of both ranks (a complete manifest) go on
#    into it, and `mpcr status` finds the job;
#  - released, the job prints what an uninterrupted native run prints;
#  - `mpcr restart` from the newest generation of the new directory does too.
#   place_lost_mpi.sh PROGRAM ARGS...      (env MPCR; PROGRAM a tests/ckpt program)
set -u
name=place_lost_mpi
. "$(dirname "$0")/common.sh"
timeout 300 mpiexec.mpich -n 2 "$@" </dev/null >"$T/native.out" 2>"$T/native.err" || fail "the native run failed"
ck=$T/ck
CKPT_HOLD=$T/release timeout 300 "$MPCR" run -n 2 --interval 0.5 --keep 100 --ckpt-dir "$ck" "$@" \
    </dev/null >"$T/out" 2>"$T/job.err" &
run=$!
pids="$pids $run"
until_true manifest_in "$ck" || fail "no interval checkpoint"

delete_and_make_again "$ck"
until_true manifest_in "$ck" || fail "no interval checkpoint in the new directory: $(tail -3 "$T/job.err")"
"$MPCR" status "$ck" >"$T/status" 2>"$T/status.err" || fail "status in the new directory failed"
newest=$(ls -d "$ck"/gen-*/manifest | sed 's|.*/gen-\([0-9]*\)/manifest|\1|' | sort -n | tail -1)
for r in 0 1; do
    [ -s "$ck/gen-$newest/rank-$r.img" ] || fail "gen-$newest in the new directory lacks rank $r's image"
done

touch "$T/release"
wait "$run" || fail "the job failed: $(tail -5 "$T/job.err")"
cmp -s <(sort "$T/out") <(sort "$T/native.out") || fail "the job's output differs from the native run's"
grep -q "failed" "$T/job.err" && echo "reported: $(grep -c failed "$T/job.err") failed interval checkpoints"

# the newest generation of the new directory restarts to the native run's end
newest=$(ls -d "$ck"/gen-*/manifest | sed 's|.*/gen-\([0-9]*\)/manifest|\1|' | sort -n | tail -1)
timeout 300 "$MPCR" restart "$ck" </dev/null >"$T/restart.out" 2>"$T/restart.err" || fail "the restart from gen-$newest failed"
lines=$(wc -l <"$T/restart.out")
[ "$lines" -gt 0 ] || fail "the restart printed nothing"
cmp -s <(sort "$T/restart.out") <(tail -n "$lines" "$T/native.out" | sort) ||
    fail "the restart's output is not the end of the native run's"
echo "$name: PASS (taken up again $(grep -c "listening again" "$T/job.err") time(s); restarted from gen-$newest of the new directory)"
