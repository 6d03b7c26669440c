#!/usr/bin/env bash
# Runs one state test through checkpoint, kill and restart:
#   zdtm.sh BIN_DIR TEST_PROGRAM [--user USER]
# 1. `mpcr run --no-mpi` starts the test; it sets up its state and touches ready;
# 2. `mpcr checkpoint --exit` writes the image and ends the process;
# 3. the driver touches go; `mpcr restart` resumes it; the test checks its
#    state and must print PASS and exit 0.
# With --user the whole cycle runs unprivileged (setpriv, no capabilities).
set -u
bin=$1 prog=$2
shift 2
user=""
[ "${1:-}" = "--user" ] && user=$2
[ "$(id -u)" -ne 0 ] && user="" # already unprivileged: run as we are
. "$(dirname "$0")/lib.sh"
test_init zdtm
test_name="zdtm: $(basename "$prog")"
as() {
    if [ -n "$user" ]; then setpriv --reuid="$user" --regid="$(id -gn "$user" 2>/dev/null || echo nogroup)" --clear-groups "$@"
    else "$@"; fi
}
if [ -n "$user" ]; then
    # The build tree may sit where the user cannot reach (/root/...): run copies.
    mkdir -p "$T/inst/bin" "$T/inst/lib/mpcr" "$T/inst/libexec/mpcr"
    cp "$bin/mpcr" "$T/inst/bin/" && cp "$bin/../lib/mpcr/libmpcr-engine.so" "$T/inst/lib/mpcr/" &&
        cp "$bin/../libexec/mpcr/mpcr-restore" "$T/inst/libexec/mpcr/" && cp "$prog" "$T/inst/" || exit 1
    bin=$T/inst/bin prog=$T/inst/$(basename "$prog")
    chmod -R a+rX "$T/inst"
    chown "$user" "$T" || exit 1
fi
export ZDTM_DIR=$T
cd "$T"

as "$bin/mpcr" run --no-mpi --ckpt-dir "$T/ck" "$prog" >"$T/out1" 2>"$T/err1" &
run=$!
wait_ready $run
as "$bin/mpcr" checkpoint --exit "$T/ck" 2>"$T/err_ck" || fail "checkpoint failed"
wait $run || fail "mpcr run ended with status $? after checkpoint --exit"
grep -q FAIL "$T/out1" && fail "failed before the checkpoint"
touch "$T/go"
timeout 60 bash -c "$(declare -f as); user='$user'; as '$bin/mpcr' restart '$T/ck'" >"$T/out2" 2>"$T/err2"
rc=$?
[ $rc -eq 0 ] || fail "restart ended with status $rc"
grep -qx PASS "$T/out2" || fail "no PASS after restart"
echo "zdtm: $(basename "$prog"): PASS${user:+ (as $user)}"
