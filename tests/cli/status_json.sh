#!/usr/bin/env bash
# `mpcr status --json` (docs/mpcr.1, STATUS AS JSON) before, during and
# after a checkpoint of a running 2-rank job, and after the job; the job's
# output must still equal the native run's.
#   status_json.sh PROGRAM ARGS...
# During: rank 1's program is stopped (SIGSTOP) so that the checkpoint
# `mpcr checkpoint` asks for waits in its image stage, where status must
# show it (generation 1, phase image, asked by the command, rank states
# quiet, gen-1 not complete); then SIGCONT lets it finish.
# Environment: MPCR (the mpcr binary), KEEP.
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
n=2
. "$(dirname "$0")/common.sh" status
D=$scratch/ck

# status_is NAME PYTHON-CONDITION...: `mpcr status --json D` is valid JSON
# (json.tool) and every condition holds of it (s: the object).
status_is() {
    local name=$1
    shift
    "$MPCR" status --json "$D" >"$scratch/$name.json" 2>"$scratch/$name.err" ||
        fail "$name: mpcr status --json ended with status $?"
    python3 -m json.tool "$scratch/$name.json" >/dev/null || fail "$name: not valid JSON: $(head -c 300 "$scratch/$name.json")"
    python3 - "$scratch/$name.json" "$@" <<'PY' || fail "$name: $(tail -1 "$scratch/$name.py") in $(cat "$scratch/$name.json")"
import json, sys
s = json.load(open(sys.argv[1]))
for cond in sys.argv[2:]:
    if not eval(cond):
        open(sys.argv[1].replace('.json', '.py'), 'w').write('false: %s\n' % cond)
        sys.exit(1)
PY
}

. "$(dirname "$0")/../native_run.sh"
native_run "$scratch/ref" "$scratch/ref.err" "$n" "$@"
ref_rc=$?
[ -s "$scratch/ref" ] || fail "the native run printed nothing (status $ref_rc)"

hold_jobs # the job's end waits for the release below: it still runs after the checkpoint
"$MPCR" run -n "$n" --ckpt-dir "$D" "$@" >"$scratch/job.out" 2>"$scratch/job.err" &
job=$!
wait_connected "$job" "$n" "$D" 60
status_is before "s['running'] is True" "s['dir'] == __import__('os').path.realpath('$D')" "s['job']['nranks'] == 2" \
    "s['job']['connected'] == 2" "s['job']['coordinator_pid'] == $job" \
    "[r['state'] for r in s['job']['ranks']] == ['running', 'running']" \
    "[r['rank'] for r in s['job']['ranks']] == [0, 1]" \
    "s['job']['checkpoint'] is None" "s['generations'] == []" "s['newest_complete'] == 0"

prog=$1
for ((i = 0; i < 50; i++)); do
    stopped=$(pgrep -f "^$prog " | sort -n | tail -1)
    [ -n "$stopped" ] && break
    sleep 0.1
done
[ -n "$stopped" ] || fail "no process of $prog found"
kill -STOP "$stopped"
"$MPCR" checkpoint "$D" >"$scratch/ckpt.out" 2>"$scratch/ckpt.err" &
ckpt=$!
for ((i = 0; i < 300; i++)); do
    "$MPCR" status --json "$D" 2>/dev/null | grep -q '"phase": "image"' && break
    sleep 0.1
done
status_is during "s['running'] is True" "s['job']['checkpoint']['generation'] == 1" \
    "s['job']['checkpoint']['phase'] == 'image'" "s['job']['checkpoint']['then'] == 'continue'" \
    "s['job']['checkpoint']['asked_by'] == 'command'" "s['job']['checkpoint']['seconds'] >= 0" \
    "[r['state'] for r in s['job']['ranks']] == ['quiet', 'quiet']" \
    "[g['generation'] for g in s['generations']] == [1]" "s['generations'][0]['complete'] is False"
kill -CONT "$stopped"
stopped=
wait "$ckpt" || fail "mpcr checkpoint failed"
status_is after_checkpoint "s['running'] is True" "s['job']['checkpoint'] is None" \
    "s['newest_complete'] == 1" "len(s['generations']) == 1" \
    "s['generations'][0]['complete'] is True" "s['generations'][0]['bytes'] > 100000" \
    "s['generations'][0]['nranks'] == 2" "s['generations'][0]['mpi'] == 'mpich'" \
    "len(s['generations'][0]['job']) == 16" "s['generations'][0]['time'].endswith('Z')" \
    "s['generations'][0]['unix_time'] > 1.7e9"
touch "$scratch/release" # hold_jobs
wait "$job"
rc=$?
job=
[ "$rc" = "$ref_rc" ] || fail "the job ended with status $rc, the native run with $ref_rc"
same_output "$scratch/ref" "$scratch/job.out"
status_is after_job "s['running'] is False" "s['job'] is None" "s['newest_complete'] == 1" \
    "[g['generation'] for g in s['generations']] == [1]"
echo "PASS: status --json before, during (image stage) and after a checkpoint, and after the job"
