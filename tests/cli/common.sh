# Shared by the cli tests (sourced as `. common.sh NAME`): a scratch
# directory $scratch (mpcr-NAME-XXXXXX, removed at the end unless KEEP is
# set), fail() (says why, shows the *.err files, ends what $job and
# $stopped name), and tests/batch/common.sh's helpers.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mpcr-$1-XXXXXX")
job= stopped=
fail() {
    echo "FAIL: $*"
    for f in "$scratch"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
    [ -n "$stopped" ] && kill -CONT "$stopped" 2>/dev/null
    [ -n "$job" ] && kill "$job" 2>/dev/null
    exit 1
}
trap '[ -n "${KEEP:-}" ] || rm -rf "$scratch"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/../batch/common.sh"
