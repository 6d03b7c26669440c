#!/usr/bin/env bash
# mpcr's libmpi_abi.so.1 exports every function of the MPI 5.0 standard ABI
# (src/lib/abi/functions.txt), each under its MPI_ and its PMPI_ name, and
# its mpi.h declares every one translated (build's abi_names.txt) but the
# MPI-1 functions MPI 3.0 removed (abi.slice's `legacy` lines).
#   exports.sh LIBDIR FUNCTIONS.TXT NAMES.TXT HEADER ABI.SLICE
set -u
lib=$1/libmpi_abi.so.1 functions=$2 names=$3 header=$4 slice=$5
failed=0
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
n=0
for f in $(grep -v '^#' "$functions"); do
    n=$((n + 1))
    for name in "$f" "P$f"; do
        grep -qx "$name" <<<"$exported" || { echo "FAIL: $name is not exported"; failed=1; }
    done
done
legacy=$(awk '$1 == "legacy" {print $2}' "$slice")
declared=0
for f in $(cat "$names"); do
    grep -qx "$f" <<<"$legacy" && continue
    grep -q "[ *]$f(" "$header" || { echo "FAIL: mpi.h does not declare $f"; failed=1; }
    declared=$((declared + 1))
done
[ $n -gt 600 ] || { echo "FAIL: only $n functions listed"; failed=1; }
[ $failed = 0 ] && echo "ok: $n functions exported twice, $declared declared"
exit $failed
