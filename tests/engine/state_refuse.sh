#!/usr/bin/env bash
# Hostile proxy state files: a job is checkpointed (--exit), then copies of
# its checkpoint directory get a rank-0.state whose counts are absurd but
# whose CRC32C is right (state_patch): a request token of 0xfffffff0 and
# one just above the bound (the proxy would size its request table by it:
# gigabytes, or, before the bound, a table accepted silently), and a
# header that announces 2^31 requests. `mpcr restart` must fail on each
# within 60 s, with a message that names the state file, leaving no
# process. The intact directory then restarts and the job ends with 0.
#   state_refuse.sh MPCR PROGRAM STATE_PATCH ARGS...   (PROGRAM: an MPI program of tests/ckpt)
set -u
mpcr=$1 prog=$2 patch=$3
shift 3
. "$(dirname "$0")/lib.sh"
test_init state_refuse
# A copy of the program in $T: pgrep -f "$T" then finds this test's processes only.
cp "$prog" "$T/prog" || fail "cannot copy $prog"
D=$T/ck

# leftovers WHAT: no process of this test is left, 10 s on.
leftovers() {
    for _ in $(seq 40); do
        pgrep -f -- "$T" >/dev/null || return 0
        sleep 0.25
    done
    local left
    left=$(pgrep -f -- "$T")
    # shellcheck disable=SC2086
    ps -o pid,cmd -p "${left//$'\n'/,}" && kill -KILL $left
    fail "$1: processes were left behind (killed now)"
}

MPCR_EXPECT_MPI=1 timeout -k 10 120 "$mpcr" run -n 2 --ckpt-dir "$D" "$T/prog" "$@" </dev/null >"$T/out0" 2>"$T/err0" &
job=$!
sleep 0.5
for try in $(seq 120); do
    timeout -k 10 150 "$mpcr" checkpoint --exit "$D" >"$T/out-ck" 2>"$T/err-ck" && break
    kill -0 $job 2>/dev/null || fail "the job ended before its checkpoint"
    grep -qE "try again|nothing is running" "$T/err-ck" || fail "checkpoint --exit failed: $(cat "$T/err-ck")"
    [ "$try" = 120 ] && fail "checkpoint --exit refused 120 times: $(cat "$T/err-ck")"
    sleep 0.25
done
wait $job || fail "the job exited with status $? after checkpoint --exit"
leftovers "the checkpointed job"
state=$(ls "$D"/gen-*/rank-0.state 2>/dev/null | tail -1)
[ -s "$state" ] || fail "no rank-0.state in the checkpoint"
gen=$(basename "$(dirname "$state")")

# refused NAME PATCH...: a copy with rank-0.state patched; the restart must fail saying WHY.
refused() {
    local what=$1 why=$2 copy=$T/copy rc
    shift 2
    rm -rf "$copy" && mkdir "$copy" || fail "mkdir"
    for f in "$D"/*; do [ -S "$f" ] || cp -a "$f" "$copy/"; done
    "$patch" "$state" "$copy/$gen/rank-0.state" "$@" || fail "$what: state_patch $*"
    timeout -k 10 60 "$mpcr" restart "$copy" </dev/null >"$T/out-r" 2>"$T/err-r"
    rc=$?
    case $rc in
    0) fail "$what: mpcr restart succeeded (the state file was accepted)" ;;
    124 | 137) fail "$what: mpcr restart did not end within 60 s" ;;
    esac
    grep -q "rank-0.state" "$T/err-r" && grep -qi "$why" "$T/err-r" ||
        fail "$what: status $rc, but no message naming rank-0.state and '$why': $(head -5 "$T/err-r")"
    leftovers "$what"
    echo "refused $what (status $rc): $(grep -m1 rank-0.state "$T/err-r")"
}
refused "request token 0xfffffff0" "token" token 0xfffffff0
refused "request token 2^20 + 1" "token" token 0x100001
refused "2^31 requests announced" "damaged" nreqs 0x80000000

timeout -k 10 120 "$mpcr" restart "$D" </dev/null >"$T/out1" 2>"$T/err1" || fail "the intact checkpoint did not restart to the end (status $?)"
leftovers "the restart of the intact checkpoint"
echo "state_refuse: PASS"
