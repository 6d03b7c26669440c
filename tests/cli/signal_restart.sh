#!/usr/bin/env bash
# A restart takes its own checkpoint signals, not those of the job's first
# start (docs/batch-systems.md "Signals", the rule of dispositions), against
# the uninterrupted native run (mpiexec.mpich) of the same program:
#   signal_restart.sh NPROCS PROGRAM ARGS...
# Each signal goes to every process of the job below hydra's (proxies,
# programs, rank 0's coordinator), as Slurm's `scancel --signal` sends it.
# 1. `mpiexec.mpich -n N mpcr exec --ckpt-dir D --exit-signal TERM`: the
#    programs ignore SIGTERM and SIGUSR2 (the default checkpoint signal),
#    not SIGUSR1; SIGTERM: gen-1 (said to be SIGTERM's), status 0.
# 2. `mpiexec.mpich -n N mpcr exec --restart D` (the defaults): the restored
#    programs ignore SIGUSR1 and SIGUSR2, and SIGTERM no more; SIGUSR2:
#    gen-2, the job goes on; then SIGUSR1: gen-3, status 0 (rank 0 waits
#    half-way meanwhile, CKPT_MIDWAY).
# 3. `... mpcr exec --restart D --exit-signal TERM --checkpoint-signal none`
#    (from gen-3): SIGTERM ignored again, SIGUSR1 and SIGUSR2 no more; it
#    runs to the end with the native status.
# No checkpoint may find the job at its final hold (common.sh not_at_hold);
# the three pieces' output together is the native run's; nothing is left.
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
n=$1
shift
. "$(dirname "$0")/common.sh" sigrestart

. "$(dirname "$0")/../native_run.sh"
native_run "$scratch/ref" "$scratch/ref.err" "$n" "$@"
ref_rc=$?
[ -s "$scratch/ref" ] || fail "the native run printed nothing (status $ref_rc)"
hold_jobs
D=$scratch/ck

# programs PID: the job's programs (what is below its proxies), one a line.
programs() {
    local p
    for p in $(descendants "$1"); do
        case $(cat /proc/$p/comm 2>/dev/null) in mpcr*) ;; *) echo "$p" ;; esac
    done
}

# dispositions WHEN PID IGNORED NOT: every program of the job PID (N of
# them) ignores each signal of IGNORED and none of NOT (names, space-separated).
dispositions() {
    local when=$1 progs p s mask i
    # A restarted rank is connected before its restorer (named mpcr-...) has
    # become the program: under load that can take seconds.
    for ((i = 0; i < 300; i++)); do
        progs=$(programs "$2")
        [ "$(wc -w <<<"$progs")" = "$n" ] && break
        sleep 0.1
    done
    [ "$(wc -w <<<"$progs")" = "$n" ] || fail "$when: found $(wc -w <<<"$progs") programs, not $n: $progs"
    for p in $progs; do
        mask=$(awk '/^SigIgn:/ {print $2}' "/proc/$p/status") || fail "$when: program $p is gone"
        for s in $3; do
            (((0x$mask >> ($(kill -l "$s") - 1)) & 1)) ||
                fail "$when: program $p does not ignore SIG$s (SigIgn $mask)"
        done
        for s in $4; do
            (((0x$mask >> ($(kill -l "$s") - 1)) & 1)) &&
                fail "$when: program $p ignores SIG$s (SigIgn $mask), which this run does not use"
        done
    done
    return 0
}

# checkpointed ERR GEN SIG: waits until ERR says that gen-GEN, SIG's, is complete.
checkpointed() {
    local i
    for ((i = 0; i < 600; i++)); do
        grep -q "checkpoint .*/gen-$2 complete (SIG$3)" "$1" && break
        kill -0 "$job" 2>/dev/null || fail "the job ended before gen-$2 (SIG$3) was complete"
        sleep 0.1
    done
    [ -f "$D/gen-$2/manifest" ] || fail "no complete gen-$2 after SIG$3"
    not_at_hold "$D" "$2" "SIG$3"
}

# rearm: the next job waits at its final hold again (common.sh hold_jobs).
rearm() { rm -f "$scratch/release" "$scratch/release.reached"; }

# 1: the first start, with --exit-signal TERM
mpiexec.mpich -n "$n" "$MPCR" exec --ckpt-dir "$D" --exit-signal TERM "$@" \
    >"$scratch/first.out" 2>"$scratch/first.err" &
job=$!
wait_connected "$job" "$n" "$D" 60
dispositions "first start" "$job" "TERM USR2" "USR1"
# shellcheck disable=SC2046
checkpoint_exit "$job" "$n" "$D" 60 kill -s TERM $(descendants "$job")
grep -q "checkpoint .*/gen-1 complete (SIGTERM)" "$scratch/first.err" ||
    fail "the coordinator did not say that SIGTERM's checkpoint is complete"
job=

# 2: restarted with the defaults. Rank 0 waits half-way again (gen-1 was
# taken there or before it): the job, about a second of work, was found at
# its final hold by SIGUSR2 when its second half ran through while the
# restored ranks were checked.
rearm
rm -f "$scratch/midway"
mpiexec.mpich -n "$n" "$MPCR" exec --restart "$D" >"$scratch/second.out" 2>"$scratch/second.err" &
job=$!
wait_connected "$job" "$n" "$D" 60
dispositions "restart with the defaults" "$job" "USR1 USR2" "TERM"
targets=$(descendants "$job")
sleep 0.3
# shellcheck disable=SC2086
kill -s USR2 $targets || fail "could not send SIGUSR2 to $targets"
checkpointed "$scratch/second.err" 2 USR2
# shellcheck disable=SC2086
kill -s USR1 $targets || fail "could not send SIGUSR1 to $targets: the job did not go on after SIGUSR2"
checkpointed "$scratch/second.err" 3 USR1
release_midway
touch "$scratch/release"
wait "$job"
rc=$?
job=
[ "$rc" = 0 ] || fail "the restarted job ended with status $rc after SIGUSR1, not 0"

# 3: restarted from gen-3 with SIGTERM again, and no checkpoint signal
rearm
mpiexec.mpich -n "$n" "$MPCR" exec --restart "$D" --exit-signal TERM --checkpoint-signal none \
    >"$scratch/third.out" 2>"$scratch/third.err" &
job=$!
wait_connected "$job" "$n" "$D" 60
grep -qx "gen 3" "$D/coord.launch" || fail "the second restart did not start from gen-3: $(cat "$D/coord.launch")"
dispositions "restart with --exit-signal TERM --checkpoint-signal none" "$job" "TERM" "USR1 USR2"
touch "$scratch/release"
wait "$job"
rc=$?
job=
[ "$rc" = "$ref_rc" ] || fail "the last restart ended with status $rc, the native run with $ref_rc"
same_output "$scratch/ref" "$scratch/first.out" "$scratch/second.out" "$scratch/third.out"
echo "PASS: SIGTERM at $(wc -l <"$scratch/first.out") lines; restarted with the defaults, SIGUSR2 and SIGUSR1 at $(wc -l <"$scratch/second.out") more; the rest ($(wc -l <"$scratch/third.out") lines) under SIGTERM again"
