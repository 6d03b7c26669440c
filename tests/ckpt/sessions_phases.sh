#!/usr/bin/env bash
# A checkpoint in each phase of tests/ckpt/ckpt_sessions.c, at a chosen
# step rather than a random instant (ckpt.sessions cuts at random; under
# load a restart's start-up takes most of each piece, so its cuts rarely
# reach the later phases): for each STEP, `mpcr run`, `mpcr checkpoint
# --exit` once rank 0 has printed "step STEP done", then `mpcr restart
# --mpi openmpi` (or the same MPI when Open MPI's proxy is not built); the
# two pieces' output, sorted, must equal the native run's, and the restart
# must end with status 0.
#   sessions_phases.sh PROGRAM STEPS UNITS STEP...   (MPCR names the mpcr binary)
set -u
name=sessions_phases
. "$(dirname "$0")/coord_common.sh"
prog=$1 steps=$2 units=$3
shift 3
restart_args=()
[ -x "$(dirname "$MPCR")/mpcr-proxy-openmpi" ] && restart_args=(--mpi openmpi)
timeout 300 mpiexec.mpich -n 4 "$prog" "$steps" "$units" >"$T/ref" 2>/dev/null ||
    fail "the native run failed"
for step in "$@"; do
    d=$T/ck-$step
    timeout 300 "$MPCR" run -n 4 --ckpt-dir "$d" "$prog" "$steps" "$units" >"$T/run-$step.out" \
        2>"$T/run-$step.err" &
    run=$!
    pids=$run
    for _ in $(seq 1200); do
        grep -q "step $step done" "$T/run-$step.out" 2>/dev/null && break
        sleep 0.1
    done
    grep -q "step $step done" "$T/run-$step.out" || fail "step $step not reached in 120 s"
    for _ in $(seq 40); do
        "$MPCR" checkpoint --exit "$d" >/dev/null 2>"$T/ck-$step.err" && break
        sleep 0.25
    done
    wait "$run" || fail "the job cut after step $step ended with status $?"
    pids=
    [ -f "$d/gen-1/manifest" ] || fail "no checkpoint after step $step: $(cat "$T/ck-$step.err")"
    timeout 300 "$MPCR" restart "${restart_args[@]}" "$d" >"$T/restart-$step.out" \
        2>"$T/restart-$step.err" || fail "the restart from after step $step failed"
    cat "$T/run-$step.out" "$T/restart-$step.out" | sort | cmp -s - <(sort "$T/ref") ||
        fail "the output cut after step $step differs from the native run's"
    echo "cut after step $step ($(grep -c 'step .* done' "$T/run-$step.out") steps printed), restarted ${restart_args[*]}: output equals the native run's"
done
echo "$name: PASS"
