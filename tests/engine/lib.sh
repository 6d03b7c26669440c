# Shared by the engine's test drivers (sourced): a scratch directory removed
# on exit (kept when KEEP is set), failure reporting with the tails of the
# logs in it, and waiting for a test program's ready file.

# test_init NAME: sets T (scratch directory) and the name used in messages.
test_init() {
    test_name=$1
    T=$(mktemp -d "/tmp/mpcr-$test_name.XXXXXX")
    trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
}

# fail MESSAGE: prints it and the last lines of every log in $T, exits 1.
fail() {
    echo "$test_name: $*"
    for f in "$T"/out* "$T"/err*; do [ -s "$f" ] && { echo "--- $(basename "$f")"; tail -n 20 "$f"; }; done
    exit 1
}

# wait_ready PID: until $T/ready exists (30 s at most, or until PID ends).
wait_ready() {
    for _ in $(seq 600); do
        [ -e "$T/ready" ] && return 0
        kill -0 "$1" 2>/dev/null || break
        sleep 0.05
    done
    [ -e "$T/ready" ] || fail "the test did not get ready"
}
