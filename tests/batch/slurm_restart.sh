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
# srun, which passes it on; docs/batch-systems.md "Signals").
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
    exit 1
}
trap '[ -n "${KEEP:-}" ] || rm -rf "$scratch"' EXIT
. "$here/common.sh"
. "$here/slurm.sh"

submit ref "$@"
ref_rc=$?
[ -s "$scratch/ref.out" ] || fail "the native batch job printed nothing (status $ref_rc)"
hold_jobs

submit first "$MPCR" exec --ckpt-dir "$scratch/ck" "$@" &
first=$!
if [ -n "${SCANCEL:-}" ]; then
    # shellcheck disable=SC2086 # several options
    checkpoint_exit "$first" "$n" "$scratch/ck" 120 sh -c "scancel $SCANCEL \$(cat '$scratch/first.id')"
    grep -q "checkpoint .*/gen-1 complete (SIG" "$scratch/first.err" ||
        fail "the coordinator did not say that the signal's checkpoint is complete"
else
    checkpoint_exit "$first" "$n" "$scratch/ck" 120
fi

submit second "$MPCR" exec --restart "$scratch/ck"
rc=$?
[ "$rc" = "$ref_rc" ] || fail "the restarted batch job ended with status $rc, the native one with $ref_rc"
same_output "$scratch/ref.out" "$scratch/first.out" "$scratch/second.out"
echo "PASS: $(wc -l <"$scratch/want") lines, checkpointed at $(wc -l <"$scratch/first.out"), restarted by a second sbatch"
