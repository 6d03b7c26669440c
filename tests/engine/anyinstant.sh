#!/usr/bin/env bash
# Checkpoints at random instants: st_checksum (4 threads) is checkpointed and
# let go on at CHECKPOINTS random moments (default 8); its own result, and
# the result of every image restored and run to the end (two at a time),
# must equal the uninterrupted run's. With --user USER, all of it runs
# unprivileged.
#   [CHECKPOINTS=N] anyinstant.sh BIN_DIR RESTORER PROGRAM ROUNDS [--user USER]
set -u
bin=$1 restore=$2 prog=$3 rounds=$4
shift 4
. "$(dirname "$0")/lib.sh"
test_init anyinstant
[ "${1:-}" = "--user" ] && run_as "$2"
"$prog" "$rounds" >"$T/ref"
as "$bin/mpcr" run --no-mpi --keep 100 --ckpt-dir "$T/ck" "$prog" "$rounds" >"$T/out0" 2>"$T/err0" &
run=$!
taken=0 want=${CHECKPOINTS:-8}
spread=$((want > 8 ? 6 : 18)) # many checkpoints: closer together, within one run
for i in $(seq "$want"); do
    sleep "$(printf 0.%02d $((RANDOM % spread + 2)))"
    kill -0 $run 2>/dev/null || break
    as "$bin/mpcr" checkpoint "$T/ck" 2>>"$T/err_ck" && taken=$((taken + 1))
done
wait $run || fail "the checkpointed run failed: $(cat "$T/err0")"
cmp -s "$T/ref" "$T/out0" || fail "the checkpointed run computed $(cat "$T/out0"), not $(cat "$T/ref")"
[ $taken -ge $((want * 3 / 4)) ] || fail "only $taken of $want checkpoints were taken (the run ended too soon?)"
# Restore every image and run it to the end, two at a time (2 cores).
n=0
for img in "$T"/ck/gen-*/rank-0.img; do
    g=$(basename "$(dirname "$img")")
    as timeout 120 "$restore" "$img" >"$T/out.$g" 2>"$T/err.$g" &
    n=$((n + 1))
    [ $((n % 2)) = 0 ] && wait
done
wait
for img in "$T"/ck/gen-*/rank-0.img; do
    g=$(basename "$(dirname "$img")")
    cmp -s "$T/ref" "$T/out.$g" ||
        fail "$img restored computed '$(cat "$T/out.$g")', not $(cat "$T/ref"): $(cat "$T/err.$g")"
done
echo "anyinstant: PASS ($n images from random instants, each restored and run to the end${as_user:+, as $as_user})"
