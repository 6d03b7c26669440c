# Sourced by the tests of the distribution's applications (lammps.sh, hpcc.sh, petsc.sh,
# gromacs.sh): a scratch directory T (removed at exit), fail(), the seed of the
# random cuts (CKPT_SEED repeats them), Open MPI's point-to-point layer as the
# suite's, cut_at_step() for applications that report numbered steps, and app_job for
# those that report them on standard output.
: "${MPCR:?MPCR must name the mpcr binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failed=0
fail() {
    echo "FAIL: $*"
    failed=1
}
seed=${CKPT_SEED:-$RANDOM}
RANDOM=$seed
echo "seed $seed (CKPT_SEED=$seed repeats these cuts)"
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}

# cut_at_step OUT STEP [CHECKPOINT OPTIONS]: `mpcr checkpoint` of the job whose
# checkpoint directory is $T/ck once it has reported STEP (the test defines
# last_step OUT: the last step the job reported, and ended OUT: whether it
# has ended); the checkpoint must be taken while the job works, before its
# last step ($steps). Appends STEP to $cuts.
cut_at_step() {
    local out=$1 step=$2 reached=
    shift 2
    for _ in $(seq 6000); do
        [ "$(last_step "$out")" -ge "$step" ] 2>/dev/null && reached=1 && break
        ended "$out" && break
        sleep 0.02
    done
    [ -n "$reached" ] || {
        fail "the job ended before step $step: no checkpoint while it works"
        return 1
    }
    timeout 120 "$MPCR" checkpoint "$@" "$T/ck" 2>"$T/ckpt.err" || {
        fail "mpcr checkpoint $* at step $step: $(cat "$T/ckpt.err")"
        return 1
    }
    [ "$(last_step "$out")" -lt "$steps" ] || fail "the checkpoint at step $step came after the last step"
    cuts="$cuts $step${1:+ (exit)}"
}

# random_cuts OUT CONTINUE: the cuts of one job, at steps picked at random (10-40 %
# of $steps in, then 10-33 % later): with CONTINUE=1 a checkpoint the job survives,
# then a --exit; else one --exit. Fails (status 1) when a cut could not be taken.
random_cuts() {
    local out=$1 u=$((steps / 30))
    local s1=$((u * (3 + RANDOM % 10) / 100 * 100))
    if [ "$2" = 1 ]; then
        cut_at_step "$out" $s1 && cut_at_step "$out" $((s1 + u * (3 + RANDOM % 8) / 100 * 100)) --exit
    else
        cut_at_step "$out" $s1 --exit
    fi
}

# app_job RUN_MPI RESTART_MPI CONTINUE: one job of an application that reports its steps on
# standard output (the script sets app: its command and arguments; unit: what its steps are,
# for messages): run on RUN_MPI's proxy, cut by app_cuts OUT CONTINUE (random_cuts, or the
# script's own), restarted on RESTART_MPI's. What app_lines keeps of the pieces' output
# (standard input) must be $T/want, and app_summary FILE of the restart's output the native
# run's ($T/native).
app_job() {
    local run_mpi=$1 restart_mpi=$2 continue=$3
    rm -rf "$T/ck" "$T/run" "$T/restart"
    cuts=
    timeout 300 "$MPCR" run --mpi "$run_mpi" -n 2 --ckpt-dir "$T/ck" "${app[@]}" </dev/null \
        >"$T/run" 2>"$T/run.err" &
    local pid=$!
    app_cuts "$T/run" "$continue" || {
        wait $pid
        return
    }
    wait $pid || fail "mpcr run (--mpi $run_mpi): status $? after checkpoint --exit"
    timeout 300 "$MPCR" restart --mpi "$restart_mpi" "$T/ck" </dev/null >"$T/restart" 2>"$T/restart.err" ||
        fail "mpcr restart --mpi $restart_mpi: status $?"
    cat "$T/run" "$T/restart" | app_lines >"$T/got"
    if ! diff "$T/want" "$T/got" >"$T/diff"; then
        fail "run on $run_mpi's proxy (cuts at $unit$cuts), restarted on $restart_mpi's: lines differ (< native, > mpcr)"
        head -20 "$T/diff"
        tail -n 5 "$T/run.err" "$T/restart.err"
    fi
    [ "$(app_summary "$T/restart")" = "$(app_summary "$T/native")" ] ||
        fail "the restart's result: '$(app_summary "$T/restart")', natively '$(app_summary "$T/native")'"
    grep -h "^mpcr:" "$T/run.err" "$T/restart.err" | grep -v "checkpoint\|the job has ended" | sed 's/^/  /'
    echo "run on $run_mpi's proxy, cuts at $unit$cuts ($(app_lines <"$T/run" | wc -l) lines before), restarted on $restart_mpi's: $(app_lines <"$T/restart" | wc -l) lines after"
}
