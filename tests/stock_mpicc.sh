#!/usr/bin/env bash
# A program compiled by Debian's stock mpicc.mpich, outside the project's
# build, runs unmodified under mpcr with the same output as natively.
#   stock_mpicc.sh SOURCE.c NPROCS
set -eu
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc.mpich -O2 -o "$tmp/prog" "$1"
# Built against MPICH's library, not mpcr's:
ldd "$tmp/prog" | grep -q "libmpich.so.12 => /.*x86_64-linux-gnu/libmpich.so.12" \
    || { echo "not linked against the system's MPICH"; ldd "$tmp/prog"; exit 1; }
bash "$here/compare.sh" "$2" "$tmp/prog"
