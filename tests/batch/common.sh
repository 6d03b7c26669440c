# Shared by the batch tests (sourced): they define fail() and $scratch.

# wait_connected PID NRANKS DIR SECONDS: waits until every rank of the job
# whose launching process is PID has connected to DIR's coordinator.
wait_connected() {
    local i
    for ((i = 0; i < $4 * 10; i++)); do
        "$MPCR" status "$3" 2>/dev/null | grep -q "connected $2 " && return 0
        kill -0 "$1" 2>/dev/null || fail "the job ended before all its ranks reached the coordinator"
        sleep 0.1
    done
    fail "the ranks did not all reach the coordinator in $4 s"
}

# hold_jobs: the jobs started from now on wait before their final report
# (tests/ckpt/ckpt.h, CKPT_HOLD) until checkpoint_exit has taken its
# checkpoint: on a fast machine they cannot end first.
hold_jobs() { export CKPT_HOLD=$scratch/release; }

# checkpoint_exit PID NRANKS DIR SECONDS [COMMAND...]: once every rank of
# the job whose launching process is PID has connected to DIR's
# coordinator (waiting at most SECONDS), `mpcr checkpoint --exit DIR` (or
# COMMAND, which must end the job after a checkpoint: a signal); then
# waits for PID, which must end with status 0, and checks that DIR/gen-1
# is complete.
checkpoint_exit() {
    local pid=$1 n=$2 dir=$3 rc r
    wait_connected "$pid" "$n" "$dir" "$4"
    shift 4
    [ $# -gt 0 ] || set -- "$MPCR" checkpoint --exit "$dir"
    sleep 0.3
    "$@" >"$scratch/ckpt.out" 2>"$scratch/ckpt.err" || fail "$* failed"
    wait "$pid"
    rc=$?
    [ "$rc" = 0 ] || fail "the checkpointed job ended with status $rc, not 0"
    [ -f "$dir/gen-1/manifest" ] || fail "no complete gen-1 after the checkpoint"
    for ((r = 0; r < n; r++)); do
        [ -f "$dir/gen-1/rank-$r.img" ] || fail "gen-1 lacks rank-$r.img"
    done
    touch "$scratch/release" # hold_jobs
}

# same_output WANT GOT...: the files GOT together hold WANT's lines (sorted:
# ranks print in any order); then no process naming $scratch is left (the
# coordinators end once every rank has gone).
same_output() {
    local want=$1 i
    shift
    cat "$@" | sort >"$scratch/got"
    sort "$want" >"$scratch/want"
    cmp -s "$scratch/got" "$scratch/want" ||
        fail "output differs from the native run: $(diff "$scratch/want" "$scratch/got" | head -10)"
    for ((i = 0; i < 100; i++)); do
        pgrep -f "$scratch" >/dev/null || break
        sleep 0.1
    done
    pgrep -af "$scratch" && fail "processes of the jobs are left"
}
