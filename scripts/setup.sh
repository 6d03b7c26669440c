#!/usr/bin/env bash
# Installs the Debian packages mpcr needs (only those missing) and builds it in ./build.
# Safe to run again: it does nothing that is already done. Uses sudo when not root.
set -euo pipefail
cd "$(dirname "$0")/.."

# Open MPI's packages make its `mpicc`/`mpirun` Debian's defaults: mpcr
# always calls mpicc.mpich, mpiexec.mpich and mpirun.openmpi by name.
# dpkg-dev, xz-utils, perl, make: scripts/conformance.sh fetches MPICH's test
# suite (apt-get source) and configures and builds it.
# gfortran: the Fortran tests build with mpif90.mpich (docs/fortran.md).
# python3-mpi4py: Debian's, built for Open MPI; it runs on mpcr's libmpi.so.40
# (docs/abi-openmpi.md); python3-numpy: the buffers of ompiabi.mpi4py.
# slurmd, slurmctld, slurm-client, munge: the private Slurm of the batch tests
# (scripts/slurm/setup.sh starts it; docs/batch-systems.md).
# libhdf5-mpich-dev: parallel HDF5 for MPICH and its h5pcc.mpich (its dependencies bring what
# the wrapper links: libcrypto, libcurl, libsz, libz); the ckpt.hdf5 tests (tests/io.cmake).
# lammps, hpcc, gromacs: Debian's LAMMPS, HPC Challenge and GROMACS (gmx_mpi), Open MPI builds,
# checkpointed in ckpt.lammps_openmpi, ckpt.hpcc_openmpi and ckpt.gromacs_openmpi (tests/ompiabi.cmake).
# libpetsc-real3.18-dev, libpetsc3.18-dev-examples: Debian's PETSc (an Open MPI build, with
# Trilinos, SuperLU_dist, hypre, MUMPS) and the source of its tutorials: ckpt.petsc_openmpi
# builds and checkpoints KSP's ex2.
packages=(build-essential cmake pkg-config python3 mpich libmpich-dev openmpi-bin libopenmpi-dev
    netpipe-mpich2 util-linux procps dpkg-dev xz-utils perl make gfortran slurmd slurmctld slurm-client munge
    python3-mpi4py python3-numpy libhdf5-mpich-dev lammps hpcc gromacs libpetsc-real3.18-dev
    libpetsc3.18-dev-examples)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "mpcr setup: installing ${missing[*]}" >&2
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
