#!/usr/bin/env bash
# The coordinator dies in the middle of a checkpoint: the job must not stay
# stopped. A standalone `mpcr coordinator` is made to end at a chosen point
# (MPCR_COORD_FAULT, src/coord/fault.h): with every rank quiesced; with the
# programs writing their images in place; when the first image report
# arrives (its engine waits for the answer); with forked writers at work.
# Each time `mpcr checkpoint` must fail, the job go on without checkpoints,
# say so once on stderr, and end with status 0 and the native run's output;
# no manifest may exist.
#   coord_lost.sh NPROCS PROGRAM ARGS...       (env MPCR)
set -u
n=$1
shift
prog=("$@")
name=coord_lost.sh
. "$(dirname "$0")/coord_common.sh"
. "$(dirname "$0")/../native_run.sh"
native_run "$T/ref" "$T/native.stderr" "$n" "${prog[@]}" || fail "the native run failed"
sort "$T/ref" >"$T/ref.s"

# lost POINT FORK: a coordinator that ends at POINT, with forked writers or not (FORK 1/0)
lost() {
    local point=$1 fork=$2 ck=$T/ck-$1-$2 what="$1 (forked writers: $2)"
    rm -f "$T"/*.err
    MPCR_COORD_FAULT=$point MPCR_CKPT_FORK=$fork start_coordinator "$ck" "$n"
    local addr=127.0.0.1:$port
    # the job holds its end (tests/ckpt/ckpt.h, CKPT_HOLD) until the checkpoint has failed
    CKPT_HOLD=$T/release-$1-$2 timeout 150 "$MPCR" run -n "$n" --coordinator "$addr" --ckpt-dir "$ck" "${prog[@]}" \
        >"$T/out" 2>"$T/run.err" &
    local job=$!
    pids="$pids $job"
    sleep 1
    for try in $(seq 50); do # "try again in a moment": the ranks have not all started
        timeout 100 "$MPCR" checkpoint "$ck" 2>"$T/ckpt.err" && fail "$what: the checkpoint succeeded"
        grep -q "try again" "$T/ckpt.err" && [ "$try" -lt 50 ] || break
        sleep 0.2
    done
    touch "$T/release-$1-$2"
    wait "$coord"
    local st=$?
    [ "$st" = 86 ] || fail "$what: the coordinator ended with status $st, not at the injected fault"
    wait "$job" || fail "$what: the job did not end with status 0 after its coordinator died"
    sort "$T/out" | cmp -s - "$T/ref.s" || fail "$what: the output differs from the native run's"
    [ "$(grep -c 'coordinator has gone' "$T/run.err")" = 1 ] ||
        fail "$what: stderr does not say once that the coordinator has gone"
    ls "$ck"/gen-*/manifest >/dev/null 2>&1 && fail "$what: a manifest was written"
    echo "coord_lost.sh: $what: the job went on and ended as natively"
}

lost quiesce 1
lost image 0
lost report 0
lost snapshot 1
lost report 1
echo "coord_lost.sh: PASS"
