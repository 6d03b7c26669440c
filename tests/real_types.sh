#!/usr/bin/env bash
# An MPI program run natively and under mpcr with MPCR_CHECK_REAL_TYPES=1
# (tests/compare.sh: same output, same exit status), after which every
# rank's summary of the check must show that the proxy built at least MIN
# real datatypes and packed through them, and that nothing differed
# (a difference ends the job, naming the type: docs/datatypes.md, "Real
# datatypes in the proxy").
#   real_types.sh mpich|openmpi NPROCS MIN PROGRAM ARGS...
# Environment: MPCR; REAL_TYPES_REFUSED=N: at least N refusals per rank, each
# saying that a count does not fit in int (Open MPI's proxy has no `_c`
# constructors; default 0); REAL_TYPES_AGAIN=1: some type must have been
# defined again (MPCR_REAL_TYPES_MAX made the proxy let it go, or a restart
# gave it a new proxy); REAL_TYPES_CKPT="MODE CYCLES": the program runs
# under tests/ckpt/ckpt.sh MODE CYCLES instead (first run under MPICH,
# restarts under the MPI named), and every rank's last summary must show
# types defined again in a new proxy.
set -u
mpi=$1 n=$2 min=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export MPCR_CHECK_REAL_TYPES=1 MPCR_CHECK_REAL_TYPES_SUMMARY=$tmp/summary
if [ -n "${REAL_TYPES_CKPT:-}" ]; then
    # first run under MPICH, restarts under $mpi: an image of one MPI continues under the other
    export CKPT_RESTART_ARGS="--mpi $mpi" REAL_TYPES_AGAIN=1
    # shellcheck disable=SC2086
    "$here/ckpt/ckpt.sh" $REAL_TYPES_CKPT "$n" "$@"
else
    MPCR_RUN_ARGS="--mpi $mpi" "$here/compare.sh" "$n" "$@"
fi || { echo "--- the check's lines"; cat "$tmp/summary" 2>/dev/null; exit 1; }

fail=0
summaries=$(grep -c 'MPCR_CHECK_REAL_TYPES: [0-9]* datatypes built' "$tmp/summary")
if [ "$summaries" -lt "$n" ]; then
    echo "$summaries summaries of the check for $n ranks"
    fail=1
fi
# each rank's last summary (a job restarted C times: every piece's end writes one)
while read -r rank types packs refused again; do
    if [ "$types" -lt "$min" ] || [ "$packs" -lt "$min" ]; then
        echo "rank $rank: $types datatypes built and $packs packs compared, fewer than $min"
        fail=1
    fi
    if [ "$refused" -lt "${REAL_TYPES_REFUSED:-0}" ] || { [ "${REAL_TYPES_REFUSED:-0}" = 0 ] && [ "$refused" != 0 ]; }; then
        echo "rank $rank: $refused datatypes refused by the proxy, ${REAL_TYPES_REFUSED:-0} expected (0: none)"
        fail=1
    fi
    if [ -n "${REAL_TYPES_AGAIN:-}" ] && [ "$again" = 0 ]; then
        echo "rank $rank: no datatype was defined again, though the proxy keeps few"
        fail=1
    fi
done < <(sed -n 's/.*rank \([0-9]*\) .*MPCR_CHECK_REAL_TYPES: \([0-9]*\) datatypes built by the proxy, \([0-9]*\) packs equal to the library.s, \([0-9]*\) refused, .* \([0-9]*\) defined again$/\1 \2 \3 \4 \5/p' "$tmp/summary" |
    awk '{last[$1] = $0} END {for (r in last) print last[r]}')
refusals=$(grep -c 'cannot build datatype' "$tmp/summary")
explained=$(grep -c 'cannot build datatype .* does not fit in int, and Open MPI has no large-count (_c) constructors' "$tmp/summary")
if [ "$refusals" != "$explained" ]; then
    echo "refusals without the reason expected:"
    grep 'cannot build datatype' "$tmp/summary" | grep -v 'does not fit in int'
    fail=1
fi
if grep -q 'differs\|could not pack\|refused datatype' "$tmp/summary"; then
    grep 'differs\|could not pack\|refused datatype' "$tmp/summary"
    fail=1
fi
echo "--- the check's lines"
cat "$tmp/summary"
exit $fail
