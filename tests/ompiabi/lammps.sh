#!/usr/bin/env bash
# Debian's LAMMPS (`lmp`, built for Open MPI) unmodified under mpcr (issue 38,
# point 5): a Lennard-Jones melt of 4000 atoms on 2 ranks (3000 steps, twice that
# and more where the native run takes under 2 s), against
# `mpirun.openmpi -n 2 lmp` run without interruption. Only the thermo lines
# (step, temperature, energies, pressure every 100 steps) and the run's size
# are compared: LAMMPS also prints timings.
#   lammps.sh INPUT      (MPCR: the mpcr binary; CKPT_SEED: the seed of the
#                         random cuts, printed)
# Two jobs, each checkpointed while it works at thermo steps picked at random:
#   1. on MPICH's proxy: `mpcr checkpoint` (the job goes on), then
#      `mpcr checkpoint --exit`; restarted on Open MPI's proxy;
#   2. on Open MPI's proxy: `mpcr checkpoint --exit`; restarted on MPICH's.
# The thermo lines of each job's pieces, in order, must be the native run's,
# and a checkpoint must land before the job's last thermo line (the cut is
# asked once the chosen step is printed; a job that ends first fails the
# test: give the input more steps).
set -u
input=$(realpath "$1")
steps=3000 # 100 steps a thermo line
. "$(dirname "$0")/app_common.sh"
cd "$T" || exit 1 # LAMMPS writes its files (log.cite) where it runs

# The thermo lines: a step number, then the five numbers.
thermo() { grep -E '^ +[0-9]+ +[-0-9.e+]+ +[-0-9.e+]+ +[-0-9.e+]+ +[-0-9.e+]+ +[-0-9.e+]+ *$' "$@"; }
size_line() { grep -m1 '^Loop time of' "$1" | sed 's/^Loop time of [0-9.e+-]* //'; }

# The native run; on a machine where it takes less than 2 s, again with twice the steps (up
# to 24000): the cuts need time between the steps they wait for and the job's end.
while :; do
    lmp_args=(-in "$input" -var steps $steps -log none -nocite)
    start=$(date +%s%N)
    timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 lmp "${lmp_args[@]}" </dev/null \
        >"$T/native" 2>"$T/native.err" || {
        fail "the native run failed"
        head "$T/native.err"
        exit 1
    }
    ms=$((($(date +%s%N) - start) / 1000000))
    [ $ms -lt 2000 ] && [ $steps -lt 24000 ] || break
    steps=$((steps * 2))
done
echo "native: $(thermo "$T/native" | wc -l) thermo lines, $(size_line "$T/native") ($ms ms)"
thermo "$T/native" >"$T/want"
[ "$(wc -l <"$T/want")" = $((steps / 100 + 1)) ] || fail "the native run printed $(wc -l <"$T/want") thermo lines"

# what cut_at_step (app_common.sh) watches: the last thermo line's step, the loop's end
last_step() { thermo "$1" | tail -1 | awk '{print $1}'; }
ended() { grep -q '^Loop time of' "$1"; }

# what app_job (app_common.sh) runs, cuts and compares
app=(lmp "${lmp_args[@]}") unit="steps"
app_cuts() { random_cuts "$@"; }
app_lines() { thermo; }
app_summary() { size_line "$1"; }

app_job mpich openmpi 1
app_job openmpi mpich 0
[ $failed = 0 ] && echo "ok: LAMMPS' thermo lines as natively, through 3 checkpoints and 2 restarts across MPIs"
exit $failed
