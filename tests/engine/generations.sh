#!/usr/bin/env bash
# One process through 20 generations of checkpoint --exit and restart: the
# final result must equal the uninterrupted run's.
#   generations.sh BIN_DIR PROGRAM ROUNDS
set -u
bin=$1 prog=$2 rounds=$3
. "$(dirname "$0")/lib.sh"
test_init generations
"$prog" "$rounds" >"$T/ref"
"$bin/mpcr" run --no-mpi --ckpt-dir "$T/ck" "$prog" "$rounds" >"$T/out0" 2>"$T/err0" &
pid=$!
for g in $(seq 20); do
    wait_running "$T/ck" $pid # if it ended instead, the checkpoint below says how
    sleep "$(printf 0.%02d $((RANDOM % 10 + 5)))"
    if ! "$bin/mpcr" checkpoint --exit "$T/ck" 2>"$T/err_ck"; then
        kill -0 $pid 2>/dev/null || wait $pid
        [ -s "$T/out$((g - 1))" ] && fail "generation $g: the computation finished before it (give it more rounds)"
        fail "generation $g: checkpoint failed: $(cat "$T/err_ck")"
    fi
    wait $pid || fail "generation $g: the process did not end cleanly"
    [ -s "$T/out$((g - 1))" ] && fail "generation $g: the computation finished too early"
    "$bin/mpcr" restart "$T/ck" >"$T/out$g" 2>"$T/err$g" &
    pid=$!
done
wait $pid || fail "the last restart failed"
cmp -s "$T/ref" "$T/out20" || fail "after 20 generations: $(cat "$T/out20"), expected $(cat "$T/ref")"
echo "generations: PASS (20 checkpoint/kill/restart cycles, result equal to the uninterrupted run)"
