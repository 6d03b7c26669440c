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
sdir=${SLURM_DIR:-/var/tmp/mpcr-slurm}
export SLURM_CONF=$sdir/slurm.conf
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mpcr-slurm-XXXXXX")
chmod 0755 "$scratch"
fail() {
    echo "FAIL: $*"
    for f in "$scratch"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
    exit 1
}
trap '[ -n "${KEEP:-}" ] || rm -rf "$scratch"' EXIT
. "$here/common.sh"

for c in sbatch srun sinfo slurmd slurmctld munged; do
    command -v "$c" >/dev/null ||
        fail "$c not found: install slurmd slurmctld slurm-client munge (scripts/setup.sh does)"
done
if ! sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    [ "$(id -u)" = 0 ] ||
        fail "Slurm ($SLURM_CONF) does not answer, and starting it needs root: run scripts/slurm/setup.sh as root"
    "$here/../../scripts/slurm/setup.sh" "$sdir" >"$scratch/setup.err" 2>&1 ||
        fail "scripts/slurm/setup.sh could not start Slurm: $(tail -5 "$scratch/setup.err")"
fi

# submit NAME COMMAND...: a batch job of N tasks running COMMAND with srun;
# waits for it and returns its exit status; output in NAME.out, NAME.err,
# its job id in NAME.id.
submit() {
    local name=$1
    shift
    {
        echo "#!/bin/bash"
        printf 'exec srun --mpi=pmi2 -n %d' "$n"
        printf ' %q' "$@"
        echo
    } >"$scratch/$name.sh"
    sbatch --wait --parsable -n "$n" -J "mpcr-$name" -D "$scratch" -o "$scratch/$name.out" \
        -e "$scratch/$name.err" -t 10 "$scratch/$name.sh" >"$scratch/$name.id"
}

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
