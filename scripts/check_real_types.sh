#!/usr/bin/env bash
# Runs MPICH's test/mpi/datatype programs (or other directories of the
# suite) under mpcr with MPCR_CHECK_REAL_TYPES=1: at every MPI_Type_commit
# the proxy builds the real MPI's datatype from the library's definition and
# packs 1..3 elements through it, and the library compares with its own pack
# (docs/datatypes.md, "Real datatypes in the proxy"). A difference ends the
# test with a message naming the type.
#
#   scripts/check_real_types.sh [--mpi mpich|openmpi] [--max-np N] [DIR...]   (default: datatype)
#
# The suite is fetched, configured and built as scripts/conformance.sh does
# it (docs/conformance.md); each test is judged by the suite's rules
# (scripts/conformance/run.py, mpcr runs only), nothing in the repository is
# written. Prints the verdicts, every difference and refusal, and the
# totals; exits 1 when a difference was found, or a test fails that passes
# under plain mpcr (scripts/conformance/results/plain.tsv), or nothing was
# checked.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
mpi=mpich
maxnp=4
dirs=()
usage="usage: check_real_types.sh [--mpi mpich|openmpi] [--max-np N] [DIR...]"
while (($#)); do
    case $1 in
    --mpi) mpi=${2:?$usage} && shift ;;
    --max-np) maxnp=${2:?$usage} && shift ;;
    -h | --help) echo "$usage" && exit 0 ;;
    -*) echo "$usage" >&2 && exit 2 ;;
    *) dirs+=("$1") ;;
    esac
    shift
done
((${#dirs[@]})) || dirs=(datatype)
case $mpi in mpich | openmpi) ;; *) echo "$usage" >&2 && exit 2 ;; esac
mpcr=${MPCR:-$root/build/bin/mpcr}
[ -x "$mpcr" ] || { echo "check_real_types.sh: no mpcr binary at $mpcr (build first, or set MPCR)" >&2; exit 2; }
cache=${MPCR_CONFORMANCE_CACHE:-/var/tmp/mpcr-conformance}
suite=$cache/src/mpich-4.0.2/test/mpi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The suite fetched and configured (conformance.sh does it; it runs nothing
# with an empty list).
: >"$tmp/none"
MPCR=$mpcr bash "$here/conformance.sh" --check "$tmp/none" --no-report "${dirs[@]}" >"$tmp/setup.log" 2>&1 ||
    { cat "$tmp/setup.log"; exit 2; }
# run.py starts `MPCR run -n N ...`: a wrapper adds --mpi.
cat >"$tmp/mpcr" <<EOF
#!/bin/sh
cmd=\$1; shift
exec "$mpcr" "\$cmd" --mpi $mpi "\$@"
EOF
chmod +x "$tmp/mpcr"
mkdir "$tmp/results"
export MPCR_CHECK_REAL_TYPES=1 MPCR_CHECK_REAL_TYPES_SUMMARY=$tmp/summary
: >"$tmp/summary"
python3 -B "$here/conformance/run.py" --suite "$suite" --mpcr "$tmp/mpcr" --mode plain --cache "$cache" \
    --results "$tmp/results" --no-native --no-save --max-np "$maxnp" "${dirs[@]}" 2>&1 | tee "$tmp/run.log"

# Totals: the summary lines (one per rank), the differences, the refusals.
differences=$(grep -c 'MPCR_CHECK_REAL_TYPES: datatype .* differs\|could not pack\|refused datatype' "$tmp/summary")
echo "--- differences and refusals"
grep -v 'MPCR_CHECK_REAL_TYPES: [0-9]* datatypes built' "$tmp/summary" | sort | uniq -c | sort -rn | head -40
read -r types packs refused large other progs <<<"$(sed -n 's/.*(\([^)]*\)): MPCR_CHECK_REAL_TYPES: \([0-9]*\) datatypes built by the proxy, \([0-9]*\) packs equal to the library.s, \([0-9]*\) refused, \([0-9]*\) too large to pack, \([0-9]*\) with other true bounds.*/\2 \3 \4 \5 \6 \1/p' "$tmp/summary" |
    awk '{t += $1; p += $2; r += $3; l += $4; o += $5; prog[$6] = 1} END {n = 0; for (k in prog) n++; print t + 0, p + 0, r + 0, l + 0, o + 0, n}')"
passed=$(sed -n 's/.*mpcr pass \([0-9]*\).*/\1/p' "$tmp/run.log" | awk '{s += $1} END {print s + 0}')
tried=$(sed -n 's/.*tried \([0-9]*\).*/\1/p' "$tmp/run.log" | awk '{s += $1} END {print s + 0}')
# A test failing here must fail under plain mpcr too (results/plain.tsv).
regressions=0
while IFS= read -r key; do
    verdict=$(awk -F'\t' -v k="$key" '$1 == k {print $4}' "$root/scripts/conformance/results/plain.tsv")
    if [ "$verdict" != fail ]; then
        echo "fails only with MPCR_CHECK_REAL_TYPES: $key"
        regressions=$((regressions + 1))
    fi
done < <(sed -n 's/^\(.*[^ ]\) \{1,\}native .* mpcr FAIL .*/\1/p' "$tmp/run.log")
echo "MPICH's ${dirs[*]} under mpcr --mpi $mpi with MPCR_CHECK_REAL_TYPES=1: $passed of $tried tests pass" \
    "($regressions failing only in this mode); $progs programs checked $types datatypes, $packs packs equal" \
    "to the library's, $refused refused, $large too large to pack (bounds only), $other with other true" \
    "bounds; $differences differences"
[ "$differences" = 0 ] && [ "$regressions" = 0 ] && [ "$types" -gt 0 ]
