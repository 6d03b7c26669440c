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
# instead (of an image of `mpcr exec`); PASSED=NAME=VALUE: LAUNCH and
# LAUNCH2 give the ranks NAME=VALUE and bind each to one CPU (`-genv NAME
# VALUE -bind-to core`, `-x NAME=VALUE --bind-to core`), and while each
# run works every rank must show both (common.sh passed_through).
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
n=$1
shift
launch=${LAUNCH:-mpiexec.mpich -n $n}
launch2=${LAUNCH2:-$launch}
. "$(dirname "$0")/common.sh"
batch_start batch "$n" "$@"

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
wait_connected "$job" "$n" "$scratch/ck" 60
[ -n "${PASSED:-}" ] && passed_through "the first run" "$1"
# `mpcr status --json` answers as under `mpcr run` (cli.status_json): every rank connected,
# running. Read while the job runs, checked after its checkpoint: python's start-up on two
# busy cores must not delay the checkpoint past the job's end (once in CI, "gen-1 was taken
# at the job's end").
"$MPCR" status --json "$scratch/ck" >"$scratch/status.json" 2>"$scratch/status.err" ||
    fail "mpcr status --json $scratch/ck failed"
checkpoint_exit "$job" "$n" "$scratch/ck" 60
job=
python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); n = int(sys.argv[2]); j = s["job"]
sys.exit(not (s["running"] and j["nranks"] == n and j["connected"] == n and
              [r["state"] for r in j["ranks"]] == ["running"] * n))' "$scratch/status.json" "$n" ||
    fail "mpcr status --json does not show the $n ranks connected and running: $(cat "$scratch/status.json")"

[ -n "${PASSED:-}" ] && rm -f "$scratch/release" "$scratch/release.reached" # held again, for the check
if [ "${SECOND:-exec}" = restart ]; then
    "$MPCR" restart "$scratch/ck" >"$scratch/second.out" 2>"$scratch/second.err" &
else
    $launch2 "$MPCR" exec "${second[@]}" >"$scratch/second.out" 2>"$scratch/second.err" &
fi
job=$!
if [ -n "${PASSED:-}" ]; then
    wait_connected "$job" "$n" "$scratch/ck" 60
    passed_through "the restart" "$1"
    touch "$scratch/release"
fi
wait "$job"
rc=$?
job=
[ "$rc" = "$ref_rc" ] || fail "the restarted job ended with status $rc, the native run with $ref_rc"
same_output "$scratch/ref" "$scratch/first.out" "$scratch/second.out"
echo "PASS: $(wc -l <"$scratch/want") lines, checkpointed at $(wc -l <"$scratch/first.out"), restarted to the end"
