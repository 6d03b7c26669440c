#!/usr/bin/env bash
# The forked image writer (docs/engine.md) in its two hard cases:
# 1. killed before it could report: `mpcr checkpoint` fails at once and
#    says so, the incomplete generation is removed, the process goes on,
#    and the next checkpoint works;
# 2. the process ends while its copy still writes: the checkpoint completes
#    all the same, and a restart from it reaches the same end.
#   forked_writer.sh BIN_DIR RESIDENT_PROGRAM
set -u
bin=$1 prog=$2
. "$(dirname "$0")/lib.sh"
test_init forked_writer
export BENCH_DIR=$T
"$bin/mpcr" run --no-mpi --ckpt-dir "$T/ck" "$prog" 512 >"$T/out" 2>"$T/err" &
run=$!
while [ ! -e "$T/ready" ]; do kill -0 $run 2>/dev/null || fail "the program did not start"; sleep 0.05; done
program=$(pgrep -P $run)

# 1. The writer is the coordinator's other child.
"$bin/mpcr" checkpoint "$T/ck" 2>"$T/err_ck1" &
ck=$!
writer=""
for _ in $(seq 200); do
    writer=$(pgrep -P $run | grep -vx "$program" | head -1)
    [ -n "$writer" ] && break
    sleep 0.01
done
[ -n "$writer" ] || fail "no forked writer seen"
kill -9 "$writer"
timeout 30 tail --pid=$ck -f /dev/null || fail "mpcr checkpoint still waits after its writer was killed"
wait $ck && fail "the checkpoint succeeded although its writer was killed"
grep -q "image writer was killed by signal 9" "$T/err_ck1" || fail "checkpoint said: $(cat "$T/err_ck1")"
[ -e "$T/ck/gen-1" ] && fail "the incomplete generation is still there"
kill -0 "$program" || fail "the process did not go on"
"$bin/mpcr" checkpoint "$T/ck" 2>"$T/err_ck2" || fail "the next checkpoint failed: $(cat "$T/err_ck2")"
[ -e "$T/ck/gen-2/manifest" ] || fail "no complete gen-2"

# 2. The program ends (go) as soon as its copy exists.
"$bin/mpcr" checkpoint "$T/ck" 2>"$T/err_ck3" &
ck=$!
for _ in $(seq 200); do
    [ -n "$(pgrep -P $run | grep -vx "$program")" ] && break
    sleep 0.01
done
touch "$T/go"
wait $run || fail "the run failed: $(cat "$T/err")"
wait $ck || fail "the checkpoint failed when the process ended during its write: $(cat "$T/err_ck3")"
grep -q "written by a forked copy" "$T/err_ck3" || fail "checkpoint 3 said: $(cat "$T/err_ck3")"
[ -e "$T/ck/gen-3/manifest" ] || fail "no complete gen-3"
rm -f "$T/resumed"
timeout 60 "$bin/mpcr" restart "$T/ck" >"$T/out2" 2>"$T/err2" || fail "restart from gen-3 failed"
[ -e "$T/resumed" ] || fail "the restarted process did not reach its end"
echo "forked_writer: PASS"
