# Sourced by coord_lost.sh, stray_report.sh, silent_client.sh, late_rank.sh and late_member.sh: scratch
# space, a clean-up of what the test started (by pid, nothing else), fail(),
# a standalone coordinator, and a job with a late rank (late_job). The caller
# sets `name` and exports MPCR.
: "${MPCR:?MPCR must name the mpcr binary}"
T=$(mktemp -d "/tmp/mpcr-$name.XXXXXX")
pids=
trap 'for p in $pids; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
fail() {
    echo "$name: FAIL: $*"
    for f in "$T"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -8 "$f"; }; done
    exit 1
}
. "$(dirname "${BASH_SOURCE[0]}")/../free_port.sh"
# start_coordinator DIR NRANKS: `mpcr coordinator` on a new port ($port) of
# 127.0.0.1, its pid in $coord, its stderr in $T/coord.err; waits until it
# serves. Variables for it go before the call (VAR=value start_coordinator).
start_coordinator() {
    port=$(free_port)
    timeout 200 "$MPCR" coordinator --listen "127.0.0.1:$port" -n "$2" --ckpt-dir "$1" 2>>"$T/coord.err" &
    coord=$!
    pids="$pids $coord"
    for _ in $(seq 200); do [ -S "$1/coord.sock" ] && [ -s "$1/coord.secret" ] && return; sleep 0.05; done
    fail "the coordinator did not start"
}
# late_job CALL SECONDS LIMIT PROG ARGS...: the native run of PROG on 2 ranks
# (output $T/ref, status $ref_rc), then the job under mpcr (pid $run) with
# rank 1's proxy held SECONDS before the program's CALL-th call
# (MPCR_TEST_PROXY_STALL, src/proxy/serve.c) and a coordinator limit of
# LIMIT s; one checkpoint, repeated while refused (the job may not serve
# yet): its failure message in $msg; it must fail.
late_job() {
    local call=$1 seconds=$2 limit=$3 prog=$4
    shift 4
    mpiexec.mpich -n 2 "$prog" "$@" >"$T/ref" 2>/dev/null
    ref_rc=$?
    MPCR_CKPT_TIMEOUT=$limit MPCR_TEST_PROXY_STALL="$call $seconds" "$MPCR" run -n 2 --ckpt-dir "$T/ck" "$prog" "$@" \
        >"$T/out" 2>"$T/run.err" &
    run=$!
    pids=$run
    # the stall begun (the proxy says so): a checkpoint asked earlier may find
    # rank 1 short of that call, at a safe point, and succeed
    local i
    for ((i = 0; i < 1200; i++)); do
        grep -qs "rank 1's proxy stalls" "$T/run.err" && break
        kill -0 "$run" 2>/dev/null || fail "the job ended before rank 1's proxy stalled: $(tail -3 "$T/run.err")"
        sleep 0.05
    done
    [ "$i" -lt 1200 ] || fail "rank 1's proxy did not say that it stalls within 60 s"
    for _ in $(seq 40); do
        "$MPCR" checkpoint "$T/ck" >/dev/null 2>"$T/ck.err" && fail "the checkpoint succeeded while rank 1's proxy was held"
        grep -qE "try again|nothing is running" "$T/ck.err" || break
        sleep 0.25
    done
    msg=$(cat "$T/ck.err")
}
# late_job_end: the job goes on and must end as the native run did.
late_job_end() {
    wait "$run"
    local rc=$?
    pids=
    [ "$rc" = "$ref_rc" ] || fail "the job ended with status $rc, the native run with $ref_rc"
    sort "$T/out" | cmp -s - <(sort "$T/ref") || fail "the job's output differs from the native run's"
}
