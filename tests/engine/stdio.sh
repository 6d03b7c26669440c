#!/usr/bin/env bash
# stdio across checkpoints: st_stdio's output through several
# checkpoint-and-continue rounds, then checkpoint --exit and restart, must be
# byte for byte the output of an uninterrupted run. With --user USER, the
# job, its checkpoints and the restart run unprivileged.
#   stdio.sh BIN_DIR PROGRAM [--user USER]
set -u
bin=$1 prog=$2
shift 2
. "$(dirname "$0")/lib.sh"
test_init stdio
[ "${1:-}" = "--user" ] && run_as "$2"
"$prog" >"$T/ref"
export ZDTM_DIR=$T # the program waits for $T/go before it ends
as "$bin/mpcr" run --no-mpi --ckpt-dir "$T/ck" "$prog" >"$T/out1" 2>"$T/err1" &
run=$!
wait_running "$T/ck" $run || fail "the job never answered on its checkpoint directory"
for i in 1 2 3; do
    sleep 0.3
    as "$bin/mpcr" checkpoint "$T/ck" 2>>"$T/err_ck" || fail "checkpoint $i failed"
done
sleep 0.2
as "$bin/mpcr" checkpoint --exit "$T/ck" 2>>"$T/err_ck" || fail "checkpoint --exit failed"
wait $run || fail "run failed"
touch "$T/go"
as timeout 60 "$bin/mpcr" restart "$T/ck" >"$T/out2" 2>"$T/err2" || fail "restart failed"
cat "$T/out1" "$T/out2" >"$T/all"
if ! cmp -s "$T/ref" "$T/all"; then
    diff "$T/ref" "$T/all" | head -5
    fail "output differs from the uninterrupted run ($(wc -l <"$T/ref") vs $(wc -l <"$T/all") lines)"
fi
echo "stdio: PASS ($(wc -l <"$T/out1") lines before, $(wc -l <"$T/out2") after the restart${as_user:+, as $as_user})"
