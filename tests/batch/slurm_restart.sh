#!/usr/bin/env bash
# A Slurm batch job checkpointed and restarted by a second batch job:
#   slurm_restart.sh NPROCS PROGRAM ARGS...
# The reference: `sbatch` of `srun --mpi=pmi2 -n N PROGRAM ARGS`. Then
# `sbatch` of `srun --mpi=pmi2 -n N mpcr exec --ckpt-dir D PROGRAM ARGS`,
# `mpcr checkpoint --exit D` once every rank is connected, the job ends
# (exit 0), and `sbatch` of `srun --mpi=pmi2 -n N mpcr exec --restart D`
# runs it to the end: the two jobs' output together must equal the
# reference's (sorted lines), the restart's exit status the reference's.
# Slurm is this project's private one (scripts/slurm/setup.sh, started here
# when it does not answer; that needs root). Nothing is skipped: where Slurm
# cannot run, the test fails and says why.
# Environment: MPCR (the mpcr binary), SLURM_DIR (/var/tmp/mpcr-slurm),
# SCANCEL (options of scancel that end the first job instead of `mpcr
# checkpoint --exit`, e.g. "--signal=USR1": Slurm signals every process of
# the job's steps; "--batch --signal=USR1": only the batch shell, which is
# srun, which passes it on; docs/batch-systems.md "Signals"); CONTINUE=1:
# `mpcr checkpoint D` (checkpoint-and-continue) instead, the job goes on to
# its final hold (not released), is ended there by a plain `scancel JOBID`,
# and no process of it may be left (rank 0's coordinator, in a session of
# its own, included); the first job's output up to the cut (between the
# request and its answer) followed by the second's must be the reference's.
# The checkpoint must not have been taken at the program's final hold
# (common.sh not_at_hold). SRUN_OPTS: more options of srun (both jobs);
# PASSED=NAME=VALUE: they give the ranks NAME=VALUE and bind each to a CPU,
# and while each job works every rank must show both (common.sh
# passed_through). NATIVE_PROGRAM: the reference's program (below).
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
n=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mpcr-slurm-XXXXXX")
chmod 0755 "$scratch"
fail() {
    echo "FAIL: $*"
    for f in "$scratch"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
    # a first job left held (CONTINUE) would wait for its 10 minutes
    [ -s "$scratch/first.id" ] && scancel "$(cat "$scratch/first.id")" 2>/dev/null
    exit 1
}
trap '[ -n "${KEEP:-}" ] || rm -rf "$scratch"' EXIT
. "$here/common.sh"
. "$here/slurm.sh"

# NATIVE_PROGRAM: the reference's program instead (an MPICH build of the same source,
# for a program built for another ABI, which runs only under mpcr here)
submit ref "${NATIVE_PROGRAM:-$1}" "${@:2}"
ref_rc=$?
[ -s "$scratch/ref.out" ] || fail "the native batch job printed nothing (status $ref_rc)"
hold_jobs

submit first "$MPCR" exec --ckpt-dir "$scratch/ck" "$@" &
first=$!
if [ -n "${CONTINUE:-}" ]; then
    ck=$scratch/ck
    wait_connected "$first" "$n" "$ck" 120
    sleep 0.3
    lines_asked=$(wc -l <"$scratch/first.out")
    "$MPCR" checkpoint "$ck" >"$scratch/ckpt.out" 2>"$scratch/ckpt.err" || fail "mpcr checkpoint $ck failed"
    lines_done=$(wc -l <"$scratch/first.out")
    [ -f "$ck/gen-1/manifest" ] || fail "no complete gen-1 after mpcr checkpoint"
    not_at_hold "$ck" 1 "mpcr checkpoint"
    release_midway
    for ((i = 0; i < 600; i++)); do # the job goes on, to its final hold
        [ -e "$scratch/release.reached" ] && break
        kill -0 "$first" 2>/dev/null || fail "the job ended after its checkpoint-and-continue"
        sleep 0.1
    done
    [ -e "$scratch/release.reached" ] || fail "the job did not go on to its end after the checkpoint"
    scancel "$(cat "$scratch/first.id")" || fail "scancel $(cat "$scratch/first.id") failed"
    wait "$first"
    rc=$?
    [ "$rc" != 0 ] || fail "the cancelled job ended with status 0"
    # Slurm sends SIGTERM, then SIGKILL KillWait (10 s) later
    no_jobs_left 30 "after scancel"
    touch "$scratch/release"
    submit second "$MPCR" exec --restart "$ck"
    rc=$?
    [ "$rc" = "$ref_rc" ] || fail "the restarted batch job ended with status $rc, the native one with $ref_rc"
    ref_lines=$(wc -l <"$scratch/ref.out") second_lines=$(wc -l <"$scratch/second.out")
    cut=$((ref_lines - second_lines))
    [ "$cut" -ge "$lines_asked" ] && [ "$cut" -le "$lines_done" ] ||
        fail "the restart printed $second_lines lines of $ref_lines: a cut after line $cut, but the checkpoint was taken after line $lines_asked and before line $((lines_done + 1))"
    head -n "$(wc -l <"$scratch/first.out")" "$scratch/ref.out" | cmp -s - "$scratch/first.out" ||
        fail "the first job's output is not the beginning of the native one's"
    tail -n "$second_lines" "$scratch/ref.out" | cmp -s - "$scratch/second.out" ||
        fail "the restart's output is not the end of the native one's"
    head -n "$cut" "$scratch/first.out" | cat - "$scratch/second.out" >"$scratch/joined"
    same_output "$scratch/ref.out" "$scratch/joined"
    echo "PASS: $(wc -l <"$scratch/want") lines, checkpointed (and continued) at $cut, cancelled at $(wc -l <"$scratch/first.out"), restarted by a second sbatch"
    exit 0
elif [ -n "${SCANCEL:-}" ]; then
    # shellcheck disable=SC2086 # several options
    checkpoint_exit "$first" "$n" "$scratch/ck" 120 sh -c "scancel $SCANCEL \$(cat '$scratch/first.id')"
    grep -q "checkpoint .*/gen-1 complete (SIG" "$scratch/first.err" ||
        fail "the coordinator did not say that the signal's checkpoint is complete"
else
    if [ -n "${PASSED:-}" ]; then
        wait_connected "$first" "$n" "$scratch/ck" 120
        passed_through "the first job" "$1"
    fi
    checkpoint_exit "$first" "$n" "$scratch/ck" 120
fi

if [ -n "${PASSED:-}" ]; then
    rm -f "$scratch/release" "$scratch/release.reached" # held again, for the check
    submit second "$MPCR" exec --restart "$scratch/ck" &
    second=$!
    wait_connected "$second" "$n" "$scratch/ck" 120
    passed_through "the restart" "$1"
    touch "$scratch/release"
    wait "$second"
else
    submit second "$MPCR" exec --restart "$scratch/ck"
fi
rc=$?
[ "$rc" = "$ref_rc" ] || fail "the restarted batch job ended with status $rc, the native one with $ref_rc"
same_output "$scratch/ref.out" "$scratch/first.out" "$scratch/second.out"
echo "PASS: $(wc -l <"$scratch/want") lines, checkpointed at $(wc -l <"$scratch/first.out"), restarted by a second sbatch"
