#!/usr/bin/env bash
# The periodic checkpoint of the requeue script's line (docs/batch-systems.md
# "Requeue"), against the uninterrupted native run (mpiexec.mpich):
#   interval.sh NPROCS PROGRAM ARGS...
# `mpiexec.mpich -n N mpcr exec --restart-if-any D --interval 1 --keep 2
# PROGRAM ARGS` starts fresh; nobody asks for a checkpoint: once a
# generation is complete by itself every process of the job is killed (SIGKILL, as a node
# failure or a scheduler's kill leaves it), and the newest complete
# generation must not have been taken at the program's final hold
# (common.sh not_at_hold). The same line again resumes from it: it ends
# with the native status, prints the native run's last lines, and together
# with what the first run printed before the kill covers the native output;
# no process is left.
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
n=$1
shift
. "$(dirname "$0")/common.sh"
batch_start interval "$n" "$@"
D=$scratch/ck
line=("$MPCR" exec --restart-if-any "$D" --interval 1 --keep 2 "$@")

mpiexec.mpich -n "$n" "${line[@]}" >"$scratch/first.out" 2>"$scratch/first.err" &
job=$!
wait_connected "$job" "$n" "$D" 60
# any complete generation: under load --keep 2 may have removed gen-1 already
wait_complete "$D" "gen-*" "$job" "its first periodic checkpoint"
# shellcheck disable=SC2046
kill -KILL $(descendants "$job") $(jobs_left | cut -d' ' -f1) 2>/dev/null
wait "$job"
job=
no_jobs_left 10 "after the kill"
newest=$(newest_complete "$D")
not_at_hold "$D" "$newest" "the periodic checkpoint"
touch "$scratch/release"

mpiexec.mpich -n "$n" "${line[@]}" >"$scratch/second.out" 2>"$scratch/second.err"
rc=$?
[ "$rc" = "$ref_rc" ] || fail "the resumed job ended with status $rc, the native run with $ref_rc"
grep -qx "gen $newest" "$D/coord.launch" ||
    fail "the second run did not resume from gen-$newest: coord.launch says $(grep '^gen' "$D/coord.launch")"
resumed_output "$scratch/ref" "$scratch/first.out" "$scratch/second.out"
first=$(wc -l <"$scratch/first.out") second=$(wc -l <"$scratch/second.out")
no_jobs_left 10 "after the resumed job's end"
echo "PASS: killed after the periodic gen-$newest at $first lines, resumed: $second lines, the native run's last ones"
