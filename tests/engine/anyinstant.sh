#!/usr/bin/env bash
# Checkpoints at random instants: st_checksum (4 threads) is checkpointed and
# let go on at 8 random moments; its own result, and the result of every
# image restored and run to the end, must equal the uninterrupted run's.
# With --user USER, all of it runs unprivileged.
#   anyinstant.sh BIN_DIR RESTORER PROGRAM ROUNDS [--user USER]
set -u
bin=$1 restore=$2 prog=$3 rounds=$4
shift 4
. "$(dirname "$0")/lib.sh"
test_init anyinstant
[ "${1:-}" = "--user" ] && run_as "$2"
"$prog" "$rounds" >"$T/ref"
as "$bin/mpcr" run --no-mpi --keep 100 --ckpt-dir "$T/ck" "$prog" "$rounds" >"$T/out0" 2>"$T/err0" &
run=$!
taken=0
for i in $(seq 8); do
    sleep "$(printf 0.%02d $((RANDOM % 18 + 2)))"
    kill -0 $run 2>/dev/null || break
    as "$bin/mpcr" checkpoint "$T/ck" 2>>"$T/err_ck" && taken=$((taken + 1))
done
wait $run || fail "the checkpointed run failed: $(cat "$T/err0")"
cmp -s "$T/ref" "$T/out0" || fail "the checkpointed run computed $(cat "$T/out0"), not $(cat "$T/ref")"
[ $taken -ge 4 ] || fail "only $taken checkpoints were taken (the run ended too soon?)"
n=0
for img in "$T"/ck/gen-*/rank-0.img; do
    as timeout 60 "$restore" "$img" >"$T/out" 2>"$T/err" || fail "restoring $img failed: $(cat "$T/err")"
    cmp -s "$T/ref" "$T/out" || fail "$img restored computed $(cat "$T/out"), not $(cat "$T/ref")"
    n=$((n + 1))
done
echo "anyinstant: PASS ($n images from random instants, each restored and run to the end${as_user:+, as $as_user})"
