#!/usr/bin/env bash
# Runs an MPI program natively (mpiexec.mpich) and under `mpcr run`, and
# fails unless both end with the same exit status and print the same lines
# (sorted, since ranks print concurrently).
#   compare.sh NPROCS PROGRAM ARGS...
# Environment: MPCR (the mpcr binary), COMPARE_STDIN (a file fed to both
# runs' standard input; default /dev/null), MPCR_RUN_ARGS (more options of
# `mpcr run`, e.g. "--mpi openmpi": the native run stays MPICH's),
# COMPARE_EXEC=1 (the launcher starts mpcr on every rank instead:
# `mpiexec.mpich -n NPROCS mpcr exec PROGRAM ARGS`, no checkpoint directory).
# Without COMPARE_STDIN the native run may be one kept from an earlier test
# (native_run.sh). COMPARE_IGNORE (an extended regular expression): lines
# that differ by design between the native MPI and mpcr (an Open MPI-built
# program gets the MPICH library's error strings under mpcr): they are left
# out of the comparison, but each run must have as many of them.
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
n=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
input=${COMPARE_STDIN:-/dev/null}

if [ -z "${COMPARE_STDIN:-}" ]; then
    . "$(dirname "$0")/native_run.sh"
    native_run "$tmp/native" "$tmp/native.err" "$n" "$@"
else
    timeout 300 mpiexec.mpich -n "$n" "$@" <"$input" >"$tmp/native" 2>"$tmp/native.err"
fi
native_rc=$?
# MPCR_EXPECT_MPI: the proxy fails if the program never reached mpcr's library.
if [ -n "${COMPARE_EXEC:-}" ]; then
    MPCR_EXPECT_MPI=1 timeout 300 mpiexec.mpich -n "$n" "$MPCR" exec "$@" <"$input" >"$tmp/mpcr" 2>"$tmp/mpcr.err"
else
    # shellcheck disable=SC2086
    MPCR_EXPECT_MPI=1 timeout 300 "$MPCR" run ${MPCR_RUN_ARGS:-} -n "$n" "$@" <"$input" >"$tmp/mpcr" 2>"$tmp/mpcr.err"
fi
mpcr_rc=$?

# MPICH's UCX layer prints its own warnings to standard output (a send the
# program freed and MPI_Finalize did not wait for: "... was not returned to
# mpool"): they are MPICH's, not the program's output.
grep -v ' UCX  WARN ' "$tmp/native" >"$tmp/native.kept"
mv "$tmp/native.kept" "$tmp/native"

fail=0
if [ -n "${COMPARE_IGNORE:-}" ]; then
    for run in native mpcr; do
        grep -cE -- "$COMPARE_IGNORE" "$tmp/$run" >"$tmp/$run.ignored"
        grep -vE -- "$COMPARE_IGNORE" "$tmp/$run" >"$tmp/$run.kept"
        mv "$tmp/$run.kept" "$tmp/$run"
    done
    if ! cmp -s "$tmp/native.ignored" "$tmp/mpcr.ignored"; then
        echo "lines matching COMPARE_IGNORE: $(cat "$tmp/native.ignored") natively, $(cat "$tmp/mpcr.ignored") under mpcr"
        fail=1
    else
        echo "left out of the comparison: $(cat "$tmp/mpcr.ignored") lines matching /$COMPARE_IGNORE/ in each run"
    fi
fi
if [ "$native_rc" != "$mpcr_rc" ]; then
    echo "exit status differs: native $native_rc, mpcr $mpcr_rc"
    fail=1
fi
if ! diff <(sort "$tmp/native") <(sort "$tmp/mpcr") >"$tmp/diff"; then
    echo "output differs (< native, > mpcr):"
    head -40 "$tmp/diff"
    fail=1
fi
if [ ! -s "$tmp/native" ]; then
    echo "the program printed nothing natively: nothing was compared"
    fail=1
fi
if [ $fail = 1 ]; then
    echo "--- native stderr"; head -20 "$tmp/native.err"
    echo "--- mpcr stderr"; head -20 "$tmp/mpcr.err"
    exit 1
fi
echo "same exit status ($mpcr_rc) and output ($(wc -l <"$tmp/mpcr") lines) natively and under mpcr"
