#!/usr/bin/env bash
# The coordinator notices its place taken away (issue 43, point 2). A process
# runs with --interval 0.3 and holds its end until told (a file). Then:
#  - its checkpoint directory is deleted: the job's stderr says so at once
#    and that interval checkpoints stop, and why; `mpcr status` cannot reach it;
#  - a new directory of the same path is made: the coordinator listens there
#    again (a new coord.sock), interval checkpoints go on into it, and
#    `mpcr status` finds the job;
#  - the directory is swapped for a new one in one step: said, and taken up;
#  - a new directory writable by others: refused by the checks of a start,
#    said, no checkpoints there;
#  - the process is stopped (SIGSTOP): `mpcr checkpoint` gives up after
#    MPCR_CKPT_TIMEOUT (5 s here) saying it is stopped.
# The process then ends as an uninterrupted run of it does.
#   place_lost.sh ST_HEAP      (env MPCR)
set -u
name=place_lost
. "$(dirname "$0")/common.sh"
prog=$1 # an engine state test (st_heap): holds its end until $ZDTM_DIR/go exists
"$prog" >"$T/native.out" || fail "the native run failed" # without ZDTM_DIR it does not wait
ck=$T/ck
mkdir "$T/z"
ZDTM_DIR=$T/z MPCR_CKPT_TIMEOUT=5 timeout 120 "$MPCR" run --no-mpi --interval 0.3 --ckpt-dir "$ck" "$prog" \
    >"$T/out" 2>"$T/job.err" &
run=$!
pids="$pids $run"
taken_up() { [ "$(grep -c "listening again" "$T/job.err")" -gt "$1" ]; }
wait_for -s "$ck/gen-1/manifest" || fail "no interval checkpoint"

delete_and_make_again "$ck"
until_true manifest_in "$ck" || fail "no interval checkpoint in the new directory"
"$MPCR" status "$ck" | grep -q "running pid" || fail "status: $("$MPCR" status "$ck" 2>&1)"

before=$(grep -c "listening again" "$T/job.err")
delete_dir "$ck" && mkdir -m 0700 "$ck"
until_true taken_up "$before" || fail "the swapped directory was not taken up"
grep -q "$ck was replaced by another directory of that name\|$ck was deleted" "$T/job.err" || fail "the swap was not said"

delete_dir "$ck" && mkdir -m 0777 "$ck"
says "$ck is writable by other users" || fail "a directory others can write was not refused: $(tail -3 "$T/job.err")"
chmod 0700 "$ck"
until_true taken_up "$((before + 1))" || fail "not taken up once private"

pid=$(pgrep -f -- "$prog" | while read -r p; do [ "$(cat /proc/$p/comm)" = "$(basename "$prog")" ] && echo "$p"; done | head -1)
[ -n "$pid" ] || fail "no process"
kill -STOP "$pid"
# the interval's next checkpoint meets the stop, gives up after the limit and says why;
# `mpcr checkpoint` gets the same answer unless it met that one in progress
"$MPCR" checkpoint "$ck" 2>"$T/ck.err" && fail "a checkpoint of a stopped process succeeded"
grep -q "is stopped (SIGSTOP, or a debugger).*gave up after 5 s (MPCR_CKPT_TIMEOUT)\|already in progress" "$T/ck.err" ||
    fail "stopped: $(cat "$T/ck.err")"
says "failed: the process (pid $pid) is stopped (SIGSTOP, or a debugger): it cannot write its image until it goes on" ||
    fail "the interval checkpoint of the stopped process: $(tail -2 "$T/job.err")"
kill -CONT "$pid"

touch "$T/z/go"
wait "$run" || fail "the job failed: $(tail -5 "$T/job.err")"
cmp -s "$T/out" "$T/native.out" || fail "the job printed '$(cat "$T/out")', the native run '$(cat "$T/native.out")'"
echo "$name: PASS ($(grep -c "listening again" "$T/job.err") times taken up again; $(grep -c "failed" "$T/job.err") failed interval checkpoints reported)"
