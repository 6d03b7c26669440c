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

# job RUN_MPI RESTART_MPI CONTINUE: one job, its cuts, its restart, compared.
job() {
    local run_mpi=$1 restart_mpi=$2 continue=$3
    rm -rf "$T/ck" "$T/run" "$T/restart"
    cuts=
    timeout 300 "$MPCR" run --mpi "$run_mpi" -n 2 --ckpt-dir "$T/ck" lmp "${lmp_args[@]}" </dev/null \
        >"$T/run" 2>"$T/run.err" &
    local pid=$!
    random_cuts "$T/run" "$continue" || {
        wait $pid
        return
    }
    wait $pid || fail "mpcr run (--mpi $run_mpi): status $? after checkpoint --exit"
    timeout 300 "$MPCR" restart --mpi "$restart_mpi" "$T/ck" </dev/null >"$T/restart" 2>"$T/restart.err" ||
        fail "mpcr restart --mpi $restart_mpi: status $?"
    cat "$T/run" "$T/restart" | thermo >"$T/got"
    if ! diff "$T/want" "$T/got" >"$T/diff"; then
        fail "run on $run_mpi's proxy (cuts at steps$cuts), restarted on $restart_mpi's: thermo lines differ (< native, > mpcr)"
        head -20 "$T/diff"
        tail -n 5 "$T/run.err" "$T/restart.err"
    fi
    [ "$(size_line "$T/restart")" = "$(size_line "$T/native")" ] ||
        fail "the restart's run: '$(size_line "$T/restart")', natively '$(size_line "$T/native")'"
    grep -h "^mpcr:" "$T/run.err" "$T/restart.err" | grep -v "checkpoint\|the job has ended" | sed 's/^/  /'
    echo "run on $run_mpi's proxy, cuts at steps$cuts ($(thermo "$T/run" | wc -l) lines before), restarted on $restart_mpi's: $(thermo "$T/restart" | wc -l) lines after"
}

job mpich openmpi 1
job openmpi mpich 0
[ $failed = 0 ] && echo "ok: LAMMPS' thermo lines as natively, through 3 checkpoints and 2 restarts across MPIs"
exit $failed
