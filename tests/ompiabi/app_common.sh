# Sourced by the tests of the distribution's applications (lammps.sh, hpcc.sh,
# gromacs.sh): a scratch directory T (removed at exit), fail(), the seed of the
# random cuts (CKPT_SEED repeats them), Open MPI's point-to-point layer as the
# suite's, and cut_at_step() for applications that report numbered steps.
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
