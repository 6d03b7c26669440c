#!/usr/bin/env bash
# Mutation fuzzing of mpcr's file readers (mutate.h): makes a valid file,
# then runs the driver over damaged copies of it.
#   run.sh image RESTORER ST_REFUSE FUZZ_IMAGE     the restorer's image reader
#   run.sh state MPCR STATE_SEED FUZZ_STATE        the proxy's state_load
# MUTATE_ITERATIONS (default: the driver's, sized for CI) and MUTATE_SEED
# (default fixed) are passed on; a failing input is kept and named.
set -u
what=$1
T=$(mktemp -d "/tmp/mpcr-fuzz-$what.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail() { echo "FAIL (fuzz $what): $*"; exit 1; }
case $what in
image)
    restore=$2 prog=$3 driver=$4
    "$prog" "$T/seed.img" >"$T/seed.out" 2>&1 || fail "the program that writes the seed image failed: $(tail -3 "$T/seed.out")"
    grep -q '^written$' "$T/seed.out" || fail "no seed image written"
    mkdir "$T/work"
    "$driver" "$restore" "$T/seed.img" "$T/work" || { KEEP=1; fail "see above; scratch kept in $T"; }
    ;;
state)
    mpcr=$2 prog=$3 driver=$4
    export STATE_SEED_FILE=$T/seed.dat # the seed's open file (the files section)
    timeout -k 5 120 "$mpcr" run -n 1 --ckpt-dir "$T/ck" "$prog" </dev/null >"$T/seed.out" 2>"$T/seed.err" &
    job=$!
    for _ in $(seq 600); do grep -q '^ready$' "$T/seed.out" && break; sleep 0.1; done
    grep -q '^ready$' "$T/seed.out" || { kill $job; fail "the seed job did not start: $(tail -3 "$T/seed.err")"; }
    for _ in $(seq 100); do "$mpcr" checkpoint --exit "$T/ck" >/dev/null 2>"$T/ck.err" && break; sleep 0.2; done
    wait $job || fail "the seed job failed after its checkpoint: $(tail -3 "$T/seed.err") $(cat "$T/ck.err")"
    state=$(ls "$T"/ck/gen-*/rank-0.state 2>/dev/null | tail -1)
    [ -s "$state" ] || fail "no rank-0.state was written: $(cat "$T/ck.err")"
    mkdir "$T/work"
    "$driver" "$state" "$T/work" || { KEEP=1; fail "see above; scratch kept in $T"; }
    ;;
*) echo "usage: run.sh image|state ..." >&2 && exit 2 ;;
esac
