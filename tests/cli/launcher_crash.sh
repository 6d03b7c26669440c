#!/usr/bin/env bash
# A launcher that crashes is named (issue 43, point 4): `mpcr run` with
# MPCR_MPIEXEC a wrapper of mpiexec.mpich that, once the job has run, is
# killed by SIGSEGV itself, or exits 139 as a shell does whose child crashed.
# mpcr must end with 139 and say on stderr what happened; before, it passed
# the status on without a word.
#   launcher_crash.sh      (env MPCR)
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpcr-launcher-crash.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "launcher_crash: FAIL: $*"; exit 1; }
printf '#!/bin/bash\nmpiexec.mpich "$@"\nkill -SEGV $$\n' >"$tmp/crashes"
printf '#!/bin/bash\nmpiexec.mpich "$@"\nexit 139\n' >"$tmp/says_139"
chmod +x "$tmp/crashes" "$tmp/says_139"
# case LAUNCHER PATTERN
case_of() {
    MPCR_MPIEXEC=$tmp/$1 timeout 60 "$MPCR" run -n 1 true >"$tmp/out" 2>"$tmp/err" </dev/null
    local rc=$?
    [ $rc = 139 ] || fail "$1: status $rc, not 139 ($(cat "$tmp/err"))"
    grep -q -- "$2" "$tmp/err" || fail "$1: stderr does not say '$2': $(cat "$tmp/err")"
    echo "ok: $1 -> $rc: $(cat "$tmp/err")"
}
case_of crashes "the launcher $tmp/crashes crashed: it was killed by signal 11 (Segmentation fault)"
case_of says_139 "status 139 from says_139 and no rank said why: a process of the job was killed by signal 11 (Segmentation fault) before it could: a rank's proxy or the launcher crashed"
echo "launcher_crash: PASS"
