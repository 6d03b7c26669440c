# Sourced by coord_lost.sh, stray_report.sh, silent_client.sh, late_rank.sh and late_member.sh: scratch
# space, a clean-up of what the test started (by pid, nothing else), fail(),
# and a standalone coordinator. The caller sets `name` and exports MPCR.
: "${MPCR:?MPCR must name the mpcr binary}"
T=$(mktemp -d "/tmp/mpcr-$name.XXXXXX")
pids=
trap 'for p in $pids; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
fail() {
    echo "$name: FAIL: $*"
    for f in "$T"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -8 "$f"; }; done
    exit 1
}
. "$(dirname "${BASH_SOURCE[0]}")/../free_port.sh"
# start_coordinator DIR NRANKS: `mpcr coordinator` on a new port ($port) of
# 127.0.0.1, its pid in $coord, its stderr in $T/coord.err; waits until it
# serves. Variables for it go before the call (VAR=value start_coordinator).
start_coordinator() {
    port=$(free_port)
    timeout 200 "$MPCR" coordinator --listen "127.0.0.1:$port" -n "$2" --ckpt-dir "$1" 2>>"$T/coord.err" &
    coord=$!
    pids="$pids $coord"
    for _ in $(seq 200); do [ -S "$1/coord.sock" ] && [ -s "$1/coord.secret" ] && return; sleep 0.05; done
    fail "the coordinator did not start"
}
