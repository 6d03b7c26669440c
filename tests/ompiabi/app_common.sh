# Sourced by the tests of the distribution's applications (lammps.sh, hpcc.sh):
# a scratch directory T (removed at exit), fail(), the seed of the random cuts
# (CKPT_SEED repeats them), and Open MPI's point-to-point layer as the suite's.
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
