#!/usr/bin/env bash
# stdin, stdout and stderr come from the restart command: st_stdin blocks in
# read(0) on a pipe that never delivers; after checkpoint --exit and a
# restart fed "hello", the re-issued read gets it.   stdin.sh BIN_DIR PROGRAM
set -u
bin=$1 prog=$2
. "$(dirname "$0")/lib.sh"
test_init stdin
export ZDTM_DIR=$T
mkfifo "$T/in"
exec 3<>"$T/in" # a writer that never writes: the reader blocks
"$bin/mpcr" run --no-mpi --ckpt-dir "$T/ck" "$prog" <"$T/in" >"$T/out1" 2>"$T/err1" &
run=$!
wait_ready $run
sleep 0.1 # inside read(0) by now
"$bin/mpcr" checkpoint --exit "$T/ck" 2>"$T/err_ck" || fail "checkpoint failed"
wait $run
exec 3>&-
echo hello | timeout 60 "$bin/mpcr" restart "$T/ck" >"$T/out2" 2>"$T/err2" || fail "restart failed"
grep -qx PASS "$T/out2" || fail "no PASS"
echo "stdin: PASS"
