#!/usr/bin/env bash
# The commands around the engine: --interval takes checkpoints by itself and
# --keep prunes them; status answers while running and after; a second run
# on the same directory, a checkpoint with nobody running, a restart from an
# empty directory all fail with a message; restart of the newest interval
# image computes the uninterrupted result.
#   cli.sh BIN_DIR PROGRAM ROUNDS
set -u
bin=$1 prog=$2 rounds=$3
. "$(dirname "$0")/lib.sh"
test_init cli
"$prog" "$rounds" >"$T/ref"
"$bin/mpcr" run --no-mpi --interval 0.25 --keep 2 --ckpt-dir "$T/ck" "$prog" "$rounds" >"$T/out" 2>"$T/err" &
run=$!
sleep 0.5
"$bin/mpcr" status "$T/ck" | grep -q "running pid" || fail "status does not say running"
"$bin/mpcr" status --json "$T/ck" | grep -q "\"running\": true, \"job\": {\"pid\": [1-9]" || fail "status --json: $("$bin/mpcr" status --json "$T/ck")"
"$bin/mpcr" run --no-mpi --ckpt-dir "$T/ck" true 2>"$T/err2" && fail "a second run on the same directory started"
grep -q "already running" "$T/err2" || fail "second run: $(cat "$T/err2")"
wait $run || fail "the run failed: $(cat "$T/err")"
cmp -s "$T/ref" "$T/out" || fail "interval checkpoints changed the result"
complete=$(ls "$T"/ck/gen-*/manifest | wc -l)
highest=$(ls -d "$T"/ck/gen-* | sed 's/.*gen-//' | sort -n | tail -1)
# the newest 2, and the generations they refer to (increments: docs/incremental.md)
"$(dirname "$0")/kept_ok.py" "$T/ck" 2 >/dev/null 2>"$T/err_kept" || fail "$(cat "$T/err_kept")"
[ "$highest" -ge 3 ] || fail "only $highest interval checkpoints"
"$bin/mpcr" status "$T/ck" | grep -q "no process running; newest complete checkpoint gen-$highest" ||
    fail "status after the run: $("$bin/mpcr" status "$T/ck")"
"$bin/mpcr" checkpoint "$T/ck" 2>"$T/err3" && fail "checkpoint with nobody running succeeded"
grep -q "nothing is running" "$T/err3" || fail "checkpoint: $(cat "$T/err3")"
timeout 60 "$bin/mpcr" restart "$T/ck" >"$T/out2" 2>"$T/err4" || fail "restart failed: $(cat "$T/err4")"
cmp -s "$T/ref" "$T/out2" || fail "restart of gen-$highest computed $(cat "$T/out2")"
mkdir "$T/empty"
"$bin/mpcr" restart "$T/empty" 2>"$T/err5" && fail "restart from an empty directory succeeded"
grep -q "no complete checkpoint" "$T/err5" || fail "restart: $(cat "$T/err5")"
# A refusal travels to `mpcr checkpoint` (status 1, the cause named) and the process goes on.
"$bin/mpcr" run --no-mpi --ckpt-dir "$T/ck2" sh -c 'sleep 1.5; echo finished' >"$T/out3" 2>"$T/err6" &
run=$!
sleep 0.5
"$bin/mpcr" checkpoint "$T/ck2" 2>"$T/err7" && fail "a process with a child was checkpointed"
grep -q "checkpoint failed: the process has a child process" "$T/err7" || fail "refusal: $(cat "$T/err7")"
wait $run || fail "the refused process did not go on"
grep -qx finished "$T/out3" || fail "the refused process did not finish"
ls "$T"/ck2/gen-* >/dev/null 2>&1 && fail "a refused generation was left behind"
echo "cli: PASS ($highest interval checkpoints, $complete kept; refusal reported: $(cat "$T/err7"))"
