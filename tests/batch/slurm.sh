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

# A job step's tasks are in a session (an autogroup) of their own. On this
# kernel (6.18, EEVDF) a step of `mpcr exec` ranks took both CPUs for its
# whole run, and processes of other sessions (this script, and the `mpcr
# checkpoint` it sends) waited up to 5.7 s, as long as the job ran: the
# checkpoint then came at the job's end (docs/batch-systems.md, "Slurm and
# the scheduler"). This script's session gets more weight (root only, as
# Slurm here is; where it cannot, nothing changes) -- only where the script
# leads a session of its own (tests/batch.cmake starts it with setsid): the
# weight is the whole session's, and given to ctest's session it stayed for
# every later test, whose spinning ranks then starved the kernel's workers
# (ext4's writeback completion: a 3 MiB image's fsync waited 5 s, until the
# job ended; docs/testing.md).
{ [ "$(ps -o sid= -p $$ | tr -d ' ')" = "$$" ] && echo -10 >/proc/self/autogroup; } 2>/dev/null || true

# submit NAME COMMAND...: a batch job of $n tasks running COMMAND with srun
# (and the options in SRUN_OPTS);
# waits for it and returns its exit status; output in NAME.out, NAME.err,
# its job id in NAME.id.
submit() {
    local name=$1
    shift
    {
        echo "#!/bin/bash"
        printf 'exec srun --mpi=pmi2 -n %d %s' "$n" "${SRUN_OPTS:-}"
        printf ' %q' "$@"
        echo
    } >"$scratch/$name.sh"
    sbatch --parsable -n "$n" -J "mpcr-$name" -D "$scratch" -o "$scratch/$name.out" \
        -e "$scratch/$name.err" -t 10 "$scratch/$name.sh" >"$scratch/$name.id" || return 125
    job_end "$(cat "$scratch/$name.id")"
}

# job_end ID: waits until batch job ID has ended; returns its exit status
# (128 + the signal for one ended by a signal), as `sbatch --wait` would.
# Not `sbatch --wait` itself: it polls ever more slowly (a job of one second
# was found ended after 10 s), which cost the batch tests a minute in all.
job_end() {
    local id=$1 fields code i
    for ((i = 0; i < 3500; i++)); do # the jobs' own limit is 10 minutes
        fields=$(scontrol show job -o "$id" 2>/dev/null)
        case $fields in
        "" | *JobState=PENDING* | *JobState=RUNNING* | *JobState=CONFIGURING* | *JobState=COMPLETING* | \
            *JobState=REQUEUE* | *JobState=SUSPENDED*) sleep 0.2 && continue ;;
        esac
        code=$(grep -oE 'ExitCode=[0-9]+:[0-9]+' <<<"$fields") code=${code#ExitCode=}
        [ -n "$code" ] || return 125
        [ "${code#*:}" = 0 ] && return "${code%:*}"
        return $((128 + ${code#*:}))
    done
    return 124
}
