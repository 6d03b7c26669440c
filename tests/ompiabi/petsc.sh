#!/usr/bin/env bash
# PETSc (Debian's libpetsc-real3.18-dev, built for Open MPI) unmodified under
# mpcr (issue 38, point 5): PETSc's own KSP tutorial ex2 (Debian ships its
# source: libpetsc3.18-dev-examples), built with mpicc.openmpi, solves a 2-D
# Laplacian by conjugate gradients with a Jacobi preconditioner on 2 ranks,
# against `mpirun.openmpi -n 2` run without interruption. Every residual norm
# of -ksp_monitor (to 13 digits) and the final error and iteration count must
# be the native run's. PETSc loads Debian's Trilinos, SuperLU_dist and
# Open MPI's C++ bindings (libmpi_cxx.so.40), which need what
# src/lib/ompi/cxx_bindings.c exports.
#   petsc.sh EXAMPLE.c    (MPCR: the mpcr binary; CKPT_SEED: the seed of the
#                          random cuts, printed)
# Two jobs, each checkpointed while it iterates at iterations picked at random:
#   1. on MPICH's proxy: `mpcr checkpoint` (the job goes on), then
#      `mpcr checkpoint --exit`; restarted on Open MPI's proxy;
#   2. on Open MPI's proxy: `mpcr checkpoint --exit`; restarted on MPICH's.
set -u
source=$1
. "$(dirname "$0")/app_common.sh"
cd "$T" || exit 1
# shellcheck disable=SC2046
mpicc.openmpi -O2 -o ex2 "$source" $(pkg-config --cflags --libs petsc) 2>"$T/build.err" || {
    fail "building $source with mpicc.openmpi failed: $(tail -3 "$T/build.err")"
    exit 1
}

monitor() { grep -E '^ *[0-9]+ KSP Residual norm ' "$@"; }
final() { grep -m1 '^Norm of error' "$1"; }

# The native run; where it takes less than 2 s, again on a finer mesh (up to 800 x 800; the
# work grows as the mesh's side cubed): the cuts need time between the iterations they wait
# for and the solve's end.
for mesh in 300 450 600 800; do
    args=(-m $mesh -n $mesh -ksp_type cg -pc_type jacobi -ksp_monitor)
    start=$(date +%s%N)
    timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 ./ex2 "${args[@]}" </dev/null \
        >"$T/native" 2>"$T/native.err" || {
        fail "the native run failed"
        head "$T/native.err"
        exit 1
    }
    ms=$((($(date +%s%N) - start) / 1000000))
    [ $ms -lt 2000 ] || break
done
monitor "$T/native" >"$T/want"
steps=$(tail -1 "$T/want" | awk '{print $1}')
echo "native: $(wc -l <"$T/want") iterations on a $mesh x $mesh mesh, '$(final "$T/native")' ($ms ms)"
[ -n "$(final "$T/native")" ] && [ "$steps" -gt 100 ] 2>/dev/null || fail "the native run did not solve"

# what cut_at_step (app_common.sh) watches: the last iteration reported, the solve's end
last_step() { monitor "$1" | tail -1 | awk '{print $1}'; }
ended() { grep -q '^Norm of error' "$1"; }

# what app_job (app_common.sh) runs, cuts and compares: cuts at iterations 10-40 % of the way,
# then (CONTINUE) 10-30 % further
app=(./ex2 "${args[@]}") unit="iterations"
app_cuts() {
    local s1=$((steps * (10 + RANDOM % 31) / 100))
    if [ "$2" = 1 ]; then
        cut_at_step "$1" $s1 && cut_at_step "$1" $((s1 + steps * (10 + RANDOM % 21) / 100)) --exit
    else
        cut_at_step "$1" $s1 --exit
    fi
}
app_lines() { monitor; }
app_summary() { final "$1"; }

app_job mpich openmpi 1
app_job openmpi mpich 0
[ $failed = 0 ] && echo "ok: PETSc's residuals and result as natively, through 3 checkpoints and 2 restarts across MPIs"
exit $failed
