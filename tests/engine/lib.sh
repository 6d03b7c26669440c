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

# wait_running CKDIR PID: until a job answers on CKDIR (30 s at most, or
# until PID ends; non-zero then). `mpcr run` and `mpcr restart` take a moment
# to open their coordinator, longer on a busy machine, and a checkpoint asked
# before it is refused ("nothing is running").
wait_running() {
    for _ in $(seq 600); do
        as "$bin/mpcr" status --json "$1" 2>/dev/null | grep -q '"running": true' && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# run_as USER: from now on `as CMD...` runs CMD as USER (setpriv: no
# capabilities, no groups), on copies of the binaries in $T (the build tree
# may sit where USER cannot reach: /root/...); sets bin, prog, restore to
# the copies. USER empty, or not root: `as` runs CMD as we are.
run_as() {
    as_user=$1
    [ "$(id -u)" -ne 0 ] && as_user="" # already unprivileged
    [ -n "$as_user" ] || return 0
    mkdir -p "$T/inst/bin" "$T/inst/lib/mpcr" "$T/inst/libexec/mpcr"
    cp "$bin/mpcr" "$T/inst/bin/" && cp "$bin/../lib/mpcr/libmpcr-engine.so" "$T/inst/lib/mpcr/" &&
        cp "$bin/../libexec/mpcr/mpcr-restore" "$T/inst/libexec/mpcr/" && cp "$prog" "$T/inst/" || exit 1
    bin=$T/inst/bin prog=$T/inst/$(basename "$prog") restore=$T/inst/libexec/mpcr/mpcr-restore
    chmod -R a+rX "$T/inst"
    chown "$as_user" "$T" || exit 1
}
as() {
    if [ -n "${as_user:-}" ]; then
        setpriv --reuid="$as_user" --regid="$(id -gn "$as_user" 2>/dev/null || echo nogroup)" --clear-groups "$@"
    else "$@"; fi
}
