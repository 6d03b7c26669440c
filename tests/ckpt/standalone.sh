# Sourced by coordinator.sh and hosts.sh (and tests/batch/exec_hosts.sh): a standalone coordinator and a
# checkpoint --exit of the job it serves. The caller sets T (scratch), MPCR,
# addr (A.B.C.D:PORT), n (ranks), ck (the checkpoint directory) and fail().

# hold_job_ends: the jobs started from now on (not the native run) hold
# their final report (tests/ckpt/ckpt.h, CKPT_HOLD) until release_hold, so
# a checkpoint cannot come after the job's end however fast the machine.
hold_job_ends() { export CKPT_HOLD=$T/release; }
release_hold() { touch "$T/release"; }

# Starts `mpcr coordinator` on $addr and $ck; waits until it answers.
start_coordinator() {
    rm -f "$ck/coord.secret"
    timeout 200 "$MPCR" coordinator --listen "$addr" -n "$n" --ckpt-dir "$ck" 2>>"$T/coord.err" &
    coord=$!
    for _ in $(seq 100); do [ -S "$ck/coord.sock" ] && [ -s "$ck/coord.secret" ] && return; sleep 0.05; done
    fail "the coordinator did not start"
}

# After a random 0.5-2 s, checkpoint --exit of the job whose pid is $1; the
# job and the coordinator must end, and gen-$2 be complete with n images.
delays=
checkpoint_exit() {
    delay=$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.5 + r % 1500 / 1000 }')
    delays="$delays $delay"
    sleep "$delay"
    for try in $(seq 30); do # "try again in a moment": the ranks have not all started
        timeout 100 "$MPCR" checkpoint --exit "$ck" 2>"$T/ckpt.err" && break
        grep -q "try again" "$T/ckpt.err" && [ "$try" -lt 30 ] || fail "checkpoint after $delay s: $(cat "$T/ckpt.err")"
        sleep 0.2
    done
    wait "$1" || fail "the job did not end with status 0 after checkpoint --exit"
    wait "$coord" || fail "the coordinator did not end with its job"
    [ -s "$ck/gen-$2/manifest" ] || fail "no complete gen-$2 in $ck"
    [ "$(ls "$ck/gen-$2" | grep -c '^rank-.*\.img$')" = "$n" ] || fail "not $n images in $ck/gen-$2"
}
