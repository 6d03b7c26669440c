#!/usr/bin/env bash
# Checkpoints at random instants: st_checksum (4 threads) is checkpointed and
# let go on at CHECKPOINTS random moments (default 8), each one waited for
# before the next is asked. A run that ends before all are taken is
# followed by another, which takes the rest: how many a run takes depends
# on how fast the machine is at the time, how many the test takes does not.
# Every run must take at least one, and a checkpoint may fail only because
# its run ended meanwhile. The result of every run, and of every image
# restored and run to the end (two at a time), must equal the
# uninterrupted run's. With --user USER, all of it runs unprivileged.
#   [CHECKPOINTS=N] anyinstant.sh BIN_DIR RESTORER PROGRAM ROUNDS [--user USER]
set -u
bin=$1 restore=$2 prog=$3 rounds=$4
shift 4
. "$(dirname "$0")/lib.sh"
test_init anyinstant
[ "${1:-}" = "--user" ] && run_as "$2"
"$prog" "$rounds" >"$T/ref"
want=${CHECKPOINTS:-8}
spread=$((want > 8 ? 6 : 18)) # many checkpoints: closer together
taken=0 runs=0 run=
trap '[ -n "$run" ] && kill "$run" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

# ended_meanwhile: the run ended (within 10 s) after a checkpoint failed.
ended_meanwhile() {
    for _ in $(seq 40); do
        kill -0 "$run" 2>/dev/null || return 0
        sleep 0.25
    done
    return 1
}

while [ $taken -lt "$want" ]; do
    runs=$((runs + 1)) ck=$T/ck$runs got=0
    as "$bin/mpcr" run --no-mpi --keep 100 --ckpt-dir "$ck" "$prog" "$rounds" >"$T/out$runs" 2>"$T/err$runs" &
    run=$!
    while [ $taken -lt "$want" ]; do
        sleep "$(printf 0.%02d $((RANDOM % spread + 2)))"
        kill -0 "$run" 2>/dev/null || break
        if as "$bin/mpcr" checkpoint "$ck" 2>"$T/err_ck"; then
            taken=$((taken + 1)) got=$((got + 1))
        else
            ended_meanwhile || fail "checkpoint $((taken + 1)) failed while run $runs went on: $(cat "$T/err_ck")"
            break
        fi
    done
    wait "$run" || fail "checkpointed run $runs failed: $(cat "$T/err$runs")"
    run=
    cmp -s "$T/ref" "$T/out$runs" || fail "checkpointed run $runs computed $(cat "$T/out$runs"), not $(cat "$T/ref")"
    [ $got -gt 0 ] || fail "run $runs ended before any checkpoint was taken ($taken of $want so far)"
    echo "run $runs: $got checkpoints taken ($taken of $want)"
done
# Restore every image and run it to the end, two at a time (2 cores).
n=0
for img in "$T"/ck*/gen-*/rank-0.img; do
    g=$(basename "$(dirname "$(dirname "$img")")")-$(basename "$(dirname "$img")")
    as timeout 120 "$restore" "$img" >"$T/out.$g" 2>"$T/err.$g" &
    n=$((n + 1))
    [ $((n % 2)) = 0 ] && wait
done
wait
[ $n = "$want" ] || fail "$want checkpoints were taken, but $n images are there"
for img in "$T"/ck*/gen-*/rank-0.img; do
    g=$(basename "$(dirname "$(dirname "$img")")")-$(basename "$(dirname "$img")")
    cmp -s "$T/ref" "$T/out.$g" ||
        fail "$img restored computed '$(cat "$T/out.$g")', not $(cat "$T/ref"): $(cat "$T/err.$g")"
done
echo "anyinstant: PASS ($n images from random instants in $runs runs, each restored and run to the end${as_user:+, as $as_user})"
