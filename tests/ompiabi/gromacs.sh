#!/usr/bin/env bash
# Debian's GROMACS (`gmx_mpi`, built for Open MPI) unmodified under mpcr (issue
# 38, point 5): molecular dynamics of 424 SPC waters on 2 ranks (a 2 x 1 x 1
# domain decomposition, 2000 steps, twice that and more where the native run
# takes under 2 s), against `mpirun.openmpi -n 2 gmx_mpi mdrun` run without
# interruption. Compared: every energy block of md.log (LJ, Coulomb, potential,
# kinetic, total, temperature, pressure every 100 steps, and the averages), bit
# for bit: mdrun -reprod makes the run repeatable.
#   gromacs.sh MDP       (MPCR: the mpcr binary; CKPT_SEED: the seed of the
#                         random cuts, printed)
# The system is built here from GROMACS' own water box (gmx solvate, gmx
# grompp). Two jobs, each checkpointed while it works at steps picked at
# random, as lammps.sh does: on MPICH's proxy a checkpoint the job survives and
# a --exit, restarted on Open MPI's proxy; on Open MPI's proxy a --exit,
# restarted on MPICH's.
set -u
mdp=$(realpath "$1")
steps=2000
. "$(dirname "$0")/app_common.sh"
cd "$T" || exit 1
export GMX_MAXBACKUP=-1 # no backups of files written again
{
    gmx -quiet solvate -cs spc216.gro -box 3.72412 1.86206 1.86206 -o conf.gro &&
        printf '#include "oplsaa.ff/forcefield.itp"\n#include "oplsaa.ff/spc.itp"\n\n[ system ]\nwater\n\n[ molecules ]\nSOL %d\n' \
            $(($(grep -c SOL conf.gro) / 3)) >topol.top &&
        gmx -quiet grompp -f "$mdp" -c conf.gro -p topol.top -o topol.tpr
} >"$T/prepare.log" 2>&1 || {
    fail "preparing the system failed"
    tail "$T/prepare.log"
    exit 1
}

# mdrun with its log in LOG: one rank per core, no OpenMP threads, reproducible
mdrun_args() { echo -quiet mdrun -s topol.tpr -nsteps "$steps" -ntomp 1 -reprod -nb cpu -g "$1" -e "$1.edr" -o "$1.trr" -c "$1.gro" -cpo "$1.cpt"; }
# every energy block of LOG, each line after its step
energies() {
    awk '/^ +Step +Time/ { getline; step = $1; next }
         /Energies \(kJ\/mol\)/ { e = 1; next }
         e && NF == 0 { e = 0 } e { print step ":" $0 }' "$1"
}
# what cut_at_step (app_common.sh) watches: the last step logged, the run's end
last_step() { awk '/^ +Step +Time/ { getline; s = $1 } END { print s }' "$1" 2>/dev/null; }
ended() { grep -q '^Finished mdrun' "$1" 2>/dev/null; }

while :; do
    start=$(date +%s%N)
    # shellcheck disable=SC2046
    timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 gmx_mpi $(mdrun_args native.log) \
        </dev/null >"$T/native.out" 2>&1 || {
        # Debian's gmx_mpi is built to read the clock with rdtscp; a (virtual) CPU without it
        # cannot run it at all, natively or under mpcr: skipped (77), saying so
        if ! grep -qw rdtscp /proc/cpuinfo && grep -q rdtscp "$T/native.out"; then
            echo "SKIP: Debian's GROMACS needs the rdtscp instruction, which this CPU lacks (its native run refused)"
            exit 77
        fi
        fail "the native run failed"
        tail "$T/native.out"
        exit 1
    }
    ms=$((($(date +%s%N) - start) / 1000000))
    [ $ms -lt 2000 ] && [ $steps -lt 32000 ] || break
    steps=$((steps * 2))
done
energies native.log >"$T/want"
n=$(grep -c '^ *Energies' native.log)
[ "$n" = $((steps / 100 + 2)) ] || fail "the native run logged $n energy blocks"
echo "native: $steps steps, $n energy blocks, $(grep -m1 'Domain decomposition grid' native.log) ($ms ms)"

# job RUN_MPI RESTART_MPI CONTINUE: one job, its cuts, its restart, compared.
job() {
    local run_mpi=$1 restart_mpi=$2 continue=$3 log=$T/run_$1.log
    rm -rf "$T/ck" "$log"
    cuts=
    # shellcheck disable=SC2046
    timeout 300 "$MPCR" run --mpi "$run_mpi" -n 2 --ckpt-dir "$T/ck" gmx_mpi $(mdrun_args "$log") \
        </dev/null >"$T/run.out" 2>&1 &
    local pid=$!
    random_cuts "$log" "$continue" || {
        wait $pid
        return
    }
    wait $pid || fail "mpcr run (--mpi $run_mpi): status $? after checkpoint --exit"
    local before
    before=$(grep -c '^ *Energies' "$log")
    timeout 300 "$MPCR" restart --mpi "$restart_mpi" "$T/ck" </dev/null >"$T/restart.out" 2>&1 ||
        fail "mpcr restart --mpi $restart_mpi: status $?"
    if ! energies "$log" | diff "$T/want" - >"$T/diff"; then
        fail "run on $run_mpi's proxy (cuts at steps$cuts), restarted on $restart_mpi's: energies differ (< native, > mpcr)"
        head -20 "$T/diff"
        tail -n 5 "$T/run.out" "$T/restart.out"
    fi
    ended "$log" || fail "the restarted run did not finish: $(tail -3 "$log")"
    echo "run on $run_mpi's proxy, cuts at steps$cuts ($before energy blocks before), restarted on $restart_mpi's: $(grep -c '^ *Energies' "$log") in all"
}

job mpich openmpi 1
job openmpi mpich 0
[ $failed = 0 ] && echo "ok: GROMACS' energies as natively, through 3 checkpoints and 2 restarts across MPIs"
exit $failed
