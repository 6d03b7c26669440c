# Shared by the engine's tests of MPI jobs (sourced after lib.sh): the
# program copied into $T, so that `pgrep -f "$T"` finds this test's
# processes and no one else's; a checkpoint --exit of the job running in
# the background; the check that nothing of the job is left.

# job_init PROGRAM: $T/prog, and D=$T/ck the checkpoint directory.
job_init() {
    cp "$1" "$T/prog" || fail "cannot copy $1"
    D=$T/ck
}

# leftovers WHAT: no process of this test is left, 10 s on (else killed, by pid, and the test fails).
leftovers() {
    local left
    for _ in $(seq 40); do
        left=$(pgrep -f -- "$T") || return 0
        sleep 0.25
    done
    # shellcheck disable=SC2086
    ps -o pid,cmd -p "${left//$'\n'/,}" && kill -KILL $left
    fail "$1: processes were left behind (killed now)"
}

# checkpoint_exit MPCR JOB: `mpcr checkpoint --exit $D` (again every 0.25 s
# while the job is not ready: "try again"), then the job (pid JOB) must end
# with status 0 and leave nothing.
checkpoint_exit() {
    local try
    for try in $(seq 120); do
        timeout -k 10 150 "$1" checkpoint --exit "$D" >"$T/out-ck" 2>"$T/err-ck" && break
        kill -0 "$2" 2>/dev/null || fail "the job ended before its checkpoint"
        grep -qE "try again|nothing is running" "$T/err-ck" || fail "checkpoint --exit failed: $(cat "$T/err-ck")"
        [ "$try" = 120 ] && fail "checkpoint --exit refused 120 times: $(cat "$T/err-ck")"
        sleep 0.25
    done
    wait "$2" || fail "the job exited with status $? after checkpoint --exit"
    leftovers "the checkpointed job"
}
