#!/usr/bin/env bash
# mpcr's libmpi_abi.so.1 exports every function of the MPI 5.0 standard ABI
# (src/lib/abi/functions.txt), each under its MPI_ and its PMPI_ name, and
# its mpi.h declares every one translated (build's abi_names.txt) but the
# MPI-1 functions MPI 3.0 removed (abi.slice's `legacy` lines).
#   exports.sh LIBDIR FUNCTIONS.TXT NAMES.TXT HEADER ABI.SLICE
set -u
lib=$1/libmpi_abi.so.1 functions=$2 names=$3 header=$4 slice=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
nm -D --defined-only "$lib" | awk '{print $3}' | sort -u >"$tmp/exported"
grep -v '^#' "$functions" | sort -u >"$tmp/abi"
sed 's/^/P/' "$tmp/abi" | cat - "$tmp/abi" | sort >"$tmp/wanted"
comm -23 "$tmp/wanted" "$tmp/exported" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then
    echo "FAIL: not exported: $(tr '\n' ' ' <"$tmp/missing")"
    failed=1
fi
# the names the header declares: each identifier followed by "(" at a prototype's start
grep -oE '^[A-Za-z_ *]+ \**(MPI_[A-Za-z0-9_]+)\(' "$header" | grep -oE 'MPI_[A-Za-z0-9_]+' | sort -u >"$tmp/declared"
awk '$1 == "legacy" {print $2}' "$slice" | sort >"$tmp/legacy"
sort -u "$names" | comm -23 - "$tmp/legacy" >"$tmp/translated"
comm -23 "$tmp/translated" "$tmp/declared" >"$tmp/undeclared"
if [ -s "$tmp/undeclared" ]; then
    echo "FAIL: mpi.h does not declare: $(tr '\n' ' ' <"$tmp/undeclared")"
    failed=1
fi
n=$(wc -l <"$tmp/abi")
[ "$n" -gt 600 ] || { echo "FAIL: only $n functions listed"; failed=1; }
[ $failed = 0 ] && echo "ok: $n functions exported twice, $(wc -l <"$tmp/translated") declared"
exit $failed
