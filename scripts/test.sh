#!/usr/bin/env bash
# Set up (packages, build) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd build
# Open MPI jobs (proxies under --mpi openmpi, native mpirun.openmpi runs) take
# the point-to-point layer Open MPI picks on a machine without InfiniBand
# (ob1) without first initialising UCX's to find that out: 0.13 s a job
# instead of 0.33 here, about a minute of the suite. Set OMPI_MCA_pml
# yourself to test another.
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
# When a rank of an Open MPI job fails, mpirun.openmpi sends the others
# SIGCONT, waits odls_base_sigkill_timeout (1 s), then SIGTERM, waits again,
# then SIGKILL: a second of nothing for each failed job, which the suite has
# dozens of (its tests of failures, refused restarts, killed writers). The
# proxies and programs keep SIGTERM's default action, so nothing they do is
# cut short. Set it yourself to test Open MPI's default.
export OMPI_MCA_odls_base_sigkill_timeout=${OMPI_MCA_odls_base_sigkill_timeout:-0}
ctest --output-on-failure --timeout 600 -j2 "$@"
