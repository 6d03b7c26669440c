#!/usr/bin/env bash
# mpcr's libmpich.so.12 must export every MPI_/PMPI_/MPIX_ function and
# data symbol that MPICH's own libmpich.so.12 exports, so that any program
# built against MPICH loads without an undefined symbol.
# And the description of the API (src/lib/api/*.api) must name exactly the
# functions MPICH exports, each once: no function missing, none invented.
#   exports.sh OUR_LIB [API_NAMES]   (API_NAMES: the generator's api_names.txt)
set -u
ours=$1 names=${2:-}
theirs=$(ldconfig -p | awk '/libmpich\.so\.12 .*x86-64/ {print $NF; exit}')
[ -n "$theirs" ] || { echo "MPICH's libmpich.so.12 not found (install libmpich-dev)"; exit 1; }
symbols() { nm -D --defined-only "$1" | awk '{print $3}' | grep -E '^P?MPIX?_|^MPIR_(C|F08)_' | sort -u; }
missing=$(comm -23 <(symbols "$theirs") <(symbols "$ours"))
if [ -n "$missing" ]; then
    echo "missing from $ours ($(echo "$missing" | wc -l) symbols):"
    echo "$missing" | head -50
    exit 1
fi
# MPICH's Fortran library (docs/fortran.md) runs over ours: everything it
# takes from libmpich.so.12 (the MPI functions and MPICH's MPII_* entry
# points) must be there.
fort=$(ldconfig -p | awk '/libmpichfort\.so\.12 .*x86-64/ {print $NF; exit}')
if [ -n "$fort" ]; then
    needed=$(nm -D --undefined-only "$fort" | awk '{print $NF}' | grep -E '^P?MPI[IRX]?_' | sort -u)
    fort_missing=$(comm -23 <(echo "$needed") <(nm -D --defined-only "$ours" | awk '{print $3}' | sort -u))
    if [ -n "$fort_missing" ]; then
        echo "$fort needs symbols $ours does not export:"; echo "$fort_missing" | head -20; exit 1
    fi
fi
undefined=$(nm -D --undefined-only "$ours" | grep -v '@GLIBC' | grep -v ' w ' || true)
if [ -n "$undefined" ]; then
    echo "$ours needs symbols other than glibc's:"; echo "$undefined"; exit 1
fi
if [ -n "$names" ]; then
    functions() { nm -D --defined-only "$1" | awk '$2 == "T" || $2 == "W" {print $3}' | grep -E '^MPIX?_' | sort -u; }
    described=$(sort "$names")
    [ "$(sort -u "$names" | wc -l)" = "$(wc -l <"$names")" ] || { echo "src/lib/api/*.api name a function twice"; exit 1; }
    diff_out=$(diff <(functions "$theirs") <(echo "$described"))
    if [ -n "$diff_out" ]; then
        echo "src/lib/api/*.api and MPICH's exported functions differ (< MPICH only, > described only):"
        echo "$diff_out" | head -20
        exit 1
    fi
fi
echo "all $(symbols "$theirs" | wc -l) MPI symbols of $theirs are exported by $ours;" \
    "src/lib/api describes its $(wc -l <"${names:-/dev/null}") functions"
