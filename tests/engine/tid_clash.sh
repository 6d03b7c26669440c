#!/usr/bin/env bash
# A program whose process id is also the upper half of the addresses it
# lives at, checkpointed and restarted: tid_clash.sh BIN_DIR PROGRAM
#
# Without address randomisation (setarch -R) a program's thread blocks lie
# at 0x7fff........, whose upper 32 bits read 32767: the highest process id
# where pid_max is 32768 (the default), and with randomisation any id from
# 32512 up meets some run's addresses. The engine once looked for glibc's
# copy of the thread id by its value in the thread block, took such an
# address half for it, and every checkpoint of a threaded program failed
# ("glibc's thread block has no thread id where expected"; seen once in CI).
# Here the program (zdtm-style, PROGRAM has threads) runs as process 32767
# of a pid namespace of its own, where ns_last_pid can be set: root only,
# skipped (77) elsewhere.
set -u
bin=$1 prog=$2
. "$(dirname "$0")/lib.sh"
test_init tid_clash
if [ "$(id -u)" -ne 0 ] || ! command -v setarch >/dev/null ||
    ! unshare -pf --mount-proc sh -c 'echo 300 >/proc/sys/kernel/ns_last_pid' 2>/dev/null; then
    echo "tid_clash: skipped: needs root, unshare and setarch to choose a process id"
    exit 77
fi
export ZDTM_DIR=$T
cd "$T"
run=""
# a failure leaves no job behind: unshare ignores SIGTERM while it waits, and
# SIGKILL ends it and, through --kill-child, every process of its namespace
trap '[ -n "$run" ] && kill -KILL $run 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

# The program is the first process mpcr run starts after a few of its own
# threads: try the last id given out just below until the program gets 32767.
want=32767
for lead in 1 2 3 4 5 6 7 8 9 10; do
    rm -rf "$T/ready" "$T/ck"
    unshare -pf --mount-proc --kill-child sh -c 'echo "$1" >/proc/sys/kernel/ns_last_pid &&
        exec setarch "$(uname -m)" -R "$2" run --no-mpi --ckpt-dir "$3" "$4"' \
        sh $((want - lead)) "$bin/mpcr" "$T/ck" "$prog" >"$T/out1" 2>"$T/err1" &
    run=$!
    wait_ready $run
    nspid=""
    for p in $(pgrep -f "^$prog"); do
        nspid=$(awk '/^NSpid:/ { print $NF }' "/proc/$p/status" 2>/dev/null)
        [ "$nspid" = $want ] && break
    done
    [ "$nspid" = $want ] && break
    kill -KILL $run 2>/dev/null
    wait $run 2>/dev/null
done
[ "$nspid" = $want ] || fail "the program never got process id $want (last: ${nspid:-none})"
"$bin/mpcr" checkpoint --exit "$T/ck" 2>"$T/err_ck" || fail "checkpoint of process $want failed"
wait $run || fail "mpcr run ended with status $? after checkpoint --exit"
run=""
grep -q FAIL "$T/out1" && fail "failed before the checkpoint"
touch "$T/go"
timeout 60 "$bin/mpcr" restart "$T/ck" >"$T/out2" 2>"$T/err2" || fail "restart ended with status $?"
grep -qx PASS "$T/out2" || fail "no PASS after restart"
echo "tid_clash: PASS (process $want, lead $lead)"
