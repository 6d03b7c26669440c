#!/usr/bin/env bash
# The requeue script of docs/batch-systems.md, run by Slurm: pre-empted,
# checkpointed, requeued, resumed by itself:
#   slurm_requeue.sh NPROCS PROGRAM ARGS...
# The reference: `sbatch` of `srun --mpi=pmi2 -n N PROGRAM ARGS`. Then the
# documentation's script (checkpoint directory, mpcr and program replaced
# by the test's), submitted once; its first run finds no image and starts
# PROGRAM fresh (`mpcr exec --restart-if-any D`). Once every rank is
# connected, `scancel --batch --signal=USR1` (what `#SBATCH
# --signal=B:USR1@T` sends before the time limit): the script passes it on
# through srun, the job is checkpointed (gen-1) and ends, and the script
# requeues itself; Slurm runs it again, and the same line resumes from
# gen-1 (which must not have been taken at the program's final hold,
# common.sh not_at_hold). The job must end COMPLETED after one restart with the native
# job's status, its output (both runs, appended) the native job's.
# INTERVAL=1: the script's periodic checkpoint instead (its `--interval 600`
# made `--interval 1`): nobody signals the job; once a generation is
# complete by itself (gen-2 or later), `scontrol requeue JOBID` (what Slurm's own pre-emption
# in PreemptMode=REQUEUE and a node failure do: the running job is killed
# and queued again, its script gets no say). The same line resumes from the
# newest complete generation (coord.launch), which must not have been taken
# at the final hold; the job ends COMPLETED after one restart with the
# native status; what the first run printed before the kill is the
# beginning of the native output, what the second printed its end, and
# together they cover it.
# Environment: MPCR (the mpcr binary), SLURM_DIR (/var/tmp/mpcr-slurm).
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
n=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mpcr-slurm-XXXXXX")
chmod 0755 "$scratch"
watcher=
fail() {
    echo "FAIL: $*"
    for f in "$scratch"/*.err "$scratch/states"; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
    [ -n "$watcher" ] && kill "$watcher" 2>/dev/null
    [ -s "$scratch/job.id" ] && scancel "$(cat "$scratch/job.id")" 2>/dev/null
    exit 1
}
trap '[ -n "${KEEP:-}" ] || rm -rf "$scratch"' EXIT
. "$here/common.sh"
. "$here/slurm.sh"

submit ref "$@"
ref_rc=$?
[ -s "$scratch/ref.out" ] || fail "the native batch job printed nothing (status $ref_rc)"
hold_jobs

# The documented script, with this test's directory, mpcr and program.
ck=$scratch/ck
awk '/slurm_requeue.sh runs this script/ { found = 1; next }
     found && /^```sh/ { inside = 1; next }
     inside && /^```/ { exit }
     inside' "$here/../../docs/batch-systems.md" >"$scratch/doc.sh"
printf -v program ' %q' "$@"
every=600
[ -n "${INTERVAL:-}" ] && every=1
sed -e "s|^ck=.*|ck=$ck|" -e "s| mpcr exec | $MPCR exec |" -e "s| \./ring .* &\$|$program \&|" \
    -e "s| --interval 600 | --interval $every |" "$scratch/doc.sh" >"$scratch/job.sh"
for want in "ck=$ck" "$MPCR exec --restart-if-any" "--interval $every " "$program &" "scontrol requeue"; do
    grep -qF -- "$want" "$scratch/job.sh" ||
        fail "docs/batch-systems.md's requeue script has changed shape (no '$want' after the test's edits)"
done

sbatch --parsable -n "$n" -J mpcr-requeue -D "$scratch" -o "$scratch/job.out" -e "$scratch/job.err" \
    -t 10 "$scratch/job.sh" >"$scratch/job.id" || fail "sbatch refused the documented script"
id=$(cat "$scratch/job.id")

# Until the job has ended for good: its state, restarts, exit code and
# reason, on every change, in states. Slurm holds a requeued job back for
# the lifetime of its credentials (a new launch of the job before then is
# refused): scripts/slurm/setup.sh makes it 10 s (cred_expire; 120 s by default).
job_fields() { scontrol show job -o "$id" 2>/dev/null | grep -oE '(JobState|Restarts|ExitCode|Reason)=[^ ]*' | xargs; }
watch_job() {
    local now last=
    while sleep 0.2; do
        now=$(job_fields)
        [ "$now" = "$last" ] || echo "$now" >>"$scratch/states"
        last=$now
        case $now in
        JobState=PENDING* | JobState=RUNNING* | JobState=REQUEUE* | JobState=COMPLETING* | "") ;;
        *) return 0 ;;
        esac
    done
}
watch_job &
watcher=$!

# completed_after_requeue: releases the hold; the job must end COMPLETED after one requeue
completed_after_requeue() {
    release_midway
    touch "$scratch/release" # hold_jobs
    wait "$watcher"
    watcher=
    final=$(tail -1 "$scratch/states")
    grep -q "^JobState=COMPLETED Reason=None Restarts=1 ExitCode=$ref_rc:0$" <<<"$final" ||
        fail "the job ended as '$final', not COMPLETED after one requeue with status $ref_rc"
}

wait_connected "$watcher" "$n" "$ck" 120
if [ -n "${INTERVAL:-}" ]; then
    # a complete generation after the first (gen-1 came before the ring's first
    # line); under load --keep 2 may have removed gen-2 already
    wait_complete "$ck" "gen-[2-9]*" "$watcher" "a periodic checkpoint after gen-1"
    # requeued as pre-emption does, and held there until the checks below are
    # made: Slurm starts a plain requeue again once its credentials expire
    # (10 s here), and on a slow run the second run's processes were there
    # before the first run's had all gone (no_jobs_left then saw them)
    scontrol requeuehold "$id" || fail "scontrol requeuehold $id failed"
    # the first run is over once the job waits again (Restarts=1)
    for ((i = 0; i < 600; i++)); do
        grep -qE "JobState=(PENDING|REQUEUE)[^ ]* .*Restarts=1" <<<"$(job_fields)" && break
        sleep 0.1
    done
    no_jobs_left 30 "after scontrol requeue" # Slurm: SIGTERM, then SIGKILL KillWait (10 s) later
    first=$(wc -l <"$scratch/job.out")
    newest=$(newest_complete "$ck")
    not_at_hold "$ck" "$newest" "the periodic checkpoint"
    scontrol release "$id" || fail "scontrol release $id failed"
    completed_after_requeue
    grep -qx "gen $newest" "$ck/coord.launch" ||
        fail "the requeued job did not resume from gen-$newest: coord.launch says $(grep '^gen' "$ck/coord.launch")"
    head -n "$first" "$scratch/job.out" >"$scratch/first.out"
    tail -n +"$((first + 1))" "$scratch/job.out" >"$scratch/second.out"
    second=$(wc -l <"$scratch/second.out")
    resumed_output "$scratch/ref.out" "$scratch/first.out" "$scratch/second.out"
    no_jobs_left 10 "after the job's end"
    echo "PASS: requeued after the periodic gen-$newest at $first lines, resumed: $second lines, the native job's last ones"
    exit 0
fi
sleep 0.3
scancel --batch --signal=USR1 "$id" || fail "scancel --batch --signal=USR1 $id failed"
for ((i = 0; i < 600; i++)); do
    [ -f "$ck/gen-1/manifest" ] && break
    sleep 0.2
done
[ -f "$ck/gen-1/manifest" ] || fail "no complete gen-1 two minutes after the signal"
not_at_hold "$ck" 1 "SIGUSR1 to the batch shell"
completed_after_requeue
grep -q "checkpoint .*/gen-1 complete (SIGUSR1)" "$scratch/job.err" ||
    fail "the coordinator did not say that the signal's checkpoint is complete"
same_output "$scratch/ref.out" "$scratch/job.out"
echo "PASS: $(wc -l <"$scratch/want") lines; checkpointed by SIGUSR1, requeued by its script, resumed from gen-1"
