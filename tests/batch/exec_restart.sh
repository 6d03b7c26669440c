#!/usr/bin/env bash
# `mpcr exec` under a launcher that starts mpcr on every rank, against the
# uninterrupted native run (mpiexec.mpich) of the same program:
#   exec_restart.sh NPROCS PROGRAM ARGS...
# `mpiexec.mpich -n N mpcr exec --ckpt-dir D PROGRAM ARGS` (rank 0 starts
# the coordinator), `mpcr checkpoint --exit D` once every rank is connected
# (`mpcr status D`), then `mpiexec.mpich -n N mpcr exec --restart D`. The
# two pieces' output together must equal the reference's (sorted lines:
# ranks print in any order), the restart's exit status the reference's;
# gen-1 must be complete, and no process of either job left.
# gen-1 must not have been taken at the program's final hold (common.sh).
# Environment: MPCR (the mpcr binary); LAUNCH (the launcher's command
# before `mpcr exec`, default "mpiexec.mpich -n NPROCS"); LAUNCH2 (the
# restart's, default LAUNCH: another launcher restarts the image under its
# own proxy, src/cli/exec.c); IF_ANY=1: both runs are `mpcr exec
# --restart-if-any D PROGRAM ARGS`, as a requeued job's script has it (D
# does not exist at first: a fresh start); FIRST=run: the first run is
# `mpcr run -n NPROCS --ckpt-dir D` instead (its image restarted by LAUNCH2
# `mpcr exec --restart D`); SECOND=restart: the restart is `mpcr restart D`
# instead (of an image of `mpcr exec`).
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
n=$1
shift
launch=${LAUNCH:-mpiexec.mpich -n $n}
launch2=${LAUNCH2:-$launch}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mpcr-batch-XXXXXX")
job=
fail() {
    echo "FAIL: $*"
    for f in "$scratch"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
    [ -n "$job" ] && kill "$job" 2>/dev/null
    exit 1
}
trap '[ -n "${KEEP:-}" ] || rm -rf "$scratch"' EXIT
. "$(dirname "$0")/common.sh"

mpiexec.mpich -n "$n" "$@" >"$scratch/ref" 2>"$scratch/ref.err"
ref_rc=$?
[ -s "$scratch/ref" ] || fail "the native run printed nothing (status $ref_rc)"
hold_jobs

if [ -n "${IF_ANY:-}" ]; then
    first=(--restart-if-any "$scratch/ck" "$@") second=(--restart-if-any "$scratch/ck" "$@")
else
    first=(--ckpt-dir "$scratch/ck" "$@") second=(--restart "$scratch/ck")
fi
if [ "${FIRST:-exec}" = run ]; then
    "$MPCR" run -n "$n" --ckpt-dir "$scratch/ck" "$@" >"$scratch/first.out" 2>"$scratch/first.err" &
else
    $launch "$MPCR" exec "${first[@]}" >"$scratch/first.out" 2>"$scratch/first.err" &
fi
job=$!
checkpoint_exit "$job" "$n" "$scratch/ck" 60
job=

if [ "${SECOND:-exec}" = restart ]; then
    "$MPCR" restart "$scratch/ck" >"$scratch/second.out" 2>"$scratch/second.err"
else
    $launch2 "$MPCR" exec "${second[@]}" >"$scratch/second.out" 2>"$scratch/second.err"
fi
rc=$?
[ "$rc" = "$ref_rc" ] || fail "the restarted job ended with status $rc, the native run with $ref_rc"
same_output "$scratch/ref" "$scratch/first.out" "$scratch/second.out"
echo "PASS: $(wc -l <"$scratch/want") lines, checkpointed at $(wc -l <"$scratch/first.out"), restarted to the end"
