#!/usr/bin/env bash
# How jobs fail under mpcr: each case must end the whole job within seconds,
# with the right exit status and a message that names the cause, and leave
# no process behind. Also: bad command lines, and a program started without
# mpcr.   failures.sh FAILURES_PROGRAM MISC_PROGRAM PASSIVE_LIB_DIR
# MPCR_RUN_ARGS adds options to `mpcr run` (e.g. "--mpi openmpi").
set -u
: "${MPCR:?MPCR must name the mpcr binary}"
run_args=${MPCR_RUN_ARGS:-}
prog=$1 misc=$2 libdir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
    echo "FAIL: $*"
    echo "--- stderr:"; head -20 "$tmp/err"
    failed=1
}

# No process of the job may survive it (looked for until none is left, 3 s
# at most: one still ending when its job's status came is no leftover).
leftovers() {
    local left i
    for ((i = 0; i < 60; i++)); do
        # Any process of the job (program, proxy, mpiexec), but not the shells of this script.
        left=$(for p in $(pgrep -f -- "$prog"); do
            # (a zombie left to init is no process: the kernel has freed it)
            [ "$(cat /proc/$p/comm 2>/dev/null)" = bash ] || [ "$(ps -o stat= -p "$p")" = Z ] || echo "$p"
        done)
        [ -z "$left" ] && return 0
        sleep 0.05
    done
    if [ -n "$left" ]; then
        fail "$1: processes left behind:"
        ps -o pid,ppid,cmd -p $left
        kill -9 $left
    fi
}

# expect CASE RC_TEST PATTERN: runs rank 1 failing in CASE; checks status and stderr.
expect() {
    local mode=$1 rc_test=$2 pattern=$3
    local start=$SECONDS
    timeout 60 "$MPCR" run $run_args -n 2 "$prog" "$mode" >"$tmp/out" 2>"$tmp/err" </dev/null
    local rc=$?
    [ $rc = 124 ] && fail "$mode: the job hung (killed after 60 s)"
    # shellcheck disable=SC2086
    [ $rc $rc_test ] || fail "$mode: exit status $rc, expected $rc_test"
    [ -z "$pattern" ] || grep -q -- "$pattern" "$tmp/err" || fail "$mode: stderr lacks '$pattern'"
    [ $((SECONDS - start)) -le 20 ] || fail "$mode: took $((SECONDS - start)) s to end"
    leftovers "$mode"
    echo "ok: $mode -> status $rc"
}

expect ok "= 0" ""
expect exit "= 3" ""
expect noexit "= 4" "rank 1: the program exited with status 4 without calling MPI_Finalize"
expect abort "= 5" "MPI_Abort"
expect segv "-ne 0" "rank 1: the program was killed by signal 11 (Segmentation fault)"
expect kill "-ne 0" "rank 1: the program was killed by signal 9 (Killed)"
expect unsupported "-ne 0" "mpcr: MPI_Open_port is not supported yet; mpcr ended the job (rank 1)"
# mpcr ended that job, not the program (issue 38, point 4)
! grep -q "called MPI_Abort" "$tmp/err" || fail "unsupported: blamed on MPI_Abort"
expect early "-ne 0" "MPI_Send called before MPI_Init"
expect late "-ne 0" "rank 1: MPI_Send called after MPI_Finalize"
expect abort_late "= 6" ""

# Programs that never use MPI run as they do under mpiexec, without a word from mpcr.
for case in "true:0" "false:1"; do
    timeout 30 "$MPCR" run $run_args -n 2 "${case%%:*}" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    [ $rc = "${case##*:}" ] || fail "non-MPI program ${case%%:*}: status $rc"
    grep -q "^mpcr:" "$tmp/err" && fail "non-MPI program ${case%%:*}: mpcr complained"
done
echo "ok: programs without MPI"

# The proxy of rank 1 dies while its program computes: the program says so
# and ends, and so does the job.
timeout 60 "$MPCR" run $run_args -n 2 "$prog" hang >"$tmp/out" 2>"$tmp/err" </dev/null &
job=$!
for _ in $(seq 100); do grep -q "rank 1 computing" "$tmp/out" && break; sleep 0.1; done
victim=""
for pid in $(pgrep -f -- "$prog hang"); do
    # The program (not its proxy) of rank 1: its parent is the proxy.
    if [ "$(cat /proc/$pid/comm 2>/dev/null)" = "$(basename "$prog" | cut -c1-15)" ] &&
        tr '\0' '\n' </proc/$pid/environ 2>/dev/null | grep -qxE '(PMI_RANK|OMPI_COMM_WORLD_RANK)=1'; then
        victim=$(ps -o ppid= -p "$pid" | tr -d ' ')
    fi
done
if [ -z "$victim" ]; then
    fail "proxy death: could not find the proxy of rank 1"
    kill -9 $job
else
    kill -9 "$victim"
    start=$SECONDS
    wait $job
    rc=$?
    [ $rc != 0 ] || fail "proxy death: job ended with status 0"
    [ $rc != 124 ] || fail "proxy death: the job hung"
    # The program reports its proxy's death unless the launcher's clean-up kills it
    # first, and `mpcr run`, which watches the proxies of its host, names the first to
    # end when it said nothing (src/cli/proxy_watch.c): either names rank 1's proxy.
    grep -q "rank 1: its proxy (pid $victim) died\|rank 1's proxy (pid $victim) was the first process of the job to end" "$tmp/err" ||
        fail "proxy death: mpcr did not name rank 1's proxy (pid $victim) on stderr"
    grep -q "rank 0's proxy" "$tmp/err" && fail "proxy death: rank 0's proxy named, rank 1's was killed"
    [ $((SECONDS - start)) -le 20 ] || fail "proxy death: took $((SECONDS - start)) s to end"
    echo "ok: proxy killed -> status $rc"
fi
leftovers "proxy death"

# Bad command lines: a usage message and status 2.
for args in "run" "run -n 0 $prog" "run -n" "run --bogus $prog" "frobnicate" "run --mpi nompi $prog"; do
    # shellcheck disable=SC2086
    "$MPCR" $args >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    [ $rc = 2 ] || fail "'mpcr $args': status $rc, expected 2"
    grep -q "usage\|not supported" "$tmp/err" || fail "'mpcr $args': no usage message"
done
echo "ok: bad command lines"

# A program that cannot be started.
timeout 30 "$MPCR" run $run_args -n 2 /nonexistent/program >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
[ $rc != 0 ] && [ $rc != 124 ] || fail "missing program: status $rc"
grep -q "cannot start /nonexistent/program" "$tmp/err" || fail "missing program: no message"
echo "ok: missing program -> status $rc"

# A program that uses mpcr's library but was not started by mpcr run.
LD_LIBRARY_PATH=$libdir timeout 30 "$misc" >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
[ $rc != 0 ] && [ $rc != 124 ] || fail "without mpcr run: status $rc"
grep -q "was not started by \`mpcr run\`" "$tmp/err" || fail "without mpcr run: no message"
echo "ok: started without mpcr run -> status $rc"

exit $failed
