#!/usr/bin/env bash
# Runs one state test through checkpoint, kill and restart:
#   zdtm.sh BIN_DIR TEST_PROGRAM [--user USER]
# 1. `mpcr run --no-mpi` starts the test; it sets up its state and touches ready;
# 2. `mpcr checkpoint --exit` writes the image and ends the process;
# 3. the driver touches go; `mpcr restart` resumes it; the test checks its
#    state and must print PASS and exit 0.
# With --user the whole cycle runs unprivileged (setpriv, no capabilities).
# With --forked, step 2 is first a checkpoint the process survives, which a
# forked copy must write (`--forked in-place`: which must be written in
# place, with MPCR_CKPT_FORK=0); then checkpoint --exit, whose image is
# thrown away, so that the restart takes the first image.
set -u
bin=$1 prog=$2
shift 2
user="" forked=""
while [ $# -gt 0 ]; do
    case $1 in
    --user) user=$2; shift 2 ;;
    --forked) forked=copy; shift; [ "${1:-}" = in-place ] && forked=in-place && shift ;;
    *) echo "zdtm.sh: unknown option $1"; exit 2 ;;
    esac
done
. "$(dirname "$0")/lib.sh"
test_init zdtm
test_name="zdtm: $(basename "$prog")"
run_as "$user"
export ZDTM_DIR=$T
cd "$T"

as "$bin/mpcr" run --no-mpi --ckpt-dir "$T/ck" "$prog" >"$T/out1" 2>"$T/err1" &
run=$!
wait_ready $run
if [ -n "$forked" ]; then
    as "$bin/mpcr" checkpoint "$T/ck" 2>"$T/err_ck1" || fail "checkpoint failed"
    if [ $forked = copy ]; then
        grep -q "written by a forked copy" "$T/err_ck1" || fail "the image was not written by a forked copy"
    else
        grep -q "forked copy" "$T/err_ck1" && fail "a forked copy wrote the image although told not to"
    fi
fi
as "$bin/mpcr" checkpoint --exit "$T/ck" 2>"$T/err_ck" || fail "checkpoint failed"
wait $run || fail "mpcr run ended with status $? after checkpoint --exit"
[ -n "$forked" ] && rm -rf "$T/ck/gen-2" # restart from the first image
grep -q FAIL "$T/out1" && fail "failed before the checkpoint"
touch "$T/go"
as timeout 60 "$bin/mpcr" restart "$T/ck" >"$T/out2" 2>"$T/err2"
rc=$?
[ $rc -eq 0 ] || fail "restart ended with status $rc"
grep -qx PASS "$T/out2" || fail "no PASS after restart"
echo "$test_name: PASS${as_user:+ (as $as_user)}"
