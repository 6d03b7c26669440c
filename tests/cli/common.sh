# Shared by the cli tests (sourced as `. common.sh NAME`): a scratch
# directory $scratch (mpcr-NAME-XXXXXX, removed at the end unless KEEP is
# set), fail() (says why, shows the *.err files, ends what $job and
# $stopped name and every other process of the test's jobs), and
# tests/batch/common.sh's helpers.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mpcr-$1-XXXXXX")
job= stopped=
fail() {
    echo "FAIL: $*"
    for f in "$scratch"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
    [ -n "$stopped" ] && kill -CONT "$stopped" 2>/dev/null
    [ -n "$job" ] && kill "$job" 2>/dev/null
    # Killing the launcher does not end a job whose ranks were restored
    # (their proxies, programs and rank 0's coordinator went on for
    # minutes after a failed cli.signal_restart): whatever else of this
    # test's jobs is there goes too.
    local left
    left=$({ descendants $$; jobs_left | cut -d' ' -f1; } | sort -u)
    # shellcheck disable=SC2086
    [ -n "$left" ] && kill -KILL $left 2>/dev/null
    exit 1
}
trap '[ -n "${KEEP:-}" ] || rm -rf "$scratch"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/../batch/common.sh"
