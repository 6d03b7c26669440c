#!/usr/bin/env bash
# Connections that say nothing, or half a line, must delay no checkpoint.
# Three clients connect to a standalone coordinator before a checkpoint: one
# silent, one with half a secret line, one with the secret and half a
# request. The checkpoint must complete while the third is still connected
# (the coordinator drops a silent one that gave the secret only after
# MPCR_COORD_SILENT_TIMEOUT, set high here), and the job end with the
# native run's output. The first two are TCP strangers (no secret line):
# they are dropped 3 s after they came, whether or not the checkpoint was
# over by then (that depends on the machine's load), so all that is asked
# of them is that they are closed, within 20 s. Then a
# coordinator with a short silent timeout must drop a silent connection by
# itself.
#   silent_client.sh NPROCS PROGRAM ARGS...       (env MPCR)
set -u
n=$1
shift
name=silent_client.sh
. "$(dirname "$0")/coord_common.sh"
# open? FD: the coordinator has not closed connection FD (a read times out
# instead of meeting the end)
still_open() { read -r -t 0.5 -u "$1" _; [ $? -gt 128 ]; }

. "$(dirname "$0")/../native_run.sh"
native_run "$T/ref" "$T/native.stderr" "$n" "$@" || fail "the native run failed"
ck=$T/ck
MPCR_COORD_SILENT_TIMEOUT=600 start_coordinator "$ck" "$n"
timeout 150 "$MPCR" run -n "$n" --coordinator "127.0.0.1:$port" --ckpt-dir "$ck" "$@" >"$T/out" 2>"$T/run.err" &
job=$!
pids="$pids $job"
sleep 1
exec 3<>"/dev/tcp/127.0.0.1/$port" || fail "cannot connect"
exec 4<>"/dev/tcp/127.0.0.1/$port" || fail "cannot connect"
exec 5<>"/dev/tcp/127.0.0.1/$port" || fail "cannot connect"
printf 'secr' >&4
printf 'secret %s\ncheckp' "$(cat "$ck/coord.secret")" >&5
for try in $(seq 50); do # "try again in a moment": the ranks have not all started
    timeout 100 "$MPCR" checkpoint "$ck" 2>"$T/ckpt.err" && break
    grep -q "try again" "$T/ckpt.err" && [ "$try" -lt 50 ] || fail "the checkpoint failed: $(cat "$T/ckpt.err")"
    sleep 0.2
done
still_open 5 || fail "the connection that gave the secret was closed before the checkpoint completed"
for fd in 3 4; do timeout 20 cat <&$fd >/dev/null || fail "connection $fd, a stranger, was still open 20 s after the checkpoint (its deadline is 3 s)"; done
exec 3<&- 4<&- 5<&-
wait "$job" || fail "the job failed"
sort "$T/out" | cmp -s - <(sort "$T/ref") || fail "the output differs from the native run's"
wait "$coord" || fail "the coordinator did not end with its job"
echo "silent_client.sh: a checkpoint completed with a silent connection open; two strangers closed"

# A silent connection is dropped by the coordinator (after 1 s here).
MPCR_COORD_SILENT_TIMEOUT=1 start_coordinator "$T/ck2" "$n"
exec 3<>"/dev/tcp/127.0.0.1/$port" || fail "cannot connect"
timeout 60 cat <&3 >/dev/null || fail "a silent connection was not dropped"
exec 3<&-
"$MPCR" status "$T/ck2" >/dev/null 2>&1 || fail "the coordinator does not answer after dropping a connection"
kill "$coord"
echo "silent_client.sh: PASS"
