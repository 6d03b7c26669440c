# Sourced by the Slurm tests, after common.sh: this project's private Slurm
# (scripts/slurm/setup.sh), started here when it does not answer (that
# needs root). Nothing is skipped: where Slurm cannot run, the test fails
# and says why. The caller sets $scratch, $n (tasks) and fail().
# Environment: SLURM_DIR (/var/tmp/mpcr-slurm).
sdir=${SLURM_DIR:-/var/tmp/mpcr-slurm}
export SLURM_CONF=$sdir/slurm.conf

for c in sbatch srun sinfo scontrol slurmd slurmctld munged; do
    command -v "$c" >/dev/null ||
        fail "$c not found: install slurmd slurmctld slurm-client munge (scripts/setup.sh does)"
done
if ! sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    [ "$(id -u)" = 0 ] ||
        fail "Slurm ($SLURM_CONF) does not answer, and starting it needs root: run scripts/slurm/setup.sh as root"
    "$(dirname "${BASH_SOURCE[0]}")/../../scripts/slurm/setup.sh" "$sdir" >"$scratch/setup.err" 2>&1 ||
        fail "scripts/slurm/setup.sh could not start Slurm: $(tail -5 "$scratch/setup.err")"
fi

# submit NAME COMMAND...: a batch job of $n tasks running COMMAND with srun;
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
