# Sourced by the tests of tests/security: scratch space under /tmp (mode
# 0755 so that another user may be shown the way in), clean-up of what the
# test started (by pid, nothing else), fail(), and as_other, which runs a
# command as user nobody (only root can; an unprivileged run skips those
# parts and says so). The caller sets `name` and exports MPCR (the mpcr
# binary).
: "${MPCR:?MPCR must name the mpcr binary}"
T=$(mktemp -d "${TMPDIR:-/tmp}/mpcr-$name.XXXXXX")
chmod 0755 "$T"
pids=
trap 'for p in $pids; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
fail() {
    echo "$name: FAIL: $*"
    for f in "$T"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -8 "$f"; }; done
    exit 1
}
is_root() { [ "$(id -u)" = 0 ]; }
as_other() { setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp "$@"; }
mode_of() { stat -c %a "$1"; }
# free_port: tests/free_port.sh, beside this file in the .unprivileged
# variants (as_nobody.sh copies both into one directory)
for f in "$(dirname "${BASH_SOURCE[0]}")"/{,../}free_port.sh; do [ -r "$f" ] && . "$f" && break; done
# wait_for TEST...: up to 10 s (loaded machine: 20 s) for `test TEST...` to hold
wait_for() {
    for _ in $(seq 400); do test "$@" && return 0; sleep 0.05; done
    return 1
}
# until_true CMD...: up to 60 s (a loaded machine) for CMD, run again each time, to succeed
until_true() {
    for _ in $(seq 1200); do "$@" && return 0; sleep 0.05; done
    return 1
}
# says TEXT: the job's stderr ($T/job.err) says TEXT within until_true's time
says() { until_true grep -qF -- "$1" "$T/job.err"; }
# manifest_in DIR: a complete generation is in DIR
manifest_in() { ls "$1"/gen-*/manifest >/dev/null 2>&1; }
# delete_dir DIR: rm -rf, again while an interval checkpoint writes into it
# meanwhile (rm: Directory not empty)
delete_dir() {
    for _ in $(seq 50); do rm -rf "$1" 2>/dev/null && break; done
    [ ! -e "$1" ] || fail "could not delete $1 (checkpoints kept writing into it)"
}
# delete_and_make_again CK: an --interval job's checkpoint directory CK
# (stderr in $T/job.err) deleted: said, interval checkpoints stopped, status
# cannot reach the job; made again: taken up (issue 43, point 2)
delete_and_make_again() {
    delete_dir "$1"
    says "the checkpoint directory $1 was deleted while the job runs" || fail "the deletion was not said"
    says "no interval checkpoints until a directory of the user's alone is at $1 again" || fail "the stop was not said"
    "$MPCR" status "$1" >/dev/null 2>&1 && fail "status reached the job without its directory"
    mkdir -m 0700 "$1"
    says "listening again on $1/coord.sock; checkpoints go on in that directory, interval checkpoints again" ||
        fail "the coordinator did not take up the new directory"
}
# A client of a coordinator's unix socket that needs nothing but Python:
# sends one line, prints the first line of the answer ("" if none).
ask_sock() {
    /usr/bin/python3 - "$1" "$2" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
    s.sendall((sys.argv[2] + "\n").encode())
    s.settimeout(30)
    print(s.makefile().readline().strip())
except OSError as e:
    print("refused:", e)
PY
}
