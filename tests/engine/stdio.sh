#!/usr/bin/env bash
# stdio across checkpoints: st_stdio's output through several
# checkpoint-and-continue rounds, then checkpoint --exit and restart, must be
# byte for byte the output of an uninterrupted run.   stdio.sh BIN_DIR PROGRAM
set -u
bin=$1 prog=$2
T=$(mktemp -d /tmp/mpcr-stdio.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$prog" >"$T/ref"
"$bin/mpcr" run --no-mpi --ckpt-dir "$T/ck" "$prog" >"$T/out1" 2>"$T/err1" &
run=$!
for i in 1 2 3; do
    sleep 0.3
    "$bin/mpcr" checkpoint "$T/ck" 2>>"$T/err_ck" || { echo "checkpoint $i failed"; cat "$T/err_ck"; exit 1; }
done
sleep 0.2
"$bin/mpcr" checkpoint --exit "$T/ck" 2>>"$T/err_ck" || { echo "checkpoint --exit failed"; cat "$T/err_ck"; exit 1; }
wait $run || { echo "run failed"; cat "$T/err1"; exit 1; }
timeout 60 "$bin/mpcr" restart "$T/ck" >"$T/out2" 2>"$T/err2" || { echo "restart failed"; cat "$T/err2"; exit 1; }
cat "$T/out1" "$T/out2" >"$T/all"
if ! cmp -s "$T/ref" "$T/all"; then
    echo "stdio: output differs from the uninterrupted run ($(wc -l <"$T/ref") vs $(wc -l <"$T/all") lines)"
    diff "$T/ref" "$T/all" | head -5
    exit 1
fi
echo "stdio: PASS ($(wc -l <"$T/out1") lines before, $(wc -l <"$T/out2") after the restart)"
