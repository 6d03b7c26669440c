#!/usr/bin/env bash
# Hostile proxy state files: a job is checkpointed (--exit), then copies of
# its checkpoint directory get a rank-0.state whose counts are absurd but
# whose CRC32C is right (state_patch): a request token of 0xfffffff0 and
# one just above the bound (the proxy would size its request table by it:
# gigabytes, or, before the bound, a table accepted silently), and a
# header that announces 2^31 requests, and a section of a kind this mpcr
# does not know (the requests' renamed: so it also lacks one). `mpcr restart` must fail on each
# within 60 s, with a message that names the state file, leaving no
# process. The intact directory then restarts and the job ends with 0.
#   state_refuse.sh MPCR PROGRAM STATE_PATCH ARGS...   (PROGRAM: an MPI program of tests/ckpt)
set -u
mpcr=$1 prog=$2 patch=$3
shift 3
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_job.sh"
test_init state_refuse
job_init "$prog"

MPCR_EXPECT_MPI=1 timeout -k 10 120 "$mpcr" run -n 2 --ckpt-dir "$D" "$T/prog" "$@" </dev/null >"$T/out0" 2>"$T/err0" &
job=$!
sleep 0.5
checkpoint_exit "$mpcr" $job
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
    # The manifest lists each file's size and checksum (the state file's
    # trailing CRC32C): list the patched one, so that the proxy's own
    # checks are what is tried.
    local crc
    crc=$(tail -c 4 "$copy/$gen/rank-0.state" | od -An -tx4 | tr -d ' \n')
    sed -i "s/^file rank-0.state .*/file rank-0.state $(stat -c %s "$copy/$gen/rank-0.state") $crc/" "$copy/$gen/manifest"
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
refused "a section this mpcr does not know" "section 'sessions' is unknown" rename sessions

timeout -k 10 120 "$mpcr" restart "$D" </dev/null >"$T/out1" 2>"$T/err1" || fail "the intact checkpoint did not restart to the end (status $?)"
leftovers "the restart of the intact checkpoint"
echo "state_refuse: PASS"
