#!/usr/bin/env bash
# A forked image writer killed before it could report: `mpcr checkpoint`
# fails at once and says so, the incomplete generation is removed, the
# process goes on, and the next checkpoint works.
#   writer_killed.sh BIN_DIR RESIDENT_PROGRAM
set -u
bin=$1 prog=$2
. "$(dirname "$0")/lib.sh"
test_init writer_killed
export BENCH_DIR=$T
"$bin/mpcr" run --no-mpi --ckpt-dir "$T/ck" "$prog" 512 >"$T/out" 2>"$T/err" &
run=$!
while [ ! -e "$T/ready" ]; do kill -0 $run 2>/dev/null || fail "the program did not start"; sleep 0.05; done
program=$(pgrep -P $run)
"$bin/mpcr" checkpoint "$T/ck" 2>"$T/err_ck1" &
ck=$!
writer=""
for _ in $(seq 200); do # the writer: the coordinator's other child
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
touch "$T/go"
wait $run || fail "the run failed: $(cat "$T/err")"
echo "writer_killed: PASS"
